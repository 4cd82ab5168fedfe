/** The pure fleet logic: networks, fail-over order, disagreement, signals and shards. */
import { describe, expect, it } from 'vitest';
import { candidateOrder, disagreement, fleetSamples, networkOf, shardOf, type TargetView } from '../../../src/exporter/fleet/signals.js';
import type { Sample } from '../../../src/exporter/exposition/labels.js';

const view = (name: string, o: Partial<TargetView> & { height?: bigint; dn?: bigint; chain?: string; version?: string; fp?: string; fpH?: bigint } = {}): TargetView => ({
  name,
  healthy: o.healthy ?? true,
  configuredNetwork: o.configuredNetwork,
  facts: { chainId: o.chain ?? 'c1', appVersion: o.version ?? 'v1', height: o.height ?? 100n, ...(o.dn !== undefined ? { datanodeHeight: o.dn } : {}) },
  ...(o.fp !== undefined ? { fingerprint: { value: o.fp, height: o.fpH } } : {}),
});
const get = (s: Sample[], name: string, target: string): number | undefined => s.find((x) => x.metric.name === name && x.values[0] === target)?.value;

describe('fleet logic', () => {
  it('a configured network wins over the chain id; an unknown chain id is no network', () => {
    expect(networkOf(view('a'))).toBe('c1');
    expect(networkOf(view('a', { configuredNetwork: 'main' }))).toBe('main');
    expect(networkOf({ name: 'x', healthy: false })).toBeUndefined();
    expect(networkOf(view('a', { chain: '' }))).toBeUndefined();
  });

  it('fail-over order: healthy first, then the freshest data-node height', () => {
    const order = candidateOrder([view('a', { dn: 90n }), view('b', { healthy: false, dn: 200n }), view('c', { dn: 95n }), view('d', { height: 99n })]);
    expect(order).toEqual(['d', 'c', 'a', 'b']);
  });

  it('disagreement: deviants from a strict majority; everybody when there is none; nobody when unanimous', () => {
    expect(disagreement(['x', 'x', 'y'])).toEqual([false, false, true]);
    expect(disagreement(['x', 'y'])).toEqual([true, true]);
    expect(disagreement(['x', 'x'])).toEqual([false, false]);
    expect(disagreement([])).toEqual([]);
  });

  it('signals: height lag, version and chain-id mismatch, data agreement at about the same height', () => {
    const s = fleetSamples(
      [
        view('a', { height: 100n, fp: 'F', fpH: 100n }),
        view('b', { height: 97n, fp: 'F', fpH: 98n }),
        view('c', { height: 100n, version: 'v2', fp: 'G', fpH: 100n }),
        view('d', { height: 40n, fp: 'G', fpH: 40n }), // far behind: not compared
        view('e', { healthy: false, height: 1n }),
        view('f', { chain: 'c2', height: 5n }),
      ],
      10,
    );
    expect(get(s, 'vega_fleet_block_height_lag_blocks', 'a')).toBe(0);
    expect(get(s, 'vega_fleet_block_height_lag_blocks', 'b')).toBe(3);
    expect(get(s, 'vega_fleet_block_height_lag_blocks', 'd')).toBe(60);
    expect(get(s, 'vega_fleet_block_height_lag_blocks', 'e')).toBeUndefined(); // unhealthy: no claim
    expect(get(s, 'vega_fleet_version_mismatch', 'c')).toBe(1);
    expect(get(s, 'vega_fleet_version_mismatch', 'a')).toBe(0);
    expect(get(s, 'vega_fleet_data_agreement', 'a')).toBe(1);
    expect(get(s, 'vega_fleet_data_agreement', 'c')).toBe(0);
    expect(get(s, 'vega_fleet_data_agreement', 'd')).toBeUndefined();
    expect(get(s, 'vega_fleet_chain_id_mismatch', 'f')).toBe(1);
    expect(get(s, 'vega_fleet_chain_id_mismatch', 'a')).toBe(0);
    expect(s.find((x) => x.metric.name === 'vega_network_healthy_targets' && x.values[0] === 'c1')?.value).toBe(4);
    expect(s.find((x) => x.metric.name === 'vega_target_network' && x.values[0] === 'e')?.values[1]).toBe('c1');
  });

  it('data-node version disagreement: from the info facts, healthy nodes only, apart from the core version', () => {
    const s = fleetSamples(
      [
        { ...view('a'), datanodeVersion: 'v0.79.0' },
        { ...view('b', { version: 'v0.78.5' }), datanodeVersion: 'v0.79.0' }, // core differs, data node agrees
        { ...view('c'), datanodeVersion: 'v0.78.9' },
        { ...view('d', { healthy: false }), datanodeVersion: 'v0.1.0' }, // unhealthy: no claim
        view('e'), // info never answered: no series
      ],
      10,
    );
    expect(get(s, 'vega_fleet_datanode_version_mismatch', 'a')).toBe(0);
    expect(get(s, 'vega_fleet_datanode_version_mismatch', 'b')).toBe(0);
    expect(get(s, 'vega_fleet_datanode_version_mismatch', 'c')).toBe(1);
    expect(get(s, 'vega_fleet_datanode_version_mismatch', 'd')).toBeUndefined();
    expect(get(s, 'vega_fleet_datanode_version_mismatch', 'e')).toBeUndefined();
    expect(get(s, 'vega_fleet_version_mismatch', 'b')).toBe(1);
  });

  it('segment lag: the data node\'s own height (else core\'s) minus the newest toHeight, never negative', () => {
    const s = fleetSamples(
      [
        { ...view('a', { height: 5000n, dn: 4800n }), segmentHeight: 4000n }, // from the data node's height, not core's
        { ...view('b', { height: 5000n }), segmentHeight: 4000n }, // no header: core height stands in
        { ...view('c', { height: 5000n }), segmentHeight: 5300n }, // polled later than statistics: 0, not -300
        view('d', { height: 5000n }), // no segments known: absent
        { ...view('e', { healthy: false, height: 5000n }), segmentHeight: 1n },
      ],
      10,
    );
    expect(get(s, 'vega_history_segment_lag_blocks', 'a')).toBe(800);
    expect(get(s, 'vega_history_segment_lag_blocks', 'b')).toBe(1000);
    expect(get(s, 'vega_history_segment_lag_blocks', 'c')).toBe(0);
    expect(get(s, 'vega_history_segment_lag_blocks', 'd')).toBeUndefined();
    expect(get(s, 'vega_history_segment_lag_blocks', 'e')).toBeUndefined();
    expect(s.find((x) => x.metric.name === 'vega_history_segment_lag_blocks' && x.values[0] === 'a')?.values[1]).toBe('c1');
  });

  it('shards split names evenly enough and deterministically', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `dn-${i}`);
    const counts = [0, 0, 0];
    for (const n of names) counts[shardOf(n, 3)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(280);
    expect(shardOf('dn-1', 3)).toBe(shardOf('dn-1', 3));
  });
});
