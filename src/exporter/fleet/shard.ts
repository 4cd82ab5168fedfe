/** Sharding: which targets an exporter started with `shard: i/n` polls. */
import { fnv1a } from '../hash.js';

/** The targets shard "i/n" keeps (all of them without a shard). */
export function inShard<T extends { name: string }>(targets: readonly T[], shard: string | undefined): T[] {
  if (!shard) return [...targets];
  const [i, n] = shard.split('/').map(Number) as [number, number];
  return targets.filter((t) => shardOf(t.name, n) === i);
}

/** The shard a target name falls in: FNV-1a, stable across processes and versions. */
export function shardOf(name: string, shards: number): number {
  return fnv1a(name) % shards;
}
