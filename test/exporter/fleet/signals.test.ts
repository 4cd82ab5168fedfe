/** The pure fleet logic: networks, fail-over order, disagreement, signals and shards. */
import { describe, expect, it } from 'vitest';
import { candidateOrder, disagreement, fleetSamples, networkOf, trackPoll, type PollTrack, type TargetView } from '../../../src/exporter/fleet/signals.js';
import type { Sample } from '../../../src/exporter/engine/labels.js';

const view = (
  name: string,
  o: Partial<TargetView> & { height?: bigint; dn?: bigint; chain?: string; version?: string; fp?: string; fpH?: bigint } = {},
): TargetView => ({
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
    expect(s.find((x) => x.metric.name === 'vega_target_network_info' && x.values[0] === 'e')?.values[1]).toBe('c1');
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

  it("segment lag: the data node's own height (else core's) minus the newest toHeight, never negative", () => {
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

  describe('height lag at a common moment', () => {
    // A chain with a block every second (block k's time T0 + k s, or ± up to 20 ms with `jitter`),
    // nodes a fixed number of blocks behind it, each polled every 5 s at its own phase: what a
    // statistics answer says at the instant of its poll.
    const T0 = 1_700_000_000_000;
    const blockMs = (k: number, jitter: boolean): number => T0 + k * 1000 + (jitter ? ((k * 7919) % 41) - 20 : 0);
    const tipAt = (ms: number, jitter: boolean): number => {
      let k = Math.floor((ms - T0) / 1000) + 1;
      while (blockMs(k, jitter) > ms) k--;
      return k;
    };
    const polled = (name: string, behind: number, atMs: number, prev: PollTrack | undefined, jitter: boolean): TargetView & { poll: PollTrack } => {
      const h = tipAt(atMs, jitter) - behind;
      const blockTimeNs = BigInt(blockMs(h, jitter)) * 1_000_000n;
      return {
        name,
        healthy: true,
        poll: trackPoll(prev, atMs, BigInt(h), blockTimeNs),
        facts: {
          chainId: 'c1',
          appVersion: 'v1',
          height: BigInt(h),
          blockTimeNs,
          currentTimeNs: BigInt(atMs) * 1_000_000n,
          blockDurationNs: BigInt(blockMs(h, jitter) - blockMs(h - 1, jitter)) * 1_000_000n,
        },
      };
    };
    const nodes = [
      { name: 'tip', behind: 0, phase: 0 },
      { name: 'two', behind: 2, phase: 1700 },
      { name: 'five', behind: 5, phase: 3300 },
      { name: 'two-b', behind: 2, phase: 4950 },
    ];

    // With irregular blocks a poll within the jitter of a block boundary can read one block off,
    // so that case polls away from the boundaries (250 ms later); steady blocks take any phase.
    it.each([
      [false, 0],
      [true, 250],
    ])('nodes at fixed distances polled at different phases show those distances at every poll (block-time jitter %s)', (jitter, shift) => {
      const last = new Map<string, TargetView & { poll: PollTrack }>();
      const seen = new Map<string, Set<number>>(nodes.map((n) => [n.name, new Set<number>()]));
      // Poll events in time order over two minutes; the signals are recomputed after each one.
      const events = nodes
        .flatMap((n) => Array.from({ length: 24 }, (_, i) => ({ n, at: T0 + 600_000 + shift + n.phase + i * 5000 })))
        .sort((a, b) => a.at - b.at);
      for (const { n, at } of events) {
        last.set(n.name, polled(n.name, n.behind, at, last.get(n.name)?.poll, jitter));
        if (last.size < nodes.length) continue;
        const s = fleetSamples([...last.values()], 10);
        for (const m of nodes) seen.get(m.name)!.add(get(s, 'vega_fleet_block_height_lag_blocks', m.name)!);
      }
      for (const n of nodes) expect([...seen.get(n.name)!], n.name).toEqual([n.behind]);
    });

    it('compared raw, the same polls would not be steady (what the rule is for)', () => {
      const views = nodes.map((n) => ({ ...polled(n.name, n.behind, T0 + 600_000 + n.phase, undefined, false), poll: undefined }));
      const s = fleetSamples(views, 10);
      expect(get(s, 'vega_fleet_block_height_lag_blocks', 'tip')).toBe(2); // polled 4.95 s before two-b, itself 2 behind
    });

    it('a node whose height did not move since its last poll (halted) is not carried forward', () => {
      const at = T0 + 600_000;
      const first = polled('stuck', 0, at - 5000, undefined, false);
      const stuck = { ...first, poll: trackPoll(first.poll, at, first.facts!.height!, first.facts!.blockTimeNs) };
      const later = { ...first, name: 'later', poll: trackPoll(first.poll, at + 4000, first.facts!.height!, first.facts!.blockTimeNs) };
      const s = fleetSamples([stuck, later], 10);
      expect(get(s, 'vega_fleet_block_height_lag_blocks', 'stuck')).toBe(0);
      expect(get(s, 'vega_fleet_block_height_lag_blocks', 'later')).toBe(0);
    });
  });
});
