/**
 * Fleet mode against real simulated nodes: a five-node fleet with one fault each, fail-over of
 * network-scoped collectors, probes, discovery, reloads and shards.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/exporter/config/schema.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { Scrape, scrape } from '../helpers/expo.js';
import { waitFor } from '../helpers/exporter.js';
import { lifecycle } from '../helpers/lifecycle.js';
import { ManualClock } from '../helpers/sim.js';

const life = lifecycle();
const cleanup = { push: life.defer };
const sim = (opts: Parameters<typeof startSimulator>[0]): Promise<Simulator> => life.sim(opts);
const exporter = life.exporter;
const FAST = {
  statistics: { interval: '1s' },
  network_history: { enabled: false },
  consistency: { interval: '1s' },
  markets: { interval: '1s' },
  key_rotations: { interval: '1s' },
};
const DAILY = {
  statistics: { interval: '24h' },
  network_history: { enabled: false },
  consistency: { interval: '24h' },
  markets: { interval: '24h' },
  key_rotations: { interval: '24h' },
};
const NET = 'vega-mainnet-0011';
/** Until every first poll is older than probe.max_age (1 ms below): an event, not a sleep. */
const pastMaxAge = (e: { exporter: { status: () => { lastSuccessMs?: number | undefined }[] } }): Promise<void> =>
  waitFor(() => e.exporter.status().every((r) => r.lastSuccessMs !== undefined && Date.now() - r.lastSuccessMs > 1));
const RELOAD_OK = 'datanode_exporter_config_last_reload_successful';

describe('a five-node fleet', () => {
  it('singles out the halted, lagging, header-stripped and different-data nodes; network series survive the first node failing', async () => {
    // One clock for the five nodes, moved by the test: block heights and block times follow it, not
    // the machine's load.
    const clock = new ManualClock();
    const base = { blockIntervalMs: 200, rotationEveryBlocks: 0, markets: 6, now: clock.now };
    const nodes = {
      halted: await sim({ ...base, seed: 7, faults: { halted: true } }),
      lagging: await sim({ ...base, seed: 7, faults: { datanodeLagBlocks: 200 } }),
      stripped: await sim({ ...base, seed: 7, faults: { stripFreshnessHeaders: true } }),
      different: await sim({ ...base, seed: 8 }),
      healthy: await sim({ ...base, seed: 7 }),
    };
    const targets = Object.entries(nodes).map(([name, s]) => ({ name, url: s.url }));
    const e = await exporter('', { targets, collectors: FAST });
    const ok = (m: Scrape, name: string, t: string): number | undefined => m.value(name, { target: t });
    // The others run 20 blocks ahead of the halted node, whose last block is then 4 s old. Each
    // node's statistics are then polled twice: the second poll started after the clock moved.
    const stats = (): { scope: string; runs: number }[] => e.exporter.status().filter((r) => r.collector === 'statistics');
    const runsBefore = new Map(stats().map((r) => [r.scope, r.runs]));
    clock.advance(4_000);
    await waitFor(() => stats().every((r) => r.runs >= runsBefore.get(r.scope)! + 2), 10_000);
    // What each node contributes to the cross-node recording rules is what it read itself.
    const behind = (x: Scrape): number => {
      const others = ['lagging', 'stripped', 'different', 'healthy'].map((t) => ok(x, 'vega_block_height', t) ?? 0);
      return Math.min(...others) - (ok(x, 'vega_block_height', 'halted') ?? Infinity);
    };
    await waitFor(async () => behind(await scrape(e.url)) > 10, 10_000);
    await waitFor(async () => {
      const x = await scrape(e.url);
      return ['different', 'stripped', 'healthy'].every((t) => ok(x, 'vega_data_digest', t) !== undefined);
    }, 10_000);
    await waitFor(async () => ((await scrape(e.url)).value('vega_block_time_staleness_seconds', { target: 'halted' }) ?? 0) > 1.5, 10_000);
    const m = await scrape(e.url);

    // Halted: its height stays behind the others' (the rules make that its lag), block time stale.
    expect(behind(m)).toBeGreaterThan(10);
    expect(ok(m, 'vega_block_time_staleness_seconds', 'halted')).toBeGreaterThan(1.5);
    // A running chain's last block is at most one block interval old on its own clock.
    for (const t of ['lagging', 'stripped', 'different', 'healthy']) expect(ok(m, 'vega_block_time_staleness_seconds', t), t).toBeLessThanOrEqual(0.2);
    // Lagging: the data node trails its core by 200 blocks.
    expect(ok(m, 'vega_datanode_lag_blocks', 'lagging')).toBe(200);
    for (const t of ['halted', 'different', 'healthy']) expect(ok(m, 'vega_datanode_lag_blocks', t), t).toBe(0);
    // Stripped freshness headers: the data node's own position is unknown, not 0.
    expect(ok(m, 'vega_datanode_block_height', 'stripped')).toBeUndefined();
    expect(ok(m, 'vega_datanode_lag_blocks', 'stripped')).toBeUndefined();
    expect(ok(m, 'vega_datanode_block_height', 'healthy')).toBeGreaterThan(0);
    // Different data (another seed): another digest than the nodes with the same data.
    expect(ok(m, 'vega_data_digest', 'stripped')).toBe(ok(m, 'vega_data_digest', 'healthy'));
    expect(ok(m, 'vega_data_digest', 'different')).not.toBe(ok(m, 'vega_data_digest', 'healthy'));
    // All five are in one network, compared in the group of targets without a configured network.
    for (const t of Object.keys(nodes)) expect(m.value('vega_target_network_info', { target: t, network: NET, group: '*' }), t).toBe(1);
    // The exporter makes no cross-node comparison of its own.
    expect(m.all('vega_fleet_block_height_lag_blocks')).toEqual([]);
    expect(m.all('vega_network_healthy_targets')).toEqual([]);

    // Network-scoped series keep flowing when the node answering them fails.
    const source = m.all('datanode_exporter_network_collector_source_info', { network: NET, collector: 'markets' })[0]!.labels.target!;
    expect(['halted', 'lagging', 'stripped', 'different', 'healthy']).toContain(source);
    nodes[source as keyof typeof nodes].patchFaults({ endpoints: { '*': { error: 503 } } });
    await waitFor(async () => {
      const x = await scrape(e.url);
      const now = x.all('datanode_exporter_network_collector_source_info', { network: NET, collector: 'markets' })[0]?.labels.target;
      return (
        now !== undefined &&
        now !== source &&
        x.value('datanode_exporter_network_collector_success', { network: NET, collector: 'markets' }) === 1 &&
        x.value('vega_up', { target: source }) === 0
      );
    }, 10_000);
    const after = await scrape(e.url);
    expect(after.value('vega_up', { target: source })).toBe(0);
    expect(after.all('vega_market_info', { network: NET }).length).toBeGreaterThan(0);
    expect(after.value('datanode_exporter_network_collector_success', { network: NET, collector: 'key_rotations' })).toBe(1);
  });
});

describe('probes', () => {
  it('an unknown target is a 400 and nothing is sent upstream', async () => {
    const s = await sim({ seed: 70, now: new ManualClock().now });
    // Daily schedules: after the first polls, any request the node sees would be the probes'.
    const e = await exporter(s.url, { collectors: DAILY });
    // Every collector's first poll over, the network-scoped ones' included: nothing else is due today.
    await waitFor(() => e.exporter.pending(true).length === 0, 10_000);
    const before = [...s.requestCounts.values()].reduce((a, b) => a + b, 0);
    for (const target of ['nope', s.url, 'http://169.254.169.254/latest/meta-data', '']) {
      const r = await fetch(`${e.url}/probe?target=${encodeURIComponent(target)}`);
      expect(r.status, target).toBe(400);
    }
    expect([...s.requestCounts.values()].reduce((a, b) => a + b, 0)).toBe(before);
    expect((await fetch(`${e.url}/probe?target=node1&collectors=bogus`)).status).toBe(400);
  });

  it('a configured target: fresh series of that target only, plus probe success and duration', async () => {
    const c = new ManualClock();
    const a = await sim({ seed: 71, now: c.now });
    const b = await sim({ seed: 71, now: c.now });
    // Daily schedules: a scheduled poll (at its offset within the interval) must not refresh the
    // cache just before the probe asks.
    const e = await exporter('', {
      targets: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
      ],
      collectors: { statistics: { interval: '24h' }, network_history: { interval: '24h' } },
      probe: { max_age: '1ms' },
    });
    c.advance(5_000);
    await pastMaxAge(e);
    const before = a.requestCounts.get('statistics') ?? 0;
    const r = await fetch(`${e.url}/probe?target=a&collectors=statistics`, { headers: { 'X-Prometheus-Scrape-Timeout-Seconds': '5' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('version=0.0.4');
    const m = new Scrape(await r.text());
    expect(a.requestCounts.get('statistics')).toBe(before + 1); // polled now: the cache was too old
    expect(m.value('vega_block_height', { target: 'a' })).toBe(a.net.height);
    expect(m.all('vega_block_height', { target: 'b' })).toHaveLength(0);
    expect(m.has('vega_network_history_connected_peers')).toBe(false); // not asked for
    expect(m.value('datanode_exporter_probe_success', { target: 'a' })).toBe(1);
    expect(m.value('datanode_exporter_probe_duration_seconds', { target: 'a' })).toBeGreaterThan(0);
  });

  it('stays within the scrape deadline when the node is slow, and says it failed', async () => {
    const s = await sim({ seed: 72 });
    const e = await exporter(s.url, {
      collectors: { statistics: { interval: '24h', timeout: '30s' }, network_history: { enabled: false } },
      probe: { max_age: '1ms' },
    });
    await pastMaxAge(e);
    // The node now answers in 5 s: inside the poll's 30 s timeout, beyond the probe's budget (the
    // 1.5 s scrape timeout less half a second). A probe that waited for the poll would report
    // success; one that kept its deadline reports failure, however slow the machine.
    s.patchFaults({ endpoints: { statistics: { latencyMs: 5_000 } } });
    const r = await fetch(`${e.url}/probe?target=node1&collectors=statistics`, { headers: { 'X-Prometheus-Scrape-Timeout-Seconds': '1.5' } });
    const m = new Scrape(await r.text());
    expect(m.value('datanode_exporter_probe_success', { target: 'node1' })).toBe(0);
  });

  it('an allowed URL can be probed; it stays out of /metrics', async () => {
    const s = await sim({ seed: 73, now: new ManualClock().now });
    const e = await exporter(s.url, { collectors: { statistics: { interval: '1m' } }, probe: { allowed_urls: ['http://127.0.0.1:'] } });
    const other = await sim({ seed: 74, now: new ManualClock().now });
    const r = await fetch(`${e.url}/probe?target=${encodeURIComponent(other.url)}&collectors=statistics`);
    expect(r.status).toBe(200);
    const m = new Scrape(await r.text());
    expect(m.value('datanode_exporter_probe_success')).toBe(1);
    expect(m.all('vega_block_height')[0]!.value).toBe(other.net.height);
    expect((await scrape(e.url)).all('vega_block_height')).toHaveLength(1);
  });
});

describe('targets come and go without a restart', () => {
  it('a discovery-file change adds and removes targets; unchanged targets keep their series', async () => {
    const [a, b, c] = [await sim({ seed: 75 }), await sim({ seed: 75 }), await sim({ seed: 75 })];
    const dir = mkdtempSync(join(tmpdir(), 'dne-sd-'));
    const file = join(dir, 'targets.yaml');
    writeFileSync(file, `- {name: b, url: "${b.url}"}\n`);
    const e = await exporter('', { targets: [{ name: 'a', url: a.url }], discovery: { files: [file], refresh_interval: '1s' }, collectors: FAST });
    let m = await scrape(e.url);
    expect(m.value('vega_up', { target: 'a' })).toBe(1);
    expect(m.value('vega_up', { target: 'b' })).toBe(1);
    const aRequests = a.requestCounts.get('statistics')!;

    writeFileSync(file, JSON.stringify([{ name: 'c', url: c.url }]));
    await waitFor(async () => {
      const x = await scrape(e.url);
      return x.value('vega_up', { target: 'c' }) === 1 && !x.has('vega_up') === false && x.all('vega_up', { target: 'b' }).length === 0;
    }, 8_000);
    m = await scrape(e.url);
    expect(m.all('vega_block_height', { target: 'b' })).toHaveLength(0);
    expect(m.all('datanode_exporter_collector_success', { target: 'b' })).toHaveLength(0);
    expect(m.value('vega_up', { target: 'a' })).toBe(1);
    // a was never restarted: it kept polling on its schedule (every second; the change above can
    // land inside one interval on a busy machine), and was never removed or re-added.
    await waitFor(() => a.requestCounts.get('statistics')! > aRequests, 5_000);
    expect(a.requestCounts.get('statistics')!).toBeGreaterThan(aRequests);
    const logs = e.logs.parsed();
    expect(logs.filter((l) => l.target === 'a' && l.msg === 'target added')).toHaveLength(1);
    expect(logs.filter((l) => l.target === 'a' && (l.msg === 'target removed' || l.msg === 'target changed'))).toHaveLength(0);

    // A broken discovery file keeps the previous targets.
    writeFileSync(file, '- {name: [oops');
    await waitFor(() => e.logs.parsed().some((l) => l.msg === 'discovery file rejected; keeping its previous targets'));
    expect((await scrape(e.url)).value('vega_up', { target: 'c' })).toBe(1);
  });

  it('POST /-/reload applies a new config; a bad one answers 400 and changes nothing', async () => {
    const [a, b] = [await sim({ seed: 76 }), await sim({ seed: 76 })];
    let next: unknown = {
      targets: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
      ],
      collectors: FAST,
      web: { enable_lifecycle: true },
    };
    const e = await exporter('', { targets: [{ name: 'a', url: a.url }], collectors: FAST, web: { enable_lifecycle: true } }, 'info', () =>
      configSchema().parse(next),
    );
    const r = await fetch(`${e.url}/-/reload`, { method: 'POST' });
    expect(r.status).toBe(200);
    await waitFor(async () => (await scrape(e.url)).value('vega_up', { target: 'b' }) === 1, 5_000);
    expect(e.logs.parsed().filter((l) => l.target === 'a' && l.msg === 'target added')).toHaveLength(1);

    next = { targets: [{ name: 'a b', url: 'ftp://x' }] };
    const bad = await fetch(`${e.url}/-/reload`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/reload failed/);
    expect((await scrape(e.url)).value('vega_up', { target: 'b' })).toBe(1);
    expect((await scrape(e.url)).value(RELOAD_OK)).toBe(0);

    next = { targets: [{ name: 'a', url: a.url }], collectors: FAST, web: { enable_lifecycle: true } };
    expect((await fetch(`${e.url}/-/reload`, { method: 'POST' })).status).toBe(200);
    expect((await scrape(e.url)).value(RELOAD_OK)).toBe(1);
  });
});

describe('SIGHUP', () => {
  it('re-reads the config file of the running daemon', async () => {
    const [a, b] = [await sim({ seed: 77 }), await sim({ seed: 77 })];
    const dir = mkdtempSync(join(tmpdir(), 'dne-hup-'));
    const file = join(dir, 'exporter.yaml');
    writeFileSync(file, `targets: [{name: a, url: "${a.url}"}]\ncollectors: {statistics: {interval: 1s}}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/exporter/cli.ts', '--config.file', file, '--web.listen-address', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('serving metrics'), 10_000);
    const url = / url=(\S+)\/metrics /.exec(out)![1]!;
    await waitFor(async () => (await scrape(url)).value('vega_up', { target: 'a' }) === 1, 5_000);
    writeFileSync(file, `targets: [{name: a, url: "${a.url}"}, {name: b, url: "${b.url}"}]\ncollectors: {statistics: {interval: 1s}}\n`);
    child.kill('SIGHUP');
    await waitFor(async () => (await scrape(url)).value('vega_up', { target: 'b' }) === 1, 5_000);
    // A broken file is refused and the running configuration stays.
    writeFileSync(file, 'targets: [{name: "bad name", url: 1}]\n');
    child.kill('SIGHUP');
    await waitFor(() => out.includes('reload failed; keeping the running configuration'), 5_000);
    expect((await scrape(url)).value('vega_up', { target: 'b' })).toBe(1);
    await waitFor(async () => (await scrape(url)).value(RELOAD_OK) === 0, 5_000);
    // A good file again: back to 1.
    writeFileSync(file, `targets: [{name: a, url: "${a.url}"}]\ncollectors: {statistics: {interval: 1s}}\n`);
    child.kill('SIGHUP');
    await waitFor(async () => (await scrape(url)).value(RELOAD_OK) === 1, 5_000);
    child.kill('SIGTERM');
  });
});

describe('shards', () => {
  it('two shards of the same fleet cover every target exactly once', async () => {
    const targets = Array.from({ length: 24 }, (_, i) => ({ name: `dn-${i}`, url: 'http://127.0.0.1:9' }));
    const off = {
      statistics: { interval: '1m' },
      network_history: { enabled: false },
      consistency: { enabled: false },
      markets: { enabled: false },
      key_rotations: { enabled: false },
    };
    // Nothing listens on port 9: no retries, so each first poll fails at once.
    const s0 = await exporter('', { targets, shard: '0/2', collectors: off, http: { retries: 0 } }, 'silent');
    const s1 = await exporter('', { targets, shard: '1/2', collectors: off, http: { retries: 0 } }, 'silent');
    const k0 = [...s0.exporter.targets.keys()];
    const k1 = [...s1.exporter.targets.keys()];
    expect(k0.length).toBeGreaterThan(4);
    expect(k1.length).toBeGreaterThan(4);
    expect(k0.filter((k) => k1.includes(k))).toEqual([]);
    expect(new Set([...k0, ...k1])).toEqual(new Set(targets.map((t) => t.name)));
    // What each shard serves says the same.
    const m0 = await scrape(s0.url);
    expect(new Set(m0.all('vega_up').map((x) => x.labels.target))).toEqual(new Set(k0));
  });

  it("each network's network-scoped series come from exactly one shard, which has a node of it", async () => {
    const base = { blockIntervalMs: 200, rotationEveryBlocks: 0, markets: 3 };
    const names = ['dn-a1', 'dn-a2', 'dn-a3', 'dn-b1', 'dn-b2', 'dn-b3'];
    const targets = [];
    for (const name of names) targets.push({ name, url: (await sim({ ...base, seed: 7 })).url, network: name.startsWith('dn-a') ? 'alpha' : 'beta' });
    const collectors = { ...FAST, consistency: { enabled: false } };
    const shards = [await exporter('', { targets, shard: '0/2', collectors }, 'silent'), await exporter('', { targets, shard: '1/2', collectors }, 'silent')];
    const markets = async (network: string): Promise<number[]> =>
      Promise.all(shards.map(async (s) => (await scrape(s.url)).all('vega_market_info', { network }).length));
    for (const network of ['alpha', 'beta']) {
      await waitFor(async () => (await markets(network)).some((n) => n > 0), 10_000);
      const counts = await markets(network);
      expect(
        counts.filter((n) => n > 0),
        network,
      ).toHaveLength(1);
      // The owner polls only through its own nodes of that network.
      const owner = shards[counts.findIndex((n) => n > 0)]!;
      const source = (await scrape(owner.url)).all('datanode_exporter_network_collector_source_info', { network, collector: 'markets' })[0]!.labels.target!;
      expect([...owner.exporter.targets.keys()]).toContain(source);
    }
  });
});
