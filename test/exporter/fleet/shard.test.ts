/** Sharding: every target lands in exactly one shard, and the split is even enough. */
import { describe, expect, it } from 'vitest';
import { inShard, shardOf } from '../../../src/exporter/fleet/shard.js';

describe('shards', () => {
  it('shards split names evenly enough and deterministically', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `dn-${i}`);
    const counts = [0, 0, 0];
    for (const n of names) counts[shardOf(n, 3)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(280);
    expect(shardOf('dn-1', 3)).toBe(shardOf('dn-1', 3));
  });

  it('keeps every target without a shard, and each target in exactly one of n shards', () => {
    const targets = Array.from({ length: 50 }, (_, i) => ({ name: `dn-${i}` }));
    expect(inShard(targets, undefined)).toEqual(targets);
    const parts = [0, 1, 2].map((i) => inShard(targets, `${i}/3`).map((t) => t.name));
    expect(parts.flat().sort()).toEqual(targets.map((t) => t.name).sort());
    expect(new Set(parts.flat()).size).toBe(targets.length);
    for (const p of parts) expect(p.length).toBeGreaterThan(0);
  });
});
