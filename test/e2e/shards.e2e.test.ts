/**
 * Two shards of one exporter watching a simulated fleet, scraped by a real Prometheus with the
 * shipped rules (for: minutes as seconds): the cross-node truth is the network's, not a shard's.
 * One node halts: VegaNodeBehindFleet fires for it alone, though its shard holds only part of the
 * fleet, and resolves when it recovers. Each network-scoped series comes from one shard only.
 * Prometheus must be installed (apt-get install prometheus): without it this test fails, not skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type SimFleet } from '@datanode-exporter/simulator/fleet';
import { Scrape } from '../helpers/expo.js';
import { fastRules, freePort, query, startPrometheus, until } from './prom.js';

const NODES = 6;
const procs: ChildProcess[] = [];
let fleet: SimFleet;
let dir = '';
let prom = '';
const shards: { url: string; instance: string }[] = [];

beforeAll(async () => {
  // 20 blocks a second: a halted node is 150 blocks behind in under 8 s.
  fleet = await startFleet({ nodes: NODES, seed: 5, markets: 2, blockIntervalMs: 50 });
  dir = mkdtempSync(join(tmpdir(), 'dne-shards-'));
  const targets = fleet.nodes.map((n) => ({ name: n.name, url: n.sim.url, network: 'main' }));
  const every = { interval: '1s' };
  for (const i of [0, 1]) {
    const port = await freePort();
    writeFileSync(
      join(dir, `shard${i}.yaml`),
      JSON.stringify({
        targets,
        shard: `${i}/2`,
        log: { level: 'warn' },
        http: { requests_per_second: 200, burst: 200 },
        collectors: { statistics: every, markets: every, consistency: every, network_history: { enabled: false } },
      }),
    );
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/exporter/cli.ts', '--config.file', join(dir, `shard${i}.yaml`), '--web.listen-address', `127.0.0.1:${port}`],
      { stdio: 'ignore' },
    );
    procs.push(p);
    shards.push({ url: `http://127.0.0.1:${port}`, instance: `127.0.0.1:${port}` });
  }
  writeFileSync(join(dir, 'alerts.yml'), fastRules(readFileSync('prometheus/alerts.yml', 'utf8')));
  const promStarted = await startPrometheus(
    dir,
    `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - ${join(dir, 'alerts.yml')}
scrape_configs:
  - job_name: datanode-exporter
    static_configs:
      - targets: [${shards.map((s) => `"${s.instance}"`).join(', ')}]
`,
  );
  procs.push(promStarted.proc);
  prom = promStarted.url;
  // Every node answering, seen through both shards together.
  await until(
    'six healthy nodes of network main',
    async () => ((await query(prom, 'network:vega_healthy_targets:sum{network="main"}'))[0]?.value[1] === String(NODES) ? true : undefined),
    60_000,
  );
});

afterAll(async () => {
  const exited = procs.map((p) => (p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => p.once('exit', () => r()))));
  for (const p of procs) p.kill('SIGTERM');
  await fleet?.close();
  await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, 10_000))]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const firing = async (): Promise<string[]> =>
  (await query(prom, 'ALERTS{alertname="VegaNodeBehindFleet", alertstate="firing"}')).map((s) => s.metric.target!).sort();

describe('two shards of a simulated fleet, one Prometheus', () => {
  it('each shard polls part of the fleet; network-scoped series come from one shard only', async () => {
    const metrics = await Promise.all(shards.map(async (s) => new Scrape(await (await fetch(`${s.url}/metrics`)).text())));
    const watched = metrics.map((m) => new Set(m.all('vega_up').map((x) => x.labels.target)));
    expect(watched.every((w) => w.size > 0 && w.size < NODES)).toBe(true);
    expect(watched[0]!.size + watched[1]!.size).toBe(NODES);
    await until('market series of network main', async () => ((await query(prom, 'vega_market_info{network="main"}')).length > 0 ? true : undefined));
    const polled = await Promise.all(shards.map(async (s) => new Scrape(await (await fetch(`${s.url}/metrics`)).text()).all('vega_market_info').length));
    expect(polled.filter((n) => n > 0)).toHaveLength(1);
    expect(await query(prom, 'count by (network) (count by (network, instance) (vega_market_info))')).toEqual([
      { metric: { network: 'main' }, value: [expect.any(Number), '1'] },
    ]);
  });

  it('a node halts: VegaNodeBehindFleet fires for it alone, and resolves when it recovers', async () => {
    expect(await firing()).toEqual([]);
    const node = fleet.nodes[2]!;
    const halted = Date.now();
    node.sim.patchFaults({ halted: true });
    await until('VegaNodeBehindFleet firing', async () => ((await firing()).length > 0 ? true : undefined), 90_000);
    const fired = Date.now();
    expect(await firing()).toEqual([node.name]);
    const lag = await query(prom, `network_target:vega_block_height_lag_blocks:max{target="${node.name}"}`);
    expect(Number(lag[0]!.value[1])).toBeGreaterThan(150);

    node.sim.patchFaults({ halted: false });
    const recovered = Date.now();
    await until('VegaNodeBehindFleet resolved', async () => ((await firing()).length === 0 ? true : undefined), 90_000);
    const resolved = Date.now();
    // The figures, for the record (rules at for: 5m → 5 s; scrapes, evaluations and polls every second).
    console.log(`VegaNodeBehindFleet: fired ${(fired - halted) / 1000} s after the halt, resolved ${(resolved - recovered) / 1000} s after the recovery`);
  });
});
