/**
 * The operator's kit end to end: simulated data nodes (healthy ones and one per fault), the real
 * exporter daemon, and a real Prometheus scraping it with the shipped alert rules. Every dashboard
 * panel's query must return data; every alert's expression must be true exactly for the fault it is
 * meant to catch and false for healthy nodes; Prometheus must report the scrape healthy.
 * Prometheus must be installed (apt-get install prometheus): without it this test fails, not skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ODD } from '../../src/simulator/network.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { DASHBOARDS, concreteQueries } from '../../scripts/dashboards.js';

const freePort = (): Promise<number> =>
  new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const procs: ChildProcess[] = [];
const sims: Simulator[] = [];
let prom = '';

/** Each simulated node and the fault it carries; the healthy ones carry none. */
const START = Date.now();
const NODES: Record<string, SimulatorOptions & { network?: string }> = {
  healthy1: { seed: 7 },
  healthy2: { seed: 7 },
  healthy3: { seed: 7 },
  // Halted 1,000 blocks back, on a clock running 40 times faster: block time goes stale in seconds.
  halted: { seed: 7, startHeight: 18_591_101 - 1000, faults: { halted: true }, now: () => START + (Date.now() - START) * 40 },
  lagging: { seed: 7, faults: { datanodeLagBlocks: 200 } },
  peersLow: { seed: 7, faults: { fixedPeers: 2 } },
  peersZero: { seed: 7, faults: { peersZero: true } },
  nhDisabled: { seed: 7, faults: { networkHistoryDisabled: true } },
  nhNoPeers: { seed: 7, networkHistoryPeers: 0 },
  nhBroken: { seed: 7, faults: { endpoints: { networkhistory: { error: 503 } } } },
  otherChain: { seed: 7, chainId: 'vega-testnet-0099' },
  oldVersion: { seed: 7, appVersion: 'v0.78.5' },
  differentData: { seed: 8 },
  rotating: { seed: 9, rotationEveryBlocks: 1, blockIntervalMs: 250, network: 'rotating' },
  looping: { seed: 10, rotations: 12_000, network: 'looping', faults: { endpoints: { rotations: { pagination: { cursorLoop: true } } } } },
  // Market names and tags with quotes, backslashes, newlines and non-ASCII, in a network of their own.
  oddLabels: { seed: 11, markets: 3, oddLabels: true, network: 'odd' },
  // One market row with an id that is not an id on every answer: skipped and counted, the rest exported.
  badRows: { seed: 12, markets: 4, network: 'badrows', faults: { endpoints: { markets: { badRow: true } } } },
};

async function query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const r = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as { status: string; error?: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

beforeAll(async () => {
  const names: { name: string; url: string; network?: string }[] = [];
  for (const [name, opts] of Object.entries(NODES)) {
    const { network, ...simOpts } = opts;
    const s = await startSimulator({ rotationEveryBlocks: 0, ...simOpts });
    sims.push(s);
    names.push({ name, url: s.url, ...(network ? { network } : {}) });
  }
  names.push({ name: 'down', url: `http://127.0.0.1:${await freePort()}` }); // nothing listens there

  const dir = mkdtempSync(join(tmpdir(), 'dne-e2e-'));
  const exporterPort = await freePort();
  const every = { interval: '1s' };
  writeFileSync(join(dir, 'exporter.yaml'), JSON.stringify({
    targets: names,
    log: { level: 'warn' },
    web: { polling_thread: 'on' }, // the production path for large fleets: polling in a worker thread
    http: { max_pages: 3, requests_per_second: 200, burst: 200 },
    collectors: { statistics: every, network_history: every, consistency: every, key_rotations: every, markets: every },
  }));
  const exporter = spawn(process.execPath, ['--import', 'tsx', 'src/exporter/cli.ts', '--config.file', join(dir, 'exporter.yaml'), '--web.listen-address', `127.0.0.1:${exporterPort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(exporter);

  const promPort = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - ${resolve('prometheus/alerts.yml')}
scrape_configs:
  - job_name: datanode-exporter
    static_configs:
      - targets: ["127.0.0.1:${exporterPort}"]
`);
  const p = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let promErr = '';
  p.stderr!.on('data', (d: Buffer) => (promErr += d.toString()));
  const spawned = await new Promise<Error | undefined>((res) => {
    p.once('error', res);
    p.once('spawn', () => res(undefined));
  });
  if (spawned) throw new Error(`the prometheus binary is required (apt-get install prometheus): ${spawned.message}`);
  procs.push(p);
  prom = `http://127.0.0.1:${promPort}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${prom}/-/ready`).catch(() => undefined))?.ok) break;
    if (i > 300) throw new Error(`prometheus did not become ready:\n${promErr}`);
    await sleep(100);
  }
  // Enough scrapes for the rate and changes windows, the fleet signals and a rotation or two.
  await sleep(15_000);
});

afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM');
  for (const s of sims) await s.close();
});

describe('a real Prometheus scraping the exporter', () => {
  it('reports the scrape healthy', async () => {
    const r = await fetch(`${prom}/api/v1/targets`);
    const body = (await r.json()) as { data: { activeTargets: { health: string; lastError: string; labels: { job: string } }[] } };
    const t = body.data.activeTargets.find((x) => x.labels.job === 'datanode-exporter')!;
    expect(t.lastError).toBe('');
    expect(t.health).toBe('up');
    expect((await query('up{job="datanode-exporter"}'))[0]!.value[1]).toBe('1');
    expect(Number((await query('scrape_samples_scraped{job="datanode-exporter"}'))[0]!.value[1])).toBeGreaterThan(1000);
  });

  it('ingests label values with quotes, backslashes, newlines and non-ASCII exactly', async () => {
    const sim = sims[Object.keys(NODES).indexOf('oddLabels')]!;
    const info = await query('vega_market_info{network="odd"}');
    expect(info).toHaveLength(3);
    for (const m of sim.net.markets) {
      const row = info.find((r) => r.metric.market_id === m.id)!;
      expect(row.metric.name).toBe(m.name);
      expect(row.metric.name!.endsWith(ODD)).toBe(true);
      expect(row.metric.tags).toBe(m.tags.join(','));
    }
  });

  it('every query of every dashboard panel returns data', async () => {
    const empty: string[] = [];
    for (const d of DASHBOARDS) {
      for (const q of concreteQueries(d)) {
        if ((await query(q.expr)).length === 0) empty.push(`${q.panel}: ${q.expr}`);
      }
    }
    expect(empty).toEqual([]);
  });

  // Which series each alert's expression must select: exactly the faulty ones.
  const expected: Record<string, string[]> = {
    VegaDataNodeDown: ['down'],
    VegaCollectorFailing: ['nhBroken/network_history'],
    VegaBlockHeightStalled: ['halted'],
    VegaBlockTimeStale: ['halted'],
    VegaDataNodeLagging: ['lagging'],
    VegaNodeBehindFleet: ['halted'],
    VegaConsensusPeersLow: ['peersLow'],
    VegaConsensusPeersZero: ['peersZero'],
    VegaNetworkHistoryDown: ['down', 'nhBroken', 'nhDisabled'],
    VegaNetworkHistoryNoPeers: ['nhNoPeers'],
    VegaValidatorKeyRotated: ['rotating'],
    VegaChainIdMismatch: ['otherChain'],
    VegaVersionSkew: ['oldVersion'],
    VegaDataDisagreement: ['differentData'],
    VegaListTruncated: ['looping/key_rotations'],
    VegaRowsSkipped: ['badrows'],
  };
  const rules = (parseYaml(readFileSync('prometheus/alerts.yml', 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules);

  it('the scenario covers every shipped alert', () => {
    expect(new Set(rules.map((r) => r.alert))).toEqual(new Set(Object.keys(expected)));
  });

  it.each(Object.keys(expected))('%s: its expression is true exactly under its fault, false for healthy nodes', async (alert) => {
    const rule = rules.find((r) => r.alert === alert)!;
    const result = await query(rule.expr);
    const who = result
      .map((r) => {
        const id = r.metric.target ?? r.metric.network ?? '?';
        return r.metric.collector && alert !== 'VegaDataNodeDown' && (alert === 'VegaCollectorFailing' || alert === 'VegaListTruncated') ? `${id}/${r.metric.collector}` : id;
      })
      .sort();
    expect([...new Set(who)]).toEqual(expected[alert]!.sort());
    for (const healthy of ['healthy1', 'healthy2', 'healthy3']) expect(who).not.toContain(healthy);
  });
});
