/**
 * The exporter against the simulated data node over real HTTP: every exported value checked
 * against what the simulator served, failure and recovery, secrets, and the cost of a poll.
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatRfc3339Nano } from '../../src/shared/time.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { Scrape, scrape } from '../helpers/expo.js';
import { waitFor, type RunningExporter } from '../helpers/exporter.js';
import { lifecycle } from '../helpers/lifecycle.js';
import { ManualClock } from '../helpers/sim.js';

const FAST = {
  collectors: {
    statistics: { interval: '1s', max_age: '3s' },
    network_history: { interval: '1s', max_age: '3s' },
    key_rotations: { interval: '1s', max_age: '3s' },
  },
};

const life = lifecycle();
const cleanup = { push: life.defer };
const sim = (opts: Parameters<typeof startSimulator>[0]): Promise<Simulator> => life.sim(opts);
const exporter = (url: string, overrides: object = FAST, level = 'info'): Promise<RunningExporter> => life.exporter(url, overrides, level);

function promtool(text: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is required for this test (apt-get install prometheus): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const secs = (rfc: string): number => Date.parse(rfc) / 1000;

describe('exported values match what the simulator served', () => {
  it('statistics, headers, network history and key rotations, exactly', async () => {
    const clock = new ManualClock();
    const s = await sim({ seed: 21, now: clock.now, largeCounters: true, rotations: 500, validators: 6 });
    const e = await exporter(s.url);
    const polledAt = Date.now() / 1000;
    await e.poll();
    const m = await scrape(e.url);
    const res = await fetch(`${s.url}/statistics`);
    const st = ((await res.json()) as any).statistics;
    const t = { target: 'node1' };

    expect(m.value('vega_up', t)).toBe(1);
    // uint64 beyond 2^53: exported as the nearest double of the exact integer.
    expect(BigInt(st.totalTrades)).toBeGreaterThan(2n ** 53n);
    expect(m.value('vega_chain_trades_total', t)).toBe(Number(BigInt(st.totalTrades)));
    for (const [metric, field] of [
      ['vega_block_height', 'blockHeight'],
      ['vega_peers', 'totalPeers'],
      ['vega_backlog_transactions', 'backlogLength'],
      ['vega_block_transactions', 'txPerBlock'],
      ['vega_block_average_transaction_size_bytes', 'averageTxBytes'],
      ['vega_block_orders', 'averageOrdersPerBlock'],
      ['vega_block_events', 'eventCount'],
      ['vega_trades_per_second', 'tradesPerSecond'],
      ['vega_chain_orders_per_second', 'ordersPerSecond'],
      ['vega_events_per_second', 'eventsPerSecond'],
      ['vega_statistics_markets', 'totalMarkets'],
      ['vega_epoch', 'epochSeq'],
      ['vega_chain_orders_submitted_total', 'totalCreateOrder'],
      ['vega_chain_orders_amended_total', 'totalAmendOrder'],
      ['vega_chain_orders_cancelled_total', 'totalCancelOrder'],
      ['vega_chain_orders_total', 'totalOrders'],
    ] as const) {
      expect(m.value(metric, t), metric).toBe(Number(BigInt(st[field])));
    }
    // Times: RFC3339 with nine fractional digits, to the microsecond at least.
    expect(st.vegaTime).toMatch(/\.\d{7,9}Z$/);
    for (const [metric, field] of [
      ['vega_block_timestamp_seconds', 'vegaTime'],
      ['vega_current_timestamp_seconds', 'currentTime'],
      ['vega_genesis_timestamp_seconds', 'genesisTime'],
      ['vega_core_start_timestamp_seconds', 'uptime'],
      ['vega_epoch_start_timestamp_seconds', 'epochStartTime'],
      ['vega_epoch_expiry_timestamp_seconds', 'epochExpiryTime'],
    ] as const) {
      const frac = Number(`0.${/\.(\d+)Z$/.exec(st[field])?.[1] ?? '0'}`);
      expect(m.value(metric, t)! - (Math.floor(secs(st[field])) + frac), metric).toBeCloseTo(0, 6);
    }
    expect(m.value('vega_block_duration_seconds', t)).toBeCloseTo(Number(st.blockDuration) / 1e9, 9);
    expect(m.value('vega_chain_status', { ...t, status: st.status })).toBe(1);
    expect(m.all('vega_chain_status', t).filter((x) => x.value === 1)).toHaveLength(1);
    expect(m.all('vega_build_info', t)[0]!.labels).toMatchObject({
      app_version: st.appVersion,
      app_version_hash: st.appVersionHash,
      chain_version: st.chainVersion,
      chain_id: st.chainId,
    });
    expect(m.all('vega_subscriptions', t)).toHaveLength(8);
    // The data node's own position from the headers.
    expect(m.value('vega_datanode_block_height', t)).toBe(Number(res.headers.get('x-block-height')));
    expect(m.value('vega_datanode_block_timestamp_seconds', t)).toBeCloseTo(Number(BigInt(res.headers.get('x-block-timestamp')!)) / 1e9, 6);
    expect(m.value('vega_datanode_lag_blocks', t)).toBe(0);

    expect(m.value('vega_network_history_up', t)).toBe(1);
    expect(m.value('vega_network_history_connected_peers', t)).toBe(s.net.nhConnected.length);
    expect(m.value('vega_network_history_connections', t)).toBeGreaterThanOrEqual(s.net.nhConnected.length);

    const byNode = new Map<string, { n: number; h: number }>();
    for (const r of s.net.rotations) {
      const cur = byNode.get(r.nodeId) ?? { n: 0, h: 0 };
      byNode.set(r.nodeId, { n: cur.n + 1, h: Math.max(cur.h, r.blockHeight) });
    }
    // Key rotations describe the network (its chain id), whichever node answered.
    const net = { network: st.chainId };
    expect(m.all('vega_key_rotations_total', net)).toHaveLength(byNode.size);
    for (const [node, { n, h }] of byNode) {
      expect(m.value('vega_key_rotations_total', { ...net, node_id: node })).toBe(n);
      expect(m.value('vega_key_rotation_last_block_height', { ...net, node_id: node })).toBe(h);
    }
    for (const c of ['statistics', 'network_history']) {
      expect(m.value('datanode_exporter_collector_success', { ...t, collector: c })).toBe(1);
      // The poll above succeeded: its end is the last success (scheduled polls can only be later).
      expect(m.value('datanode_exporter_collector_last_success_timestamp_seconds', { ...t, collector: c })).toBeGreaterThanOrEqual(polledAt);
      expect(m.value('datanode_exporter_collector_last_success_timestamp_seconds', { ...t, collector: c })).toBeLessThanOrEqual(Date.now() / 1000);
    }
    expect(m.value('datanode_exporter_network_collector_success', { ...net, collector: 'key_rotations' })).toBe(1);
    expect(m.value('datanode_exporter_network_collector_source_info', { ...net, collector: 'key_rotations', target: 'node1' })).toBe(1);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...t, endpoint: 'statistics', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(m.value('datanode_exporter_network_pagination_truncated', { ...net, collector: 'key_rotations' })).toBe(0);
    expect(m.value('vega_target_network_info', { ...t, network: st.chainId })).toBe(1);
    expect(promtool(m.text).status).toBe(0);
  });

  it('lag, unset sentinels, an unknown enum and missing freshness headers', async () => {
    const clock = new ManualClock();
    const s = await sim({ seed: 22, now: clock.now });
    const e = await exporter(s.url);
    s.patchFaults({ datanodeLagBlocks: 151 });
    await e.poll('statistics');
    expect((await scrape(e.url)).value('vega_datanode_lag_blocks', { target: 'node1' })).toBe(151);

    s.patchFaults({ datanodeLagBlocks: 0, replaying: true, stripFreshnessHeaders: true, endpoints: { statistics: { unknownEnums: true } } });
    await e.poll('statistics');
    const m = await scrape(e.url);
    const t = { target: 'node1' };
    expect(m.value('datanode_exporter_collector_success', { ...t, collector: 'statistics' })).toBe(1);
    expect(m.value('vega_genesis_timestamp_seconds', t)).toBeUndefined();
    expect(m.value('vega_epoch_expiry_timestamp_seconds', t)).toBeUndefined();
    expect(m.value('vega_chain_status', { ...t, status: '99' })).toBe(1);
    expect(m.value('vega_chain_status', { ...t, status: 'CHAIN_STATUS_CONNECTED' })).toBe(0);
    expect(m.all('vega_build_info', t)[0]!.labels.chain_id).toBe('');
    for (const name of ['vega_datanode_block_height', 'vega_datanode_block_timestamp_seconds', 'vega_datanode_lag_blocks']) expect(m.has(name)).toBe(false);
    expect(promtool(m.text).status).toBe(0);
  });

  it('network history switched off is "down", not a failed poll; peers known-empty are 0', async () => {
    const s = await sim({ seed: 23, now: new ManualClock().now });
    const e = await exporter(s.url);
    s.patchFaults({ networkHistoryDisabled: true });
    await e.poll('network_history');
    let m = await scrape(e.url);
    expect(m.value('vega_network_history_up', { target: 'node1' })).toBe(0);
    expect(m.value('vega_network_history_connected_peers', { target: 'node1' })).toBe(0);
    expect(m.value('datanode_exporter_collector_success', { target: 'node1', collector: 'network_history' })).toBe(1);
    s.clearFaults();
    await e.poll('network_history');
    m = await scrape(e.url);
    expect(m.value('vega_network_history_up', { target: 'node1' })).toBe(1);
  });
});

describe('failure and recovery', () => {
  it('a malformed response fails only that collector, with one log line, and everything else keeps serving', async () => {
    const s = await sim({ seed: 24, now: new ManualClock().now });
    const e = await exporter(s.url, {
      collectors: { statistics: { interval: '24h' }, network_history: { interval: '24h' }, key_rotations: { interval: '24h' } },
    });
    for (const fault of [{ malformedJson: true }, { wrongTypes: true }, { truncatedBody: true }, { error: 503 }]) {
      s.patchFaults({ endpoints: { statistics: fault } });
      await e.poll('statistics');
      await e.poll('statistics');
      const m = await scrape(e.url);
      const t = { target: 'node1' };
      expect(m.value('datanode_exporter_collector_success', { ...t, collector: 'statistics' }), JSON.stringify(fault)).toBe(0);
      expect(m.value('vega_up', t)).toBe(0);
      expect(m.value('datanode_exporter_collector_success', { ...t, collector: 'network_history' })).toBe(1);
      expect(m.value('datanode_exporter_network_collector_success', { network: 'vega-mainnet-0011', collector: 'key_rotations' })).toBe(1);
      expect(m.value('vega_block_height', t)).toBeGreaterThan(0); // last good values, within max age
      expect(promtool(m.text).status).toBe(0);
      s.clearFaults();
      await e.poll('statistics');
      expect((await scrape(e.url)).value('vega_up', t)).toBe(1);
    }
    const lines = e.logs.parsed();
    expect(lines.filter((l) => l.msg === 'collector failing')).toHaveLength(4);
    expect(lines.filter((l) => l.msg === 'collector recovered')).toHaveLength(4);
    const codes = lines.filter((l) => l.msg === 'collector failing').map((l) => l.code);
    expect(codes).toEqual(['UPSTREAM_BAD_JSON', 'UPSTREAM_BAD_FIELD', 'UPSTREAM_CONNECT', 'UPSTREAM_HTTP']);
    expect(
      (await scrape(e.url)).value('datanode_exporter_upstream_requests_total', { target: 'node1', endpoint: 'statistics', status: '503' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('simulator stopped: scheduled polls report success 0, series gone after the max age, recovery without a restart', async () => {
    const s1 = await startSimulator({ seed: 25 });
    const port = Number(new URL(s1.url).port);
    const e = await exporter(s1.url);
    const t = { target: 'node1' };
    expect((await scrape(e.url)).value('vega_block_height', t)).toBeGreaterThan(0);
    // The last good poll ends after this moment: the series' maximum age counts from it or later.
    const polledAt = Date.now();
    await e.poll();
    await s1.close();
    const net = { network: 'vega-mainnet-0011' };
    const allSuccess = (m: Scrape, v: number): boolean =>
      ['statistics', 'network_history'].every((c) => m.value('datanode_exporter_collector_success', { ...t, collector: c }) === v) &&
      m.value('datanode_exporter_network_collector_success', { ...net, collector: 'key_rotations' }) === v;
    // Scheduled polls (nothing here polls) see the node gone; how soon depends on the machine's load.
    await waitFor(async () => allSuccess(await scrape(e.url), 0));
    const failing = await scrape(e.url);
    expect(failing.value('vega_up', t)).toBe(0);
    expect(failing.value('vega_network_history_up', t)).toBe(0);
    const polled = ['vega_block_height', 'vega_peers', 'vega_key_rotations_total', 'vega_network_history_connected_peers', 'vega_build_info'];
    await waitFor(async () => {
      const m = await scrape(e.url);
      return polled.every((name) => !m.has(name));
    });
    // Gone after the 3 s maximum age, not before it (a lower bound: load only delays expiry).
    expect(Date.now() - polledAt).toBeGreaterThanOrEqual(3_000);
    const stale = await scrape(e.url);
    expect(stale.value('datanode_exporter_collector_success', { ...t, collector: 'statistics' })).toBe(0); // the failure itself stays visible
    expect(promtool(stale.text).status).toBe(0);

    const s2 = await sim({ seed: 25, port });
    await waitFor(async () => (await scrape(e.url)).value('vega_block_height', t) !== undefined);
    await waitFor(async () => allSuccess(await scrape(e.url), 1));
    expect((await scrape(e.url)).value('vega_up', t)).toBe(1);
    const lines = e.logs.parsed();
    // One line when each collector starts failing, one when it recovers: not one per failed poll.
    for (const c of ['statistics', 'network_history', 'key_rotations']) {
      expect(lines.filter((l) => l.msg === 'collector failing' && l.collector === c)).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'collector recovered' && l.collector === c)).toHaveLength(1);
    }
    expect(s2.requestCounts.get('statistics')).toBeGreaterThan(0);
  });
});

describe('secrets', () => {
  it('a canary swarm key never reaches /metrics, the landing page or the logs, at any level', async () => {
    const canary = 'CANARY-SWARM-KEY-d41d8cd98f00b204e9800998ecf8427e';
    const seedCanary = 'CANARY-SWARM-SEED-9e107d9d372bb6826bd81d3542a419d6';
    const s = await sim({ seed: 26, now: new ManualClock().now, swarmKey: canary, swarmKeySeed: seedCanary });
    const e = await exporter(s.url, FAST, 'trace');
    const faults = [
      {},
      { wrongTypes: true },
      { malformedJson: true },
      { truncatedBody: true },
      { error: 500 },
      { unknownEnums: true },
      { oversizedBody: 40_000_000 },
    ];
    let text = '';
    for (const f of faults) {
      s.patchFaults({ endpoints: { networkhistory: f } });
      await e.poll('network_history');
      text += (await scrape(e.url)).text;
      text += await (await fetch(`${e.url}/`)).text();
    }
    expect(e.logs.lines.length).toBeGreaterThan(5);
    for (const secret of [canary, seedCanary, 'CANARY']) {
      expect(text).not.toContain(secret);
      expect(e.logs.text).not.toContain(secret);
    }
  });
});

describe('cost of a poll', () => {
  it('after the first walk of 25,000 rotations (five pages) a key-rotation poll makes at most two requests', async () => {
    const clock = new ManualClock();
    const s = await sim({ seed: 27, now: clock.now, rotations: 25_000, rotationEveryBlocks: 0 });
    const e = await exporter(s.url, {
      collectors: { network_history: { enabled: false }, markets: { enabled: false }, consistency: { enabled: false }, key_rotations: { interval: '24h' } },
    });
    const first = s.requestCounts.get('rotations') ?? 0;
    expect(first).toBe(5); // 25,000 rows at 5,000 a page
    let m = await scrape(e.url);
    const total = m.all('vega_key_rotations_total').reduce((a, x) => a + x.value, 0);
    expect(total).toBe(25_000);

    for (let i = 0; i < 3; i++) {
      const before = s.requestCounts.get('rotations') ?? 0;
      await e.poll('key_rotations');
      expect((s.requestCounts.get('rotations') ?? 0) - before).toBeLessThanOrEqual(2);
    }
    // New rotations upstream are picked up incrementally.
    const v = s.net.validators[0]!;
    const { Rng } = await import('@datanode-exporter/simulator/rng');
    s.net.rotate(0, s.net.height + 1, new Rng(5));
    s.net.rotate(0, s.net.height + 2, new Rng(6));
    const before = s.requestCounts.get('rotations') ?? 0;
    await e.poll('key_rotations');
    expect((s.requestCounts.get('rotations') ?? 0) - before).toBeLessThanOrEqual(2);
    m = await scrape(e.url);
    expect(m.all('vega_key_rotations_total').reduce((a, x) => a + x.value, 0)).toBe(25_002);
    expect(m.value('vega_key_rotation_last_block_height', { network: 'vega-mainnet-0011', node_id: v.nodeId })).toBe(s.net.height + 2);
  });
});

describe('the HTTP face', () => {
  it('/healthz, /readyz, the landing page and gzip', async () => {
    const s = await sim({ seed: 28, now: new ManualClock().now });
    const e = await exporter(s.url);
    expect(await (await fetch(`${e.url}/healthz`)).text()).toBe('ok\n');
    expect((await fetch(`${e.url}/readyz`)).status).toBe(200);
    const landing = await (await fetch(`${e.url}/`)).text();
    expect(landing).toContain('href="/metrics"');
    expect(landing).toMatch(/node1.*statistics.*ok/s);
    const plain = await fetch(`${e.url}/metrics`);
    expect(plain.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const gz = await fetch(`${e.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const m = new Scrape(await gz.text()); // fetch decompresses both gzip members
    expect(m.value('vega_up', { target: 'node1' })).toBe(1);
    expect(m.has('process_cpu_user_seconds_total')).toBe(true);
  });

  it('/readyz waits for the first poll of every enabled collector', async () => {
    const s = await sim({ seed: 29, now: new ManualClock().now, faults: { endpoints: { statistics: { latencyMs: 1500 } } } });
    const { Exporter } = await import('../../src/exporter/exporter.js');
    const { configSchema } = await import('../../src/exporter/config/schema.js');
    const { createLogger } = await import('../../src/exporter/logger.js');
    const ex = new Exporter(configSchema().parse({ targets: [{ name: 'n', url: s.url }], log: { level: 'silent' }, ...FAST }), createLogger('silent'));
    const url = await ex.start('127.0.0.1:0');
    cleanup.push(() => ex.stop());
    const r = await fetch(`${url}/readyz`);
    expect(r.status).toBe(503);
    expect(await r.text()).toContain('n/statistics');
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 5_000);
  });

  it('SIGTERM stops the daemon with a poll in flight, without waiting for it', async () => {
    const s = await sim({ seed: 30, faults: { endpoints: { statistics: { slowBody: { chunkBytes: 1, intervalMs: 500 } } } } });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/exporter/cli.ts', '--datanode.url', s.url, '--web.listen-address', '127.0.0.1:0', '--log.level', 'info'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // Start-up from source is slow on a loaded machine with a cold tsx cache; only the stop is timed.
    await waitFor(() => out.includes('serving metrics'), 45_000);
    // A statistics poll is in flight: its body trickles at 2 bytes a second, so it would take
    // minutes to end; the daemon exiting at all (within the test's timeout) shows it did not wait.
    await waitFor(() => (s.requestCounts.get('statistics') ?? 0) > 0);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(out).toMatch(/ level=info msg=stopping app=datanode-exporter signal=SIGTERM\n/);
  }, 60_000);
});

// Keep the helper referenced for readers: RFC3339 formatting is shared with the simulator.
void formatRfc3339Nano;

describe("service levels of the data node's API", () => {
  it('each request counted by endpoint class and outcome, with its duration; a 503 is an error, a slow answer lands above 1 s', async () => {
    const s = await sim({ seed: 31, now: new ManualClock().now, faults: { endpoints: { statistics: { latencyMs: 1100 }, networkhistory: { error: 503 } } } });
    // Statistics polled every 5 s: an answer 1.1 s late is well within its deadline.
    const e = await exporter(s.url, { collectors: { ...FAST.collectors, statistics: { interval: '5s', max_age: '15s' } } }, 'silent');
    const H = 'datanode_exporter_upstream_request_duration_seconds';
    const at = (m: Scrape, series: string, labels: Record<string, string>): number => m.value(`${H}${series}`, { target: 'node1', ...labels }) ?? 0;
    const requests = (m: Scrape, endpoint: string, status: string): number =>
      m.value('datanode_exporter_upstream_requests_total', { target: 'node1', endpoint, status }) ?? 0;
    await waitFor(async () => {
      const m = await scrape(e.url);
      return requests(m, 'statistics', '200') > 0 && requests(m, 'networkhistory', '503') > 0 && requests(m, 'rotations', '200') > 0;
    }, 10_000);
    const m = await scrape(e.url);
    const n = (endpoint: string, status: string): number => requests(m, endpoint, status);
    // The histogram is observed as each answer ends, the counter applied when the poll ends: never behind it.
    expect(at(m, '_count', { class: 'single', outcome: 'error' })).toBeGreaterThanOrEqual(n('networkhistory', '503'));
    expect(at(m, '_count', { class: 'list', outcome: 'success' })).toBeGreaterThanOrEqual(n('rotations', '200'));
    // Every statistics answer is 1.1 s late: each lies above the 1 s bucket.
    const single = { class: 'single', outcome: 'success' };
    expect(at(m, '_count', single) - at(m, '_bucket', { ...single, le: '1' })).toBeGreaterThanOrEqual(n('statistics', '200'));
    expect(at(m, '_bucket', { ...single, le: '+Inf' })).toBe(at(m, '_count', single));
    expect(at(m, '_sum', single)).toBeGreaterThanOrEqual(1.1 * n('statistics', '200'));
  });
});
