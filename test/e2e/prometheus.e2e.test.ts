/**
 * The operator's kit end to end: simulated data nodes (healthy ones and one per fault), the real
 * exporter daemon, and a real Prometheus scraping it with the shipped alert rules. Every dashboard
 * panel's query must return data; every alert's expression must be true exactly for the fault it is
 * meant to catch and false for healthy nodes; Prometheus must report the scrape healthy. A real
 * Alertmanager with the shipped routes and inhibition rules receives the alerts: a node down and an
 * exporter down must each notify once, not once per alert they cause.
 * Prometheus and Alertmanager must be installed (apt-get install prometheus prometheus-alertmanager):
 * without them this test fails, not skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ODD } from '@datanode-exporter/simulator/network';
import { startSimulator, type Simulator, type SimulatorOptions } from '@datanode-exporter/simulator/server';
import { DASHBOARDS, concreteQueries } from '../../scripts/dashboards.js';
import { fastRules, freePort, query as queryOf, ready, sleep, started, startPrometheus, until, type Sample } from './prom.js';

const procs: ChildProcess[] = [];
const sims: Simulator[] = [];
let prom = '';
let dir = '';
let am = '';
let exporterInstance = '';
let proxy: Server | undefined;
const exchanges: { path: string; accept: string; contentType: string; status: number }[] = [];
let secondExporter: ChildProcess;
let secondInstance = '';
let hook: Server;

/** A webhook notification as Alertmanager sends it (version 4). */
type Notification = { receiver: string; groupKey: string; groupLabels: Record<string, string>; alerts: { labels: Record<string, string> }[] };
const notifications: Notification[] = [];

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
  // The data node upgraded apart from its core (GET /api/v2/info answers another version).
  dnOtherVersion: { seed: 7, faults: { datanodeVersion: 'v0.78.9' } },
  // Network-history segments stopped 5,000 blocks ago (a segment every 300 blocks otherwise).
  segmentsStopped: { seed: 7, faults: { segmentsStoppedBlocks: 5000 } },
  // Market-data faults on each network's first market, each network of its own (market data is network-scoped).
  marketAuction: { seed: 13, markets: 3, network: 'auction', faults: { longAuction: true } },
  marketStake: { seed: 14, markets: 3, network: 'stake', faults: { stakeBelowTarget: true } },
  marketFrozen: { seed: 15, markets: 3, network: 'frozen', faults: { markPriceFrozen: true } },
  // A validator leaves during the warm-up (see beforeAll): the set shrinks within the alert's window.
  validatorLeaves: { seed: 16, markets: 2, network: 'validators' },
  differentData: { seed: 8 },
  rotating: { seed: 9, rotationEveryBlocks: 1, blockIntervalMs: 250, network: 'rotating' },
  looping: { seed: 10, rotations: 12_000, network: 'looping', faults: { endpoints: { rotations: { pagination: { cursorLoop: true } } } } },
  // Market names and tags with quotes, backslashes, newlines and non-ASCII, in a network of their own.
  oddLabels: { seed: 11, markets: 3, oddLabels: true, network: 'odd' },
  // One market row with an id that is not an id on every answer: skipped and counted, the rest exported.
  badRows: { seed: 12, markets: 4, network: 'badrows', faults: { endpoints: { markets: { badRow: true } } } },
};

type AmRoute = Record<string, unknown> & { routes?: AmRoute[] };
type AmConfig = { route: AmRoute; inhibit_rules: unknown[]; receivers: { name: string }[] };
const TEST_TIMING = { group_wait: '1s', group_interval: '1s', repeat_interval: '1h' };

/** The shipped Alertmanager config with test timing and every receiver sent to the test's webhook; routes and inhibition untouched. */
function testAlertmanagerConfig(shipped: AmConfig, url: string): AmConfig {
  const cfg = structuredClone(shipped);
  const retime = (r: AmRoute, root: boolean): void => {
    for (const [k, v] of Object.entries(TEST_TIMING)) if (root || k in r) r[k] = v;
    for (const child of r.routes ?? []) retime(child, false);
  };
  retime(cfg.route, true);
  cfg.receivers = cfg.receivers.map((r) => ({ name: r.name, webhook_configs: [{ url, send_resolved: false }] }));
  return cfg;
}
const withoutTiming = (r: AmRoute): unknown => {
  const { group_wait: _w, group_interval: _i, repeat_interval: _r, routes, ...rest } = r;
  return { ...rest, routes: routes?.map(withoutTiming) };
};

async function amAlerts(
  ...filters: string[]
): Promise<{ fingerprint: string; labels: Record<string, string>; status: { state: string; inhibitedBy: string[] } }[]> {
  const r = await fetch(`${am}/api/v2/alerts?${filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&')}`);
  return (await r.json()) as never;
}

const query = (expr: string): Promise<Sample[]> => queryOf(prom, expr);

beforeAll(async () => {
  const names: { name: string; url: string; network?: string }[] = [];
  for (const [name, opts] of Object.entries(NODES)) {
    const { network, ...simOpts } = opts;
    const s = await startSimulator({ rotationEveryBlocks: 0, ...simOpts });
    sims.push(s);
    names.push({ name, url: s.url, ...(network ? { network } : {}) });
  }
  const downUrl = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  names.push({ name: 'down', url: downUrl });

  dir = mkdtempSync(join(tmpdir(), 'dne-e2e-'));
  const exporterPort = await freePort();
  const every = { interval: '1s' };
  writeFileSync(
    join(dir, 'exporter.yaml'),
    JSON.stringify({
      targets: names,
      log: { level: 'warn' },
      http: { max_pages: 3, requests_per_second: 200, burst: 200 },
      // datanode_info and history_segments keep their 60 s default: their first poll is at start.
      collectors: {
        statistics: every,
        network_history: every,
        consistency: every,
        key_rotations: every,
        markets: every,
        market_data: every,
        network_data: every,
      },
    }),
  );
  const exporter = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/exporter/cli.ts', '--config.file', join(dir, 'exporter.yaml'), '--web.listen-address', `127.0.0.1:${exporterPort}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  procs.push(exporter);
  // Prometheus scrapes the exporter through a pass-through proxy that notes what was asked and answered.
  proxy = createHttpServer((req, res) => {
    const up = httpRequest({ host: '127.0.0.1', port: exporterPort, path: req.url, method: req.method, headers: req.headers }, (r) => {
      exchanges.push({
        path: req.url ?? '',
        accept: String(req.headers.accept ?? ''),
        contentType: String(r.headers['content-type'] ?? ''),
        status: r.statusCode ?? 0,
      });
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  exporterInstance = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
  // A second exporter watching the down node too (an HA pair), stopped during the warm-up.
  const secondPort = await freePort();
  writeFileSync(
    join(dir, 'exporter2.yaml'),
    JSON.stringify({ targets: [{ name: 'down', url: downUrl }], log: { level: 'warn' }, collectors: { statistics: every, network_history: every } }),
  );
  secondExporter = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/exporter/cli.ts', '--config.file', join(dir, 'exporter2.yaml'), '--web.listen-address', `127.0.0.1:${secondPort}`],
    { stdio: 'ignore' },
  );
  procs.push(secondExporter);
  secondInstance = `127.0.0.1:${secondPort}`;

  // Alertmanager, notifying a webhook in this process.
  hook = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      notifications.push(JSON.parse(body) as Notification);
      res.end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/`;
  writeFileSync(
    join(dir, 'alertmanager.yml'),
    stringifyYaml(testAlertmanagerConfig(parseYaml(readFileSync('prometheus/alertmanager.yml', 'utf8')) as AmConfig, hookUrl)),
  );
  const amPort = await freePort();
  const a = spawn(
    'prometheus-alertmanager',
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'am')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let amErr = '';
  a.stderr.on('data', (d: Buffer) => (amErr += d.toString()));
  await started(a, 'the prometheus-alertmanager binary is required (apt-get install prometheus-alertmanager)');
  procs.push(a);
  am = `http://127.0.0.1:${amPort}`;
  await ready(am, 'alertmanager', () => amErr, a);
  writeFileSync(join(dir, 'alerts.yml'), fastRules(readFileSync('prometheus/alerts.yml', 'utf8')));

  const promStarted = await startPrometheus(
    dir,
    `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - ${join(dir, 'alerts.yml')}
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["127.0.0.1:${amPort}"]
scrape_configs:
  - job_name: datanode-exporter
    static_configs:
      - targets: ["${exporterInstance}", "${secondInstance}"]
`,
  );
  procs.push(promStarted.proc);
  prom = promStarted.url;
  const promReady = Date.now();
  // Stage an exporter down, during the warm-up, once an alert it reports has reached Alertmanager
  // (its series then go stale and that alert resolves; DatanodeExporterDown pages once).
  await until(
    'VegaDataNodeDown from the second exporter in Alertmanager',
    async () => (await amAlerts('alertname="VegaDataNodeDown"', `instance="${secondInstance}"`))[0],
  );
  secondExporter.kill('SIGTERM');
  // An edit of its configuration the exporter refuses: it keeps running the one it has.
  writeFileSync(join(dir, 'exporter.yaml'), '{ targets: [unclosed\n');
  exporter.kill('SIGHUP');
  // Halfway through the warm-up a validator of the 'validators' network leaves.
  await sleep(Math.max(0, 7_000 - (Date.now() - promReady)));
  sims[Object.keys(NODES).indexOf('validatorLeaves')]!.patchFaults({ validatorsLeft: 1 });
  // Enough scrapes for the rate and changes windows, the fleet signals and a rotation or two.
  await sleep(15_000 - (Date.now() - promReady));
});

afterAll(async () => {
  // Wait for the processes to exit before removing the directory they write to.
  const exited = procs.map((p) => (p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => p.once('exit', () => r()))));
  for (const p of procs) p.kill('SIGTERM');
  for (const s of sims) await s.close();
  await new Promise((r) => hook?.close(r));
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await Promise.race([Promise.all(exited), sleep(10_000)]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a real Prometheus scraping the exporter', () => {
  it('reports the scrape healthy', async () => {
    const r = await fetch(`${prom}/api/v1/targets`);
    const body = (await r.json()) as { data: { activeTargets: { health: string; lastError: string; labels: { job: string; instance: string } }[] } };
    const t = body.data.activeTargets.find((x) => x.labels.instance === exporterInstance)!;
    expect(t.labels.job).toBe('datanode-exporter');
    expect(t.lastError).toBe('');
    expect(t.health).toBe('up');
    // The second exporter was stopped during the warm-up.
    expect(body.data.activeTargets.find((x) => x.labels.instance === secondInstance)!.health).toBe('down');
    expect((await query(`up{job="datanode-exporter", instance="${exporterInstance}"}`))[0]!.value[1]).toBe('1');
    expect(Number((await query(`scrape_samples_scraped{instance="${exporterInstance}"}`))[0]!.value[1])).toBeGreaterThan(1000);
  });

  it('asks for OpenMetrics, as Prometheus does, and reads the OpenMetrics the exporter answers', () => {
    const scrapes = exchanges.filter((x) => x.path === '/metrics');
    expect(scrapes.length).toBeGreaterThan(5);
    for (const x of scrapes) {
      expect(x.accept).toMatch(/^application\/openmetrics-text/);
      expect(x.status).toBe(200);
      expect(x.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    }
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
    DatanodeExporterDown: ['secondExporter'], // stopped during the warm-up
    DatanodeExporterConfigReloadFailed: ['exporter'], // its reload refused during the warm-up
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
    // A node whose whole release is old runs an old data node too; dnOtherVersion only its data node.
    VegaDatanodeVersionSkew: ['dnOtherVersion', 'oldVersion'],
    VegaHistorySegmentsStale: ['segmentsStopped'],
    VegaMarketLongAuction: ['auction'],
    VegaMarketStakeBelowTarget: ['stake'],
    VegaMarkPriceStale: ['frozen'],
    VegaValidatorSetShrank: ['validators'],
    VegaDataDisagreement: ['differentData'],
    VegaListTruncated: ['looping/key_rotations'],
    VegaRowsSkipped: ['badrows'],
    // Requests that fail: the node nothing listens for, and those whose network history answers 503 or 500 (disabled).
    VegaApiAvailabilityBudgetBurn: ['down', 'nhBroken', 'nhDisabled'],
    // No node answers slowly within its poll's deadline here (prometheus/slo.test.yml tests it).
    VegaApiLatencyBudgetBurn: [],
  };
  const rules = (parseYaml(readFileSync('prometheus/alerts.yml', 'utf8')) as { groups: { rules: { alert?: string; expr: string }[] }[] }).groups
    .flatMap((g) => g.rules)
    .filter((r): r is { alert: string; expr: string } => r.alert !== undefined);

  it('the scenario covers every shipped alert', () => {
    expect(new Set(rules.map((r) => r.alert))).toEqual(new Set(Object.keys(expected)));
  });

  it.each(Object.keys(expected))('%s: its expression is true exactly under its fault, false for healthy nodes', async (alert) => {
    const rule = rules.find((r) => r.alert === alert)!;
    const result = await query(rule.expr);
    const who = result
      .map((r) => {
        const id =
          r.metric.target ??
          r.metric.network ??
          (r.metric.instance === secondInstance ? 'secondExporter' : r.metric.instance === exporterInstance ? 'exporter' : (r.metric.instance ?? '?'));
        return r.metric.collector && alert !== 'VegaDataNodeDown' && (alert === 'VegaCollectorFailing' || alert === 'VegaListTruncated')
          ? `${id}/${r.metric.collector}`
          : id;
      })
      .sort();
    expect([...new Set(who)]).toEqual(expected[alert]!.sort());
    for (const healthy of ['healthy1', 'healthy2', 'healthy3']) expect(who).not.toContain(healthy);
  });
});

describe('Alertmanager with the shipped routes and inhibition rules', () => {
  it('the test config is the shipped one but for timing and receivers', () => {
    const shipped = parseYaml(readFileSync('prometheus/alertmanager.yml', 'utf8')) as AmConfig;
    const test = testAlertmanagerConfig(shipped, 'http://127.0.0.1:1/');
    expect(withoutTiming(test.route)).toEqual(withoutTiming(shipped.route));
    expect(test.inhibit_rules).toEqual(shipped.inhibit_rules);
    expect(test.receivers.map((r) => r.name)).toEqual(shipped.receivers.map((r) => r.name));
  });

  it('a data node down notifies one group for it, the down alert; its network-history alert is inhibited', async () => {
    // The node's network-history alert fires later than its down alert (for: 10m against 2m, scaled).
    const nhDown = async (): Promise<Awaited<ReturnType<typeof amAlerts>>[number] | undefined> =>
      (await amAlerts('alertname="VegaNetworkHistoryDown"', 'target="down"'))[0];
    await until('VegaNetworkHistoryDown{target="down"} in Alertmanager', nhDown);
    await sleep(2000); // group_wait and group_interval are 1s: a notification would have gone by now

    const forDown = notifications.filter((n) => n.alerts.some((a) => a.labels.target === 'down'));
    expect([...new Set(forDown.map((n) => n.groupKey))]).toHaveLength(1);
    expect(forDown[0]!.groupLabels).toEqual({ alertname: 'VegaDataNodeDown', target: 'down' });
    expect(forDown[0]!.receiver).toBe('pager');
    expect(new Set(forDown.flatMap((n) => n.alerts.map((a) => a.labels.alertname)))).toEqual(new Set(['VegaDataNodeDown']));
    // The same alert for nodes that answer is notified: the inhibition is per target.
    const nhNotified = notifications
      .filter((n) => n.groupLabels.alertname === 'VegaNetworkHistoryDown')
      .map((n) => n.groupLabels.target)
      .sort();
    expect([...new Set(nhNotified)]).toEqual(['nhBroken', 'nhDisabled']);
    expect(notifications.find((n) => n.groupLabels.alertname === 'VegaNetworkHistoryDown')!.receiver).toBe('team-chat');
    // Muted by the node's down alert, not merely late.
    const down = (await amAlerts('alertname="VegaDataNodeDown"', 'target="down"')).map((a) => a.fingerprint);
    expect(down.length).toBeGreaterThan(0);
    const nh = (await nhDown())!;
    expect(nh.status.state).toBe('suppressed');
    expect(nh.status.inhibitedBy.length).toBeGreaterThan(0);
    for (const f of nh.status.inhibitedBy) expect(down).toContain(f);
  });

  it('an exporter down notifies once and mutes what it reported, not the same alert from the other exporter', async () => {
    const exporterDown = await until('DatanodeExporterDown in Alertmanager', async () => (await amAlerts('alertname="DatanodeExporterDown"'))[0]);
    expect(exporterDown.labels).toMatchObject({ job: 'datanode-exporter', instance: secondInstance, severity: 'critical' });
    // VegaDataNodeDown from the stopped exporter resolved as its series went stale, or is muted: it notifies nothing more.
    const byInstance = Object.fromEntries((await amAlerts('alertname="VegaDataNodeDown"', 'target="down"')).map((a) => [a.labels.instance, a.status]));
    expect(byInstance[secondInstance]?.state ?? 'resolved').not.toBe('active');
    expect(byInstance[exporterInstance]!.state).toBe('active');
    const n = await until(
      'the DatanodeExporterDown notification',
      async () => notifications.find((x) => x.groupLabels.alertname === 'DatanodeExporterDown'),
      10_000,
    );
    expect(n.receiver).toBe('pager');
    expect(n.alerts.map((a) => a.labels.instance)).toEqual([secondInstance]);
    expect(new Set(notifications.filter((x) => x.groupLabels.alertname === 'DatanodeExporterDown').map((x) => x.groupKey)).size).toBe(1);
  });
});
