/**
 * Bench section "fleet": one exporter polling 10, 100 and 1,000 data nodes of the fleet simulator
 * (a separate process) with the default collectors, and the probe path (each of 1,000 targets
 * scraped through /probe once per 15 s, spread, as Prometheus does) side by side.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { LAUNCH_ENV, NODE_FLAGS } from '../src/exporter/process/launch.js';
import { quantile, sampleLatency } from './lib/load.js';
import { freePort, start, waitFor, type Proc } from './lib/procs.js';

type Log = (s: string) => void;
const fmt = (n: number, d = 0): string => (Number.isFinite(n) ? n.toFixed(d) : '-');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const INTERVAL_S = 15;
/** Scrapes of /metrics in the idle and busy windows: 600 in 30 s, so the p99 is not two samples' luck. */
const SCRAPE_EVERY_MS = 50;

/** CPU seconds (user + system) and resident MiB of a process, from /proc. */
function usage(pid: number): { cpuS: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuS: (Number(f[11]) + Number(f[12])) / 100, rssMiB: Number(rss) / 1024 };
}

interface FleetSim {
  proc: Proc;
  control: string;
  targets: { name: string; url: string }[];
}

async function startFleetSim(nodes: number): Promise<FleetSim> {
  const file = join(tmpdir(), `dne-bench-fleet-${process.pid}.yaml`);
  const proc = start(process.execPath, ['--import', 'tsx', 'src/simulator/cli.ts', '--nodes', String(nodes), '--port', '0', '--nodes-file', file]);
  let control = '';
  await waitFor(async () => {
    control = /curl (http:\/\/[\d.:]+)\/__sim\/fleet/.exec(proc.output())?.[1] ?? '';
    return control !== '';
  }, 60_000, 'fleet simulator', proc);
  const targets = readFileSync(file, 'utf8').split('\n').flatMap((l) => {
    const m = /name: (\S+), url: "([^"]+)"/.exec(l);
    return m ? [{ name: m[1]!, url: m[2]! }] : [];
  });
  return { proc, control, targets };
}

interface Exp {
  proc: Proc;
  url: string;
  readyMs: number;
  /** scheduler lines: missed executions and runs skipped because the last one was still running. */
  late: { missed: number; overlap: number };
}

/** An exporter process as shipped, polling `targets`; `intervals` overrides the collectors' defaults. */
async function startExporter(targets: { name: string; url: string }[], collectors: string): Promise<Exp> {
  const port = await freePort();
  const dir = join(tmpdir(), `dne-bench-fleet-${port}`);
  mkdirSync(dir, { recursive: true });
  const cfg = join(dir, 'config.yaml');
  writeFileSync(cfg, `log: {level: info}
web: {listen_address: "127.0.0.1:${port}"}
collectors: ${collectors}
targets:
${targets.map((t) => `  - {name: ${t.name}, url: "${t.url}"}`).join('\n')}
`);
  const t0 = performance.now();
  const proc = start(process.execPath, [...NODE_FLAGS, 'dist/exporter/cli.js', '--config.file', cfg], { ...LAUNCH_ENV });
  const late = { missed: 0, overlap: 0 };
  let carry = '';
  proc.child.stdout!.on('data', (d: Buffer) => {
    const lines = (carry + d.toString()).split('\n');
    carry = lines.pop()!;
    for (const l of lines) {
      if (l.includes('missed execution')) late.missed += 1;
      if (l.includes('blocked by overlap')) late.overlap += 1;
    }
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 300_000, 'exporter ready', proc);
  return { proc, url, readyMs: performance.now() - t0, late };
}

const DEFAULTS = '{}';
/** Same series, but nothing polls again for a day: the "idle" baseline of scrape latency. */
const QUIET = '{statistics: {interval: 24h}, network_history: {interval: 24h}, consistency: {interval: 24h}, markets: {interval: 24h}, key_rotations: {interval: 24h}}';
/** The probe path: node-scoped collectors polled by probes only; network-scoped ones as usual. */
const PROBED = '{statistics: {interval: 24h}, network_history: {interval: 24h}, consistency: {interval: 24h}}';

async function metricsText(url: string): Promise<{ text: string; bytes: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return { text, bytes: Buffer.byteLength(text) };
}
const upstreamTotal = (text: string): number => [...text.matchAll(/^vega_upstream_requests_total\{[^}]*\} (\d+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
const heapMiB = (text: string): number => Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]) / 2 ** 20;
const seriesOf = (text: string): number => text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;

async function fleetRates(sim: FleetSim, reset: boolean): Promise<{ maxPerSecond: number; requests: number }> {
  if (reset) {
    await fetch(`${sim.control}/__sim/fleet/rates`, { method: 'DELETE' });
    return { maxPerSecond: 0, requests: 0 };
  }
  return (await (await fetch(`${sim.control}/__sim/fleet`)).json()) as { maxPerSecond: number; requests: number };
}

interface Window {
  cpuS: number;
  upstream: number;
  rates: { maxPerSecond: number; requests: number };
  rssMiB: number;
}

/** CPU, upstream requests and the fleet's per-node rates over `seconds`, while `during` runs. */
async function measure(sim: FleetSim, ex: Exp, seconds: number, during: () => Promise<unknown>): Promise<Window & { result: unknown }> {
  const up0 = upstreamTotal((await metricsText(ex.url)).text);
  await fleetRates(sim, true);
  const u0 = usage(ex.proc.child.pid!);
  const [result] = await Promise.all([during(), sleep(seconds * 1000)]);
  const u1 = usage(ex.proc.child.pid!);
  const rates = await fleetRates(sim, false);
  const up1 = upstreamTotal((await metricsText(ex.url)).text);
  return { cpuS: u1.cpuS - u0.cpuS, upstream: up1 - up0, rates, rssMiB: u1.rssMiB, result };
}

async function pollingRow(sim: FleetSim, n: number, seconds: number, log: Log): Promise<Record<string, unknown>> {
  const targets = sim.targets.slice(0, n);
  const quiet = await startExporter(targets, QUIET);
  await sleep(3000);
  const idle = await sampleLatency(`${quiet.url}/metrics`, seconds, SCRAPE_EVERY_MS);
  await quiet.proc.stop();
  const ex = await startExporter(targets, DEFAULTS);
  // Past the start-up wave (every runner polls once at start), into the spread schedule.
  await sleep((INTERVAL_S + 5) * 1000);
  const lateBefore = { ...ex.late };
  const w = await measure(sim, ex, seconds, () => sampleLatency(`${ex.url}/metrics`, seconds, SCRAPE_EVERY_MS));
  const busy = w.result as Awaited<ReturnType<typeof sampleLatency>>;
  const m = await metricsText(ex.url);
  const row = {
    targets: n, readyMs: ex.readyMs, rssMiB: w.rssMiB, heapMiB: heapMiB(m.text), rssPerTargetMiB: w.rssMiB / n,
    cpuMsPerInterval: (w.cpuS * 1000) / (seconds / INTERVAL_S), cpuPct: (w.cpuS / seconds) * 100,
    upstreamPerS: w.upstream / seconds, simRequestsPerS: w.rates.requests / seconds, maxPerNodePerS: w.rates.maxPerSecond,
    idle, busy, p99Ratio: busy.p99ms / idle.p99ms, metricsBytes: m.bytes, series: seriesOf(m.text), late: { ...ex.late }, lateInWindow: { missed: ex.late.missed - lateBefore.missed, overlap: ex.late.overlap - lateBefore.overlap },
  };
  await ex.proc.stop();
  log(`| ${n} | ${fmt(row.readyMs / 1000, 1)} | ${fmt(row.rssMiB, 1)} | ${fmt(row.heapMiB, 1)} | ${fmt(row.rssPerTargetMiB * 1024, 0)} | ${fmt(row.cpuMsPerInterval)} (${fmt(row.cpuPct, 1)}%) | ${fmt(row.upstreamPerS, 1)} | ${row.maxPerNodePerS} | ${fmt(idle.p50ms, 1)}/${fmt(idle.p99ms, 1)} | ${fmt(busy.p50ms, 1)}/${fmt(busy.p99ms, 1)} | ${fmt(row.p99Ratio, 2)} | ${fmt(row.metricsBytes / 1024)} KiB / ${row.series} | ${row.late.missed}/${row.late.overlap} (${row.lateInWindow.missed}/${row.lateInWindow.overlap}) |`);
  return row;
}

/** Each target once per interval at its own slot, with Prometheus's headers; latencies and outcomes. */
async function prometheusLike(url: string, targets: string[], seconds: number): Promise<{ p50ms: number; p99ms: number; n: number; failed: number }> {
  const lat: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  const one = async (name: string): Promise<void> => {
    const t0 = performance.now();
    try {
      const r = await request(`${url}/probe?target=${encodeURIComponent(name)}`, { headers: { 'accept-encoding': 'gzip', 'x-prometheus-scrape-timeout-seconds': '10' } });
      let body = Buffer.from(await r.body.arrayBuffer());
      if (r.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      lat.push(performance.now() - t0);
      if (r.statusCode !== 200 || !/^vega_probe_success\{[^}]*\} 1$/m.test(body.toString('utf8'))) failed += 1;
    } catch {
      failed += 1;
    }
  };
  const inflight: Promise<void>[] = [];
  const slot = (INTERVAL_S * 1000) / targets.length;
  const t0 = performance.now();
  for (let k = 0; performance.now() < end; k++) {
    const due = t0 + k * slot;
    if (due > performance.now()) await sleep(due - performance.now());
    inflight.push(one(targets[k % targets.length]!));
  }
  await Promise.all(inflight);
  lat.sort((a, b) => a - b);
  return { p50ms: quantile(lat, 0.5), p99ms: quantile(lat, 0.99), n: lat.length, failed };
}

async function probeRow(sim: FleetSim, n: number, seconds: number, log: Log): Promise<Record<string, unknown>> {
  const targets = sim.targets.slice(0, n);
  const ex = await startExporter(targets, PROBED);
  // One interval of probes first, so every target has been probed once before the window.
  await prometheusLike(ex.url, targets.map((t) => t.name), INTERVAL_S);
  const w = await measure(sim, ex, seconds, () => prometheusLike(ex.url, targets.map((t) => t.name), seconds));
  const p = w.result as Awaited<ReturnType<typeof prometheusLike>>;
  const m = await metricsText(ex.url);
  const row = {
    targets: n, readyMs: ex.readyMs, rssMiB: w.rssMiB, heapMiB: heapMiB(m.text), cpuMsPerInterval: (w.cpuS * 1000) / (seconds / INTERVAL_S), cpuPct: (w.cpuS / seconds) * 100,
    upstreamPerS: w.upstream / seconds, maxPerNodePerS: w.rates.maxPerSecond, probes: p.n, failed: p.failed, probeP50ms: p.p50ms, probeP99ms: p.p99ms, late: { ...ex.late },
  };
  await ex.proc.stop();
  log(`| probe path | ${n} | ${fmt(row.readyMs / 1000, 1)} | ${fmt(row.rssMiB, 1)} | ${fmt(row.heapMiB, 1)} | ${fmt(row.cpuMsPerInterval)} (${fmt(row.cpuPct, 1)}%) | ${fmt(row.upstreamPerS, 1)} | ${row.maxPerNodePerS} | ${p.n} probes, ${p.failed} failed, p50/p99 ${fmt(p.p50ms, 1)}/${fmt(p.p99ms, 1)} ms |`);
  return row;
}

export async function fleetSection(log: Log, quick: boolean): Promise<Record<string, unknown>> {
  // BENCH_FLEET_SIZES=1000: one size while working on it; the docs' tables come from the full set.
  const sizes = process.env.BENCH_FLEET_SIZES?.split(',').map(Number) ?? (quick ? [10, 100] : [10, 100, 1000]);
  const seconds = quick ? 15 : 30;
  const sim = await startFleetSim(Math.max(...sizes));
  const simUsage = usage(sim.proc.child.pid!);
  log(`\n## Fleet: one exporter, N targets of the fleet simulator, default collectors (${seconds} s windows; scrapes of /metrics every ${SCRAPE_EVERY_MS} ms, gzip)`);
  log(`fleet simulator: ${sim.targets.length} nodes in one process, ${fmt(simUsage.rssMiB, 0)} MiB resident at start`);
  log('| targets | ready s | RSS MiB | heap MiB | RSS KiB/target | CPU ms per 15 s (% of a core) | upstream req/s | max req/s on one node | idle scrape p50/p99 ms | during polls p50/p99 ms | p99 during/idle | /metrics size / series | missed/overlap lines since start (in the window) |');
  log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const rows: Record<string, unknown>[] = [];
  try {
    for (const n of sizes) rows.push(await pollingRow(sim, n, seconds, log));
    const n = Math.max(...sizes);
    log(`\n## Fleet: the probe path, ${n} targets, each probed once per 15 s at its own slot (X-Prometheus-Scrape-Timeout-Seconds: 10, gzip); node-scoped collectors polled only by probes`);
    log('| path | targets | ready s | RSS MiB | heap MiB | CPU ms per 15 s (% of a core) | upstream req/s | max req/s on one node | probes |');
    log('|---|---|---|---|---|---|---|---|---|');
    const probe = await probeRow(sim, n, seconds, log);
    const simEnd = usage(sim.proc.child.pid!);
    log(`fleet simulator after the runs: ${fmt(simEnd.rssMiB, 0)} MiB resident, ${fmt(simEnd.cpuS, 0)} CPU s in all`);
    return { polling: rows, probe, simulator: { nodes: sim.targets.length, rssStartMiB: simUsage.rssMiB, rssEndMiB: simEnd.rssMiB } };
  } finally {
    await sim.proc.stop();
  }
}
