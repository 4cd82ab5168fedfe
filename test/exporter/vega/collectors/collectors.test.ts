/** The pure part of each collector: JSON fixtures in, samples out. */
import { readFileSync } from 'node:fs';
import { thrown } from '../../../helpers/thrown.js';
import { describe, expect, it } from 'vitest';
import { M } from '../../../helpers/metrics.js';
import { RotationTally, parseRotation } from '../../../../src/exporter/vega/collectors/key-rotations.js';
import { networkHistorySamples } from '../../../../src/exporter/vega/collectors/network-history.js';
import { statisticsSamples } from '../../../../src/exporter/vega/collectors/statistics.js';
import { FieldError } from '../../../../src/exporter/errors.js';
import type { Sample } from '../../../../src/exporter/engine/labels.js';

const fixture = (): any => JSON.parse(readFileSync(new URL('../../../fixtures/statistics.json', import.meta.url), 'utf8'));
const val = (samples: Sample[], name: string, ...values: string[]): number | undefined =>
  samples.find((s) => s.metric.name === name && values.every((v, i) => s.values[i + 1] === v))?.value;

describe('statistics', () => {
  const headers = { 'x-block-height': '9007199254740990', 'x-block-timestamp': '1727784000123456789' };

  it('converts every field to base units', () => {
    const s = statisticsSamples('n', fixture(), headers);
    expect(val(s, 'vega_block_height')).toBe(9007199254740992); // nearest double to 2^53+1
    expect(val(s, 'vega_datanode_lag_blocks')).toBe(3); // exact: subtracted as BigInt
    expect(val(s, 'vega_datanode_block_height')).toBe(9007199254740990);
    expect(val(s, 'vega_datanode_block_timestamp_seconds')).toBeCloseTo(1727784000.1234567, 6);
    expect(val(s, 'vega_block_duration_seconds')).toBeCloseTo(1.234567891, 9);
    expect(val(s, 'vega_block_timestamp_seconds')).toBe(Date.UTC(2024, 9, 1, 12, 0, 0) / 1000 + 0.5);
    expect(val(s, 'vega_current_timestamp_seconds')).toBeCloseTo(Date.UTC(2024, 9, 1, 12, 0, 1) / 1000 + 0.123456789, 6);
    expect(val(s, 'vega_chain_orders_total')).toBe(2 ** 64); // u64 max, as the nearest float64
    expect(val(s, 'vega_chain_trades_total')).toBe(9007199254740992);
    expect(val(s, 'vega_peers')).toBe(7);
    expect(val(s, 'vega_epoch')).toBe(42);
    expect(val(s, 'vega_subscriptions', 'orders')).toBe(0);
    expect(val(s, 'vega_chain_status', 'CHAIN_STATUS_CONNECTED')).toBe(1);
    expect(val(s, 'vega_chain_status', 'CHAIN_STATUS_REPLAYING')).toBe(0);
    const info = s.find((x) => x.metric === M.buildInfo)!;
    expect(info.values).toEqual(['n', 'v0.79.0', 'abc123', '0.38.7', 'vega-mainnet-0011']);
  });

  it('unset times are absent, not 0', () => {
    const s = statisticsSamples('n', fixture(), headers);
    expect(val(s, 'vega_epoch_expiry_timestamp_seconds')).toBeUndefined();
    const f = fixture();
    f.statistics.genesisTime = '';
    expect(val(statisticsSamples('n', f, headers), 'vega_genesis_timestamp_seconds')).toBeUndefined();
  });

  it('missing or zero freshness headers give absent series', () => {
    for (const h of [{}, { 'x-block-height': '0', 'x-block-timestamp': '0' }]) {
      const s = statisticsSamples('n', fixture(), h);
      expect(val(s, 'vega_datanode_block_height')).toBeUndefined();
      expect(val(s, 'vega_datanode_lag_blocks')).toBeUndefined();
      expect(val(s, 'vega_datanode_block_timestamp_seconds')).toBeUndefined();
    }
  });

  it('an unknown chain status is exported alongside the known ones', () => {
    const f = fixture();
    f.statistics.status = 7;
    const s = statisticsSamples('n', f, headers);
    expect(val(s, 'vega_chain_status', '7')).toBe(1);
    expect(val(s, 'vega_chain_status', 'CHAIN_STATUS_CONNECTED')).toBe(0);
  });

  it('a field of the wrong type fails the collector with a FieldError naming it', () => {
    const f = fixture();
    f.statistics.totalPeers = true;
    expect(() => statisticsSamples('n', f, headers)).toThrow(/statistics\.totalPeers: expected a uint64/);
    expect(() => statisticsSamples('n', { stats: {} }, headers)).toThrow(FieldError);
    expect(() => statisticsSamples('n', null, headers)).toThrow(FieldError);
  });
});

describe('network history', () => {
  it('counts connections and distinct peers; never reads the swarm keys', () => {
    const s = networkHistorySamples('n', { swarmKey: 'SECRET', swarmKeySeed: 'SEED', connectedPeers: ['/a', '/b', '/a'] });
    expect(val(s, 'vega_network_history_connected_peers')).toBe(2);
    expect(val(s, 'vega_network_history_connections')).toBe(3);
    expect(JSON.stringify(s)).not.toContain('SECRET');
  });

  it('known-but-empty is 0', () => {
    expect(val(networkHistorySamples('n', { connectedPeers: [] }), 'vega_network_history_connected_peers')).toBe(0);
  });

  it('bad shapes are FieldErrors that do not quote the body', () => {
    expect(() => networkHistorySamples('n', { swarmKey: 'SECRET', connectedPeers: 'SECRET' })).toThrow(/connectedPeers: expected an array, got a string/);
    const err = thrown(() => networkHistorySamples('n', { connectedPeers: ['SECRET', 5] }));
    expect(err.message).toMatch(/connectedPeers\[1\]/);
    expect(err.message).not.toContain('SECRET');
  });
});

describe('key rotations', () => {
  // 'a' stands for a node id 'aaaa…' (64 characters); ids of any other shape: test/exporter/vega/collectors/id-shapes.test.ts.
  const row = (node: string, key: string, h: number) => ({ nodeId: node.repeat(64), oldPubKey: 'x', newPubKey: key, blockHeight: String(h) });
  const rows = (...r: unknown[]) => r.map((n, i) => parseRotation(n, `rotations.edges[${i}].node`));

  it('tallies per node with the last height, and ignores a row repeated across pages', () => {
    const t = new RotationTally();
    t.add(rows(row('a', 'k1', 10), row('b', 'k2', 11)));
    t.add(rows(row('b', 'k2', 11), row('a', 'k3', 20))); // overlap with the previous page
    const s = t.samples('n');
    expect(val(s, 'vega_key_rotations_total', 'a'.repeat(64))).toBe(2);
    expect(val(s, 'vega_key_rotations_total', 'b'.repeat(64))).toBe(1);
    expect(val(s, 'vega_key_rotation_last_block_height', 'a'.repeat(64))).toBe(20);
  });

  it('rejects a malformed row naming the field', () => {
    expect(() => rows({ nodeId: 'a'.repeat(64), newPubKey: 'k', blockHeight: 5 })).toThrow(/rotations\.edges\[0\]\.node\.blockHeight/);
    expect(() => rows(null)).toThrow(/rotations\.edges\[0\]\.node: expected an object/);
    expect(rows({ nodeId: 'validator-1', newPubKey: 'k', blockHeight: '5' })[0]!.nodeId).toBe('validator-1'); // an id is any non-empty string
    expect(thrown(() => rows({ nodeId: '', newPubKey: 'k', blockHeight: '5' }))).toMatchObject({ field: 'rotations.edges[0].node.nodeId', reason: 'bad_id' });
    expect(thrown(() => rows({ nodeId: 7, newPubKey: 'k', blockHeight: '5' }))).toMatchObject({ field: 'rotations.edges[0].node.nodeId', reason: 'bad_field' });
  });
});
