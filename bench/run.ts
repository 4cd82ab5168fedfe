/**
 * `npm run bench [-- --quick]`: the exporter's cost side by side with the limit (raw node:http
 * sending the same bytes) and with the usual way (prom-client rendering per request), all in one
 * run on this machine. Prints a table and writes bench/results/<time>.json. Not part of the tests.
 * Needs wrk (apt-get install -y wrk).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Exporter } from '../src/exporter/exporter.js';
import { KeyRotationsCollector } from '../src/exporter/collectors/key-rotations.js';
import { MarketsCollector } from '../src/exporter/collectors/markets.js';
import { COLLECTORS } from '../src/exporter/collectors/index.js';
import { isEnabled } from '../src/exporter/collectors/define.js';
import { Directory } from '../src/exporter/upstream/directory.js';
import type { Collector } from '../src/exporter/collectors/types.js';
import { configSchema } from '../src/exporter/config/schema.js';
import { DatanodeClient } from '../src/exporter/upstream/client.js';
import { LAUNCH_ENV, NODE_FLAGS } from '../src/exporter/process/launch.js';
import { createLogger } from '../src/exporter/process/logger.js';
import { FLAG_VARIANTS, importsChoice, zlibChoice } from './choices.js';
import { fleetSection } from './fleet.js';
import { pooled, quantile, roundsInterval, sampleLatency, wrk, type Latency, type LoadResult } from './lib/load.js';
import { freePort, start, waitFor, type Proc } from './lib/procs.js';

const SECTIONS = ['scrape', 'during', 'memory', 'polls', 'growth', 'choices', 'fleet'] as const;
const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, 'market-data': { type: 'boolean', default: false } } });
// --market-data: the same markets with the market_data collector on too (~40 more series a market).
const MARKET_DATA = args['market-data'];
// --only memory,during: run some sections (while working on one figure); docs come from full runs.
// The fleet section takes minutes (1,000 targets): the quick run leaves it out unless named.
const only = new Set(args.only ? args.only.split(',') : SECTIONS.filter((x) => !(args.quick && x === 'fleet')));
for (const s of only) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`bench: unknown section "${s}" (one of ${SECTIONS.join(', ')})`);
const QUICK = args.quick;
const TSX = ['--import', 'tsx'];
/** The kernel's TCP congestion control: with BBR, loopback latencies depend on how connections are reused (lib/sampler.mjs). */
const tcpCongestion = ((): string | undefined => {
  try {
    return readFileSync('/proc/sys/net/ipv4/tcp_congestion_control', 'utf8').trim();
  } catch {
    return undefined;
  }
})();
const results: Record<string, unknown> = { quick: QUICK, marketData: MARKET_DATA, machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, tcpCongestion }, at: new Date().toISOString() };
const log = (s: string): void => console.log(s);

try {
  execFileSync('wrk', ['--version'], { stdio: 'ignore' });
} catch (err) {
  if ((err as { code?: string }).code === 'ENOENT') {
    console.error('bench: wrk is needed for the throughput runs: apt-get install -y wrk');
    process.exit(2);
  }
}
// Always rebuild: the exporter runs from dist/, and a stale build would measure old code.
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

/** Markets per series target: one market is ~45 series; ~158 series are fixed (statistics, process). */
const marketsFor = (series: number): number => Math.max(1, Math.round((series - 158) / 45));

async function startSim(extra: string[]): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = start(process.execPath, [...TSX, 'src/simulator/cli.ts', '--port', String(port), ...extra]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/statistics`)).ok, 60_000, 'simulator', proc);
  return { proc, url };
}

type Mode = 'auto' | 'on' | 'off';

/** Collectors the bench's exporter config sets itself; every other one a default config runs gets `othersInterval`. */
const SET_IN_CONFIG = new Set(['markets', 'consistency', 'market_data', 'network_data']);
/** From the registry, so that a collector added to the defaults is scheduled here too. */
const OTHER_DEFAULT_COLLECTORS = ((): string[] => {
  const defaults = configSchema.parse({ targets: [{ name: 'bench', url: 'http://127.0.0.1:1' }] });
  return COLLECTORS.filter((m) => isEnabled(defaults, m) && !SET_IN_CONFIG.has(m.name)).map((m) => m.name);
})();

interface ExporterOptions {
  /** How it is started (default: as shipped). */
  launch?: { flags: string[]; env: Record<string, string> };
  /** The other default collectors' schedule (their own defaults when not given). */
  othersInterval?: string;
}

async function startExporterProc(simUrl: string, markets: number, marketsInterval: string, mode: Mode = 'auto', { launch = { flags: [...NODE_FLAGS], env: { ...LAUNCH_ENV } }, othersInterval }: ExporterOptions = {}): Promise<{ proc: Proc; url: string; startupMs: number }> {
  // market_data (unless --market-data) and network_data are off: the rows are sized by the markets collector's series
  // (market_data would add ~40 a market and move every row's size); its own cost is in docs/performance.md.
  const others = othersInterval ? OTHER_DEFAULT_COLLECTORS.map((c) => `  ${c}: {interval: ${othersInterval}}\n`).join('') : '';
  const port = await freePort();
  const dir = join(tmpdir(), `dne-bench-${port}`);
  mkdirSync(dir, { recursive: true });
  const cfg = join(dir, 'config.yaml');
  writeFileSync(cfg, `targets: [{name: bench, url: "${simUrl}"}]
log: {level: info}
web: {listen_address: "127.0.0.1:${port}", polling_thread: ${mode}}
http: {max_response_bytes: 268435456, requests_per_second: 1000, burst: 1000}
collectors:
  markets: {interval: ${marketsInterval}, max_markets: ${Math.max(500, markets)}}
  consistency: {enabled: false}
  market_data: {enabled: ${MARKET_DATA}}
  network_data: {enabled: false}
${others}`);
  const t0 = performance.now();
  // As the bin, the image and npm start run it (src/exporter/process/launch.ts).
  const proc = start(process.execPath, [...launch.flags, 'dist/exporter/cli.js', '--config.file', cfg], launch.env);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return (text.match(/^vega_market_info\{/gm)?.length ?? 0) === markets && (await fetch(`${url}/readyz`)).ok;
  }, 120_000, 'exporter first complete /metrics', proc);
  return { proc, url, startupMs: performance.now() - t0 };
}

async function startBaseline(script: string, file: string, launch: { flags: string[]; env: Record<string, string> } = { flags: [], env: {} }): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = start(process.execPath, [...launch.flags, ...TSX, script, file, String(port)], launch.env);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(url)).ok, 60_000, script, proc);
  return { proc, url };
}

const median = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5);
const fmt = (n: number, d = 0): string => (Number.isFinite(n) ? n.toFixed(d) : '-');

// ---- 1. Scrape cost ---------------------------------------------------------------------------
async function scrapeCost(): Promise<void> {
  const sizes = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const seconds = QUICK ? 2 : 5;
  // 2 s cells alone move ±20% between runs: the quick run repeats the three near the limit,
  // interleaved, and takes each one's median (prom-client is 20+ times away and runs once). At ~1,000
  // series a 2 s cell of the bare server moves most from round to round, so there the median is of
  // more rounds (docs/performance.md, "Full quick runs since twelve rounds").
  const roundsAt = (target: number): number => (QUICK ? (target === 1_000 ? 7 : 3) : 1);
  // Identical bare servers started one after another served this cell at different rates, each
  // process keeping its own for good (docs/performance.md, "Process luck"): one start per server
  // compared starts, not servers. There each server is started three times and the rounds go round
  // the starts.
  const startsAt = (target: number): number => (QUICK && target === 1_000 ? 3 : 1);
  const rows: Record<string, unknown>[] = [];
  log(`\n## Scrape cost (wrk, ${seconds} s per cell${QUICK ? `, interleaved rounds (${sizes.map((t) => `${roundsAt(t)} at ~${t.toLocaleString('en')} series${startsAt(t) > 1 ? ` over ${startsAt(t)} starts of each server` : ''}`).join(', ')}), median` : ''}, one wrk thread)`);
  log('| series | body | conc | enc | raw req/s | raw, shipped flags req/s | exporter req/s | prom-client req/s | exporter/raw | exporter/raw with shipped flags | exporter/prom-client | exporter p50/p99 ms | raw p99 ms | prom-client p99 ms |');
  log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const target of sizes) {
    const markets = marketsFor(target);
    const sim = await startSim(['--markets', String(markets), '--positions', '0', '--block-interval-ms', '1000']);
    const ex = await startExporterProc(sim.url, markets, '1m');
    const starts = startsAt(target);
    // Resident memory before any load: after start-up and a few seconds of polling.
    await new Promise((r) => setTimeout(r, QUICK ? 1000 : 3000));
    const rssOf = async (): Promise<number> => Number(/^process_resident_memory_bytes (\S+)$/m.exec(await (await fetch(`${ex.url}/metrics`)).text())?.[1]) / 2 ** 20;
    const rssIdle = await rssOf();
    // Each server is loaded for 1 s, uncounted, as soon as it is up: on Node 20 a server left idle
    // after start-up before its first load stays slower per request for good (V8's memory reducer
    // collects while it idles; docs/performance.md, "Node 20: an idle start"), so without this the
    // cells compared servers by their start-up histories, not by their work.
    const warm = (url: string): Promise<LoadResult> => wrk(url, 16, 1, true);
    await warm(`${ex.url}/metrics`);
    const body = await (await fetch(`${ex.url}/metrics`)).text();
    const series = body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
    const file = join(tmpdir(), `dne-bench-body-${target}.txt`);
    writeFileSync(file, body);
    const exs = [ex];
    for (let i = 1; i < starts; i++) exs.push(await startExporterProc(sim.url, markets, '1m'));
    for (const e of exs.slice(1)) await warm(`${e.url}/metrics`);
    const raws: { proc: Proc; url: string }[] = [];
    // The same bare server under the exporter's launch flags: what those flags cost per request.
    const rawShippeds: { proc: Proc; url: string }[] = [];
    for (let i = 0; i < starts; i++) {
      raws.push(await startBaseline('bench/servers/raw.ts', file));
      await warm(raws[i]!.url);
      rawShippeds.push(await startBaseline('bench/servers/raw.ts', file, { flags: [...NODE_FLAGS], env: { ...LAUNCH_ENV } }));
      await warm(rawShippeds[i]!.url);
    }
    const pc = await startBaseline('bench/servers/promclient.ts', file);
    await warm(pc.url);
    for (const conc of [1, 16]) {
      for (const gzip of [false, true]) {
        // Interleave the three servers so machine noise hits them alike.
        const runs: Record<string, LoadResult[]> = {};
        for (let k = 0; k < roundsAt(target); k++) {
          const i = k % starts;
          for (const [name, url] of [['raw', raws[i]!.url], ['rawShipped', rawShippeds[i]!.url], ['exporter', `${exs[i]!.url}/metrics`], ['promclient', pc.url]] as const) {
            if (name === 'promclient' && k > 0) continue;
            (runs[name] ??= []).push(await wrk(url, conc, seconds, gzip));
          }
        }
        const r: Record<string, LoadResult> = {};
        for (const [name, list] of Object.entries(runs)) r[name] = [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!;
        const row = { series, bodyBytes: Buffer.byteLength(body), conc, gzip, raw: r.raw, rawShipped: r.rawShipped, exporter: r.exporter, promclient: r.promclient, exporterOverRaw: r.exporter!.rps / r.raw!.rps, exporterOverRawShipped: r.exporter!.rps / r.rawShipped!.rps, exporterOverPromclient: r.exporter!.rps / r.promclient!.rps };
        rows.push(row);
        log(`| ${series} | ${fmt(row.bodyBytes / 1024)} KiB | ${conc} | ${gzip ? 'gzip' : 'plain'} | ${fmt(r.raw!.rps)} | ${fmt(r.rawShipped!.rps)} | ${fmt(r.exporter!.rps)} | ${fmt(r.promclient!.rps)} | ${fmt(row.exporterOverRaw, 2)} | ${fmt(row.exporterOverRawShipped, 2)} | ${fmt(row.exporterOverPromclient, 1)} | ${fmt(r.exporter!.p50ms, 2)}/${fmt(r.exporter!.p99ms, 2)} | ${fmt(r.raw!.p99ms, 2)} | ${fmt(r.promclient!.p99ms, 1)} |`);
      }
    }
    const rssLoaded = await rssOf();
    (results.memory ??= []) as unknown[];
    (results.memory as unknown[]).push({ series, rssIdleMiB: rssIdle, rssAfterLoadMiB: rssLoaded, startupMs: ex.startupMs });
    log(`\nexporter at ${series} series: resident memory ${fmt(rssIdle, 1)} MiB before load, ${fmt(rssLoaded, 1)} MiB after the runs above; start to first complete /metrics ${fmt(ex.startupMs)} ms`);
    for (const p of [...raws, ...rawShippeds, pc, ...exs, sim]) await p.proc.stop();
  }
  results.scrape = rows;
}

// ---- 2. Scrapes during polls ------------------------------------------------------------------
async function scrapesDuringPolls(): Promise<void> {
  const target = QUICK ? 10_000 : 100_000;
  const markets = marketsFor(target);
  // A window's p99 is decided by a handful of scrapes (the few a second that meet a poll's burst
  // of work, and the machine's own hiccups), so a ratio of p99s is mostly sampling luck until a
  // run holds minutes of each state (docs/performance.md, "Quick runs in a row with 30 s
  // during-polls windows"). Each scrape goes at a random moment of its 20 ms slot: on a fixed
  // period the scrapes kept one phase to the once-a-second polls for a whole window
  // (bench/lib/send-times.mjs).
  // The polling thread's ratio is the target: 12 × 30 s per state, alternating, pooled, with the
  // interval that resampling the rounds gives (with fewer, two runs' ratios parted by more than 10%
  // too often: docs/performance.md, "Twelve rounds"). The single thread is there to show what the
  // thread buys (its ratio is 10-30): one round of 10 s.
  const secondsOf = (single: boolean): number => (QUICK ? (single ? 10 : 30) : 20);
  const roundsOf = (single: boolean): number => (QUICK ? (single ? 1 : 12) : 1);
  // Each window's exporter is fresh: its first seconds of scrapes run while V8 still compiles the
  // serving path on the same two cores, with spikes in idle and busy windows alike. They are
  // scraped at the same rate first and not counted.
  const warmup = 3;
  log(`\n## Scrape latency while polls are applied (${target} series; one gzip scrape in every 20 ms at a random moment of it, open loop, after ${warmup} s of the same uncounted, each scrape on a new connection; every other collector daily; a busy window first to warm the simulator, uncounted; ${roundsOf(false)} × ${secondsOf(false)} s per state with the polling thread and ${roundsOf(true)} × ${secondsOf(true)} s on one thread${roundsOf(false) > 1 ? ', alternating, pooled; in brackets the 90% interval of the ratio when the rounds are resampled' : ''})`);
  const sim = await startSim(['--markets', String(markets), '--positions', '0']);
  log('| mode | state | scrapes | p50 ms | p99 ms | max ms | p99 busy/idle | p99 busy/idle per round |');
  log('|---|---|---|---|---|---|---|---|');
  const out: Record<string, unknown> = { series: target };
  /** Upstream requests so far: to the markets endpoint, and to every other. */
  const upstream = async (url: string): Promise<{ markets: number; others: number }> => {
    const n = { markets: 0, others: 0 };
    for (const m of (await (await fetch(`${url}/metrics`)).text()).matchAll(/^vega_upstream_requests_total\{target="bench",endpoint="([^"]+)",status="[^"]+"\} (\d+)$/gm)) n[m[1] === 'markets' ? 'markets' : 'others'] += Number(m[2]);
    return n;
  };
  /** One window of scrapes against a fresh exporter; the markets polls and other requests it saw. */
  const window = async (interval: string, mode: Mode, seconds: number): Promise<{ latency: Latency; polls: number; others: number }> => {
    // Every other collector daily, in both states: idle then means no poll at all, and busy the
    // markets polls alone (with their default schedules, statistics and network history polled
    // inside a window or not depending on its start, and the idle p99 moved 21% between runs).
    // Daily, not hourly: each polls at a fixed offset into its interval, and the windows cover a
    // sixth of an hour; one hourly poll was counted inside a window once.
    const ex = await startExporterProc(sim.url, markets, interval, mode, { othersInterval: '24h' });
    await sampleLatency(`${ex.url}/metrics`, warmup, 20);
    const before = await upstream(ex.url);
    const latency = await sampleLatency(`${ex.url}/metrics`, seconds, 20);
    const after = await upstream(ex.url);
    await ex.proc.stop();
    return { latency, polls: after.markets - before.markets, others: after.others - before.others };
  };
  // The simulator is fresh too: the first busy window ran while V8 still compiled its markets
  // path, and the first round's ratio was 2.1-2.6 in three runs where the later rounds' were
  // 0.7-1.2 but one. One busy window first, not counted.
  await window('1s', 'off', 10);
  for (const single of [false, true]) {
    // Each mode by name: at the quick run's size `auto` would choose one thread for both rows.
    const mode = single ? 'single thread (polling_thread: off)' : 'polling thread (polling_thread: on)';
    const idleW: Latency[] = [];
    const busyW: Latency[] = [];
    let idlePolls = 0;
    let polls = 0;
    let others = 0;
    for (let r = 0; r < roundsOf(single); r++) {
      // Idle: markets daily too. A 1m interval would poll at its offset within the next minute,
      // inside the window one run in three.
      const i = await window('24h', single ? 'off' : 'on', secondsOf(single));
      const b = await window('1s', single ? 'off' : 'on', secondsOf(single));
      idleW.push(i.latency);
      busyW.push(b.latency);
      idlePolls += i.polls;
      polls += b.polls;
      others += i.others + b.others;
    }
    const idle = pooled(idleW);
    const busy = pooled(busyW);
    const perRound = busyW.map((b, k) => b.p99ms / idleW[k]!.p99ms);
    const interval = idleW.length > 1 ? roundsInterval(idleW, busyW) : undefined;
    const strip = ({ samples: _s, ...rest }: Latency) => rest;
    out[single ? 'singleThread' : 'threaded'] = { idle: strip(idle), busy: strip(busy), ratioP99: busy.p99ms / idle.p99ms, ratioP99Interval90: interval, ratioPerRound: perRound, idleP99PerRound: idleW.map((w) => w.p99ms), busyP99PerRound: busyW.map((w) => w.p99ms), marketPolls: polls, idleMarketPolls: idlePolls, otherRequests: others };
    log(`| ${mode} | idle (${idlePolls} markets polls in the windows, ${others} other upstream requests in all windows) | ${idle.n} | ${fmt(idle.p50ms, 2)} | ${fmt(idle.p99ms, 2)} | ${fmt(idle.max, 1)} | | |`);
    log(`| ${mode} | markets polled every second (${polls} polls) | ${busy.n} | ${fmt(busy.p50ms, 2)} | ${fmt(busy.p99ms, 2)} | ${fmt(busy.max, 1)} | ${fmt(busy.p99ms / idle.p99ms, 2)}${interval ? ` [${fmt(interval[0], 2)}-${fmt(interval[1], 2)}]` : ''} | ${perRound.map((x) => fmt(x, 2)).join(', ')} |`);
  }
  await sim.proc.stop();
  results.duringPolls = out;
  log('target: p99 during polls <= 2 x idle p99 (polling thread)');
}

// ---- 2b. Resident memory by mode --------------------------------------------------------------
async function residentMemory(): Promise<void> {
  const sizes = QUICK ? [10_000] : [10_000, 100_000];
  // The same 10 s as the full run in the quick one: from 2 s the samples caught the start-up (every
  // collector's first poll, before the first forced collection), not the resident memory at rest.
  const settle = 10;
  const perStart = QUICK ? 4 : 15;
  log(`\n## Resident memory (exporter process: from ${settle} s after its first complete /metrics, one sample a second, ${perStart} per start; markets polled every 15 s)`);
  log('| series | mode | auto chose | starts | samples | median MiB | max MiB | median of each start |');
  log('|---|---|---|---|---|---|---|---|');
  const rows: Record<string, unknown>[] = [];
  for (const target of sizes) {
    const markets = marketsFor(target);
    const sim = await startSim(['--markets', String(markets), '--positions', '0']);
    // The default mode at the target's size gets several starts: one start can land in a better
    // or worse state of the allocator than the next.
    const plan: [Mode, number][] = [['auto', QUICK || target !== 10_000 ? 1 : 3], ['on', 1], ['off', 1]];
    for (const [mode, starts] of plan) {
      const samples: number[] = [];
      const startMedians: number[] = [];
      let series = 0;
      let chose = '';
      for (let k = 0; k < starts; k++) {
        const ex = await startExporterProc(sim.url, markets, '15s', mode);
        await new Promise((r) => setTimeout(r, settle * 1000));
        const mine: number[] = [];
        let text = '';
        for (let i = 0; i < perStart; i++) {
          text = await (await fetch(`${ex.url}/metrics`)).text();
          mine.push(Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]) / 2 ** 20);
          await new Promise((r) => setTimeout(r, 1000));
        }
        series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
        if (mode === 'auto') chose = /"pollingThread":true/.test(ex.proc.output()) ? 'on' : 'off';
        samples.push(...mine);
        startMedians.push(median(mine));
        await ex.proc.stop();
      }
      const row = { series, mode, autoChose: mode === 'auto' ? chose : undefined, starts, samples: samples.length, medianMiB: median(samples), maxMiB: Math.max(...samples), startMediansMiB: startMedians };
      rows.push(row);
      log(`| ${series} | ${mode} | ${row.autoChose ?? ''} | ${starts} | ${samples.length} | ${fmt(row.medianMiB, 1)} | ${fmt(row.maxMiB, 1)} | ${startMedians.map((m) => fmt(m, 1)).join(', ')} |`);
    }
    await sim.proc.stop();
  }
  results.residentMemory = rows;
  log('target: under 100 MB (95.4 MiB) at 10,000 series');
}

// ---- 3. Poll cost -----------------------------------------------------------------------------
interface PollCase {
  name: string;
  label: string;
  simArgs: string[];
  make: () => Collector;
}

/** One collector against its own simulator, after its first walk: a poll, its requests, bytes and CPU. */
async function pollCase(c: PollCase): Promise<{ poll: () => Promise<{ requests: number; bytes: number; cpuMs: number }>; close: () => Promise<void> }> {
  const sim = await startSim(c.simArgs);
  const client = new DatanodeClient({ url: sim.url, headers: {}, connectTimeoutMs: 5000, headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, requestTimeoutMs: 60_000, maxResponseBytes: 2 ** 28, requestsPerSecond: 1000, burst: 1000, retries: 0 });
  const collector = c.make();
  const ctx = () => ({ target: 'bench', client, signal: AbortSignal.timeout(60_000), pageSize: 5000, maxPages: 1000 });
  await collector.collect(ctx()); // the first walk
  return {
    poll: async () => {
      const [r0, b0, c0] = [client.totals.requests, client.totals.bytes, process.cpuUsage()];
      await collector.collect(ctx());
      const d = process.cpuUsage(c0);
      return { requests: client.totals.requests - r0, bytes: client.totals.bytes - b0, cpuMs: (d.user + d.system) / 1000 };
    },
    close: async () => {
      await client.close();
      await sim.proc.stop();
    },
  };
}

async function pollCost(): Promise<void> {
  // Key-rotation polls take a fraction of a millisecond: the two sizes are polled alternately,
  // many times, so that whatever else the machine does falls on both alike.
  const n = QUICK ? 10 : 30;
  const nRotations = 60;
  log(`\n## Poll cost (steady state, median of ${n} polls, ${nRotations} alternating for key rotations; CPU is this process's, the simulator runs apart)`);
  log('| collector | upstream size | requests/poll | KiB/poll | CPU ms/poll (median) |');
  log('|---|---|---|---|---|');
  const rows: { collector: string; upstream: string; requests: number; kib: number; cpuMs: number }[] = [];
  const markets = (): Collector => new MarketsCollector({ maxMarkets: 1e6, allow: [], countsOnly: false }, new Directory());
  const groups: PollCase[][] = [
    [
      { name: 'key_rotations', label: '1,000 rotations', simArgs: ['--rotations', '1000', '--rotation-every', '0'], make: () => new KeyRotationsCollector() },
      { name: 'key_rotations', label: '100,000 rotations', simArgs: ['--rotations', '100000', '--rotation-every', '0'], make: () => new KeyRotationsCollector() },
    ],
    [{ name: 'markets', label: '10 markets', simArgs: ['--markets', '10'], make: markets }],
    [{ name: 'markets', label: '1,000 markets', simArgs: ['--markets', '1000', '--positions', '0'], make: markets }],
  ];
  for (const group of groups) {
    const cases = [];
    for (const c of group) cases.push(await pollCase(c));
    const polls = group.length > 1 ? nRotations : n;
    const seen = group.map(() => ({ requests: [] as number[], bytes: [] as number[], cpu: [] as number[] }));
    for (let i = 0; i < polls; i++) {
      for (let k = 0; k < cases.length; k++) {
        const p = await cases[k]!.poll();
        seen[k]!.requests.push(p.requests);
        seen[k]!.bytes.push(p.bytes);
        seen[k]!.cpu.push(p.cpuMs);
      }
    }
    for (const c of cases) await c.close();
    group.forEach((c, k) => {
      const row = { collector: c.name, upstream: c.label, requests: median(seen[k]!.requests), kib: median(seen[k]!.bytes) / 1024, cpuMs: median(seen[k]!.cpu) };
      rows.push(row);
      log(`| ${c.name} | ${c.label} | ${row.requests} | ${fmt(row.kib, 1)} | ${fmt(row.cpuMs, 2)} |`);
    });
  }
  const [k1, k100] = [rows[0]!, rows[1]!];
  log(`key rotations: requests at 100,000 / at 1,000 = ${k100.requests}/${k1.requests}; CPU ratio ${fmt(k100.cpuMs / k1.cpuMs, 2)} (target <= 1.5)`);
  results.pollCost = rows;
}

// ---- 4. Memory over many polls ----------------------------------------------------------------
async function memoryGrowth(): Promise<void> {
  const polls = QUICK ? 200 : 1000;
  const target = 10_000;
  const markets = marketsFor(target);
  log(`\n## Memory over ${polls} polls (in-process exporter, ${target} series, every collector polled each round)`);
  const sim = await startSim(['--markets', String(markets), '--positions', '0', '--block-interval-ms', '50', '--rotation-every', '20']);
  const config = configSchema.parse({ targets: [{ name: 'bench', url: sim.url }], log: { level: 'silent' }, http: { requests_per_second: 1000, burst: 1000 }, collectors: { markets: { interval: '1h', max_markets: 1e6 }, statistics: { interval: '1h' }, network_history: { interval: '1h' }, key_rotations: { interval: '1h' }, consistency: { interval: '1h' } } });
  const ex = new Exporter(config, createLogger('silent'));
  await ex.start('127.0.0.1:0');
  await new Promise((r) => setTimeout(r, 500));
  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: { poll: number; rssMiB: number; heapMiB: number }[] = [];
  for (let i = 1; i <= polls; i++) {
    await Promise.all(ex.runners.map((r) => r.runOnce()));
    ex.polled(); // render as a scrape would
    if (i % (polls / 10) === 0) {
      gc?.();
      const m = process.memoryUsage();
      samples.push({ poll: i, rssMiB: m.rss / 2 ** 20, heapMiB: m.heapUsed / 2 ** 20 });
    }
  }
  await ex.stop();
  await sim.proc.stop();
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  results.memoryGrowth = { polls, series: ex.store.seriesCount(), samples, heapGrowthMiB: last.heapMiB - first.heapMiB, gcExposed: gc !== undefined };
  log('| after poll | RSS MiB | heap used MiB |');
  log('|---|---|---|');
  for (const s of samples) log(`| ${s.poll} | ${fmt(s.rssMiB, 1)} | ${fmt(s.heapMiB, 1)} |`);
  log(`heap growth from poll ${first.poll} to ${last.poll}: ${fmt(last.heapMiB - first.heapMiB, 2)} MiB${gc ? '' : ' (run with --expose-gc for a cleaner figure)'}`);
}

// ---- 5. The clever choices, each against its plain alternative ------------------------------------
async function choices(): Promise<void> {
  results.imports = importsChoice(log, QUICK ? 3 : 7);
  const target = 10_000;
  const markets = marketsFor(target);
  const sim = await startSim(['--markets', String(markets), '--positions', '0']);
  const settle = QUICK ? 3 : 8;
  const samples = QUICK ? 4 : 10;
  const starts = QUICK ? 1 : 2;
  log(`\n## Choice: launch flags at ${target} series, one thread (${starts} start(s) each, ${samples} samples from ${settle} s after the first complete /metrics; markets polled every 15 s)`);
  log('| flags | RSS median MiB | RSS max MiB | first markets poll ms (median of starts) | RSS / shipped | poll / shipped |');
  log('|---|---|---|---|---|---|');
  const rows: Record<string, number | string>[] = [];
  let body = Buffer.alloc(0);
  for (const v of FLAG_VARIANTS) {
    const rss: number[] = [];
    const polls: number[] = [];
    for (let k = 0; k < starts; k++) {
      const ex = await startExporterProc(sim.url, markets, '15s', 'off', { launch: v });
      const first = await (await fetch(`${ex.url}/metrics`)).text();
      polls.push(Number(/^vega_network_collector_duration_seconds\{[^}]*collector="markets"[^}]*\} (\S+)$/m.exec(first)?.[1]) * 1000);
      if (body.length === 0) body = Buffer.from(first);
      await new Promise((r) => setTimeout(r, settle * 1000));
      for (let i = 0; i < samples; i++) {
        rss.push(Number(/^process_resident_memory_bytes (\S+)$/m.exec(await (await fetch(`${ex.url}/metrics`)).text())?.[1]) / 2 ** 20);
        await new Promise((r) => setTimeout(r, 1000));
      }
      await ex.proc.stop();
    }
    rows.push({ flags: v.name, rssMedianMiB: median(rss), rssMaxMiB: Math.max(...rss), marketsPollMs: median(polls) });
  }
  const base = rows[0]!;
  for (const r of rows) log(`| ${r.flags} | ${fmt(r.rssMedianMiB as number, 1)} | ${fmt(r.rssMaxMiB as number, 1)} | ${fmt(r.marketsPollMs as number, 0)} | ${fmt((r.rssMedianMiB as number) / (base.rssMedianMiB as number), 2)} | ${fmt((r.marketsPollMs as number) / (base.marketsPollMs as number), 2)} |`);
  results.flags = rows;
  await sim.proc.stop();
  const bodies = [{ series: target, body }];
  if (!QUICK) {
    // A 100,000-series body, as the polling thread gzips it.
    const big = body.toString('utf8').split('\n');
    const copies: string[] = [];
    for (let i = 0; copies.length < 100_000 && i < 12; i++) copies.push(...big.filter((l) => l.startsWith('vega_market')).map((l) => l.replace('{', `{copy="${i}",`)));
    bodies.push({ series: copies.length, body: Buffer.from(`${copies.join('\n')}\n`) });
  }
  results.zlib = await zlibChoice(log, bodies, QUICK ? 5 : 15);
}

const t0 = Date.now();
results.sections = [...only];
if (only.has('scrape')) await scrapeCost();
if (only.has('during')) await scrapesDuringPolls();
if (only.has('memory')) await residentMemory();
if (only.has('polls')) await pollCost();
if (only.has('growth')) await memoryGrowth();
if (only.has('choices')) await choices();
if (only.has('fleet')) results.fleet = await fleetSection(log, QUICK);
results.totalSeconds = (Date.now() - t0) / 1000;
mkdirSync('bench/results', { recursive: true });
const out = join('bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}${QUICK ? '-quick' : ''}.json`);
writeFileSync(out, JSON.stringify(results, null, 2));
log(`\nwrote ${out} (${fmt(results.totalSeconds as number, 0)} s)`);
process.exit(0);
