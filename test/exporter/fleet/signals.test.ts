/** The pure fleet logic: networks, fail-over order, which shard polls a network, what a node contributes. */
import { describe, expect, it } from 'vitest';
import { candidateOrder, networkOf, networkShard, targetSamples, type TargetView } from '../../../src/exporter/fleet/signals.js';
import type { Sample } from '../../../src/exporter/engine/labels.js';

const view = (name: string, o: Partial<TargetView> & { height?: bigint; dn?: bigint; chain?: string } = {}): TargetView => ({
  name,
  healthy: o.healthy ?? true,
  configuredNetwork: o.configuredNetwork,
  facts: { chainId: o.chain ?? 'c1', height: o.height ?? 100n, ...(o.dn !== undefined ? { datanodeHeight: o.dn } : {}) },
  ...(o.fingerprint !== undefined ? { fingerprint: o.fingerprint } : {}),
  ...(o.segmentHeight !== undefined ? { segmentHeight: o.segmentHeight } : {}),
});
const get = (s: Sample[], name: string): Sample | undefined => s.find((x) => x.metric.name === name);

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

  it("a configured network is polled by its first member's shard; a chain-id network by its name's hash", () => {
    // FNV-1a 32-bit published test vectors: "a" = 0xe40c292c, "foobar" = 0xbf9cf968.
    const all = [{ name: 'c', network: 'main' }, { name: 'a', network: 'main' }, { name: 'b' }];
    expect(networkShard('main', all, 3)).toBe(0xe40c292c % 3);
    expect(networkShard('main', all, 5)).toBe(0xe40c292c % 5);
    expect(networkShard('foobar', all, 3)).toBe(0xbf9cf968 % 3);
  });

  it('a node contributes its network and group, its data digest as a value, the height of that digest and its segment lag', () => {
    const s = targetSamples(view('a', { fingerprint: { value: 'foobar', height: 90n } }));
    expect(get(s, 'vega_target_network_info')?.values).toEqual(['a', 'c1', '*']);
    expect(get(s, 'vega_data_digest')?.value).toBe(0xbf9cf968); // FNV-1a of "foobar"
    expect(get(s, 'vega_data_digest_height_blocks')?.value).toBe(90);
    expect(get(targetSamples(view('a', { configuredNetwork: 'main' })), 'vega_target_network_info')?.values).toEqual(['a', 'main', 'main']);
    // Unhealthy: membership only, no claim about its data.
    const down = targetSamples(view('a', { healthy: false, fingerprint: { value: 'x' }, segmentHeight: 1n }));
    expect(down.map((x) => x.metric.name)).toEqual(['vega_target_network_info']);
    expect(targetSamples({ name: 'x', healthy: true })).toEqual([]);
  });

  it("segment lag: the data node's own height (else core's) minus the newest toHeight, never negative", () => {
    const lag = (v: TargetView): number | undefined => get(targetSamples(v), 'vega_history_segment_lag_blocks')?.value;
    expect(lag({ ...view('a', { height: 5000n, dn: 4800n }), segmentHeight: 4000n })).toBe(800); // the data node's height, not core's
    expect(lag({ ...view('b', { height: 5000n }), segmentHeight: 4000n })).toBe(1000); // no header: core height stands in
    expect(lag({ ...view('c', { height: 5000n }), segmentHeight: 5300n })).toBe(0); // polled later than statistics: 0, not -300
    expect(lag(view('d', { height: 5000n }))).toBeUndefined(); // no segments known: absent
    expect(get(targetSamples({ ...view('a'), segmentHeight: 1n }), 'vega_history_segment_lag_blocks')?.values).toEqual(['a', 'c1']);
  });
});
