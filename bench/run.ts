/**
 * `npm run bench [-- --node <bin>] [--plain] [--only <workload>] [--seconds <n>] [--rounds <n>] [--baseline <dir>] [--busy]`: the
 * sizing table of docs/performance.md. Each workload gets a fresh simulator and a fresh exporter,
 * started as operators start it: dist/exporter/cli.js run by its shebang (the one place its launch
 * settings are written). After /readyz answers 200 and a warm-up, a steady window scraped 2/s as
 * Prometheus scrapes gives RSS (median and maximum of VmRSS read every second), CPU (the exporter's
 * utime + stime, scrapes included, as % of one core), scrape p99 and the series served; a second
 * window of the same length, scraped once per 15 s (Prometheus's default interval), gives RSS and CPU
 * again. Then the same for the Node floor (bench/floor.ts, the same polls done minimally, run with the
 * shebang's settings) against a fresh simulator of the same workload, and again, exporter and floor
 * alternating, for each round. Each figure is printed as the median over the rounds with its range,
 * and as a ratio to the floor's (the median over the rounds' pairs). `--baseline` runs another
 * checkout's exporter as a third subject in each round (a release against the one before it).
 *
 * The simulator records the requests it serves per endpoint (GET /__sim/state): over whole minutes
 * from the end of the warm-up, they give each subject's upstream requests a minute per endpoint. The
 * bench prints both and exits 1 when the floor's differ from the exporter's by more than 5% at any
 * endpoint: a floor that does other work than the exporter is no floor. Writes bench/results/<time>.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import {
  compareRates,
  countSeries,
  cpuPercent,
  cpuMsPerScrape,
  cpuTicks,
  duringPoll,
  median,
  percentile,
  pollWindows,
  ratio,
  requestWindowSeconds,
  requestsBetween,
  shebangLaunch,
  spread,
  vmRssKiB,
  type Requests,
  type Spread,
  type Window,
} from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/exporter/cli.js');
/** The floor, compiled by the bench (never part of dist/ or the package). */
const FLOOR_DIR = join(ROOT, '.tmp/bench-floor');
const FLOOR = join(FLOOR_DIR, 'floor.js');
/** What Prometheus 2.x/3.x sends. */
const ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const SCRAPE_EVERY_MS = 500;
/** Prometheus's default scrape_interval: what operators pay. */
const SCRAPE_SLOW_MS = 15_000;
const SCRAPE_TIMEOUT_MS = 10_000; // Prometheus's default scrape_timeout
const READY_TIMEOUT_MS = 180_000;
/** A scrape counts as "during polls" when it overlaps a poll or the second after it (the new body being published). */
const POLL_TAIL_MS = 1_000;
/** The floor's upstream requests a minute may differ from the exporter's by this much at any endpoint. */
const RATE_TOLERANCE = 0.05;
/** The floor's series may differ from the exporter's by this much before the bench says so. */
const SERIES_TOLERANCE = 0.03;

interface Workload {
  key: string;
  name: string;
  sim: string[];
  fleet?: boolean;
  /** An exporter config file (YAML) besides --datanode.url. */
  config?: string;
}
const WORKLOADS: Workload[] = [
  { key: '1target', name: '1 target', sim: [] },
  { key: '17k', name: '17k', sim: ['--markets', '200', '--rotations', '100000'] },
  { key: '100targets', name: '100 targets', sim: ['--nodes', '100'], fleet: true },
  // Above 500 markets (the default guard) and 100,000 series a network, per-market series need the guard
  // and the network's series limit raised, as an operator would.
  {
    key: '100k',
    name: '100k',
    sim: ['--markets', '1200'],
    config: 'collectors:\n  markets: { max_markets: 1200 }\n  market_data: { max_markets: 1200 }\nlimits: { series_per_network: 250000 }\n',
  },
];

const USAGE = `Usage: npm run bench -- [--node <node binary>] [--plain] [--only <${WORKLOADS.map((w) => w.key).join('|')}>] [--seconds <n>] [--rounds <n>] [--baseline <dir>] [--busy]
  --node     run the exporter on this node (its directory goes first on PATH, for the shebang's env)
  --plain    <node> dist/exporter/cli.js, without the shebang's settings (to compare)
  --only     one workload
  --seconds  each measured window (default 60; the warm-up is half of it, at most 30 s); upstream
             requests are counted over whole minutes, at least one
  --rounds   exporter and floor runs per workload, alternating (default 2)
  --baseline another checkout (built, with its node_modules): its exporter runs as a third subject, between the two
  --busy     another process keeps one core busy for the whole run`;

const { values: args } = parseArgs({
  options: {
    node: { type: 'string' },
    plain: { type: 'boolean', default: false },
    only: { type: 'string' },
    seconds: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '2' },
    baseline: { type: 'string' },
    busy: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const SECONDS = Number(args.seconds);
const WARM = Math.min(30, SECONDS / 2);
const ROUNDS = Number(args.rounds);
/** Upstream requests are counted from the end of the warm-up over this many seconds (whole minutes). */
const REQUEST_S = requestWindowSeconds(2 * SECONDS);
const selected = args.only ? WORKLOADS.filter((w) => w.key === args.only!.replace(/\s+/g, '').toLowerCase()) : WORKLOADS;
const nodeBin = args.node ? resolve(args.node) : undefined;
const BASELINE_CLI = args.baseline ? join(resolve(args.baseline), 'dist/exporter/cli.js') : undefined;
if (
  !Number.isInteger(SECONDS) ||
  SECONDS < 5 ||
  SECONDS > 600 ||
  !Number.isInteger(ROUNDS) ||
  ROUNDS < 1 ||
  ROUNDS > 10 ||
  selected.length === 0 ||
  (nodeBin && !existsSync(nodeBin)) ||
  (BASELINE_CLI && !existsSync(BASELINE_CLI))
) {
  console.error(`bench: bad arguments\n${USAGE}`);
  process.exit(2);
}

// ---- child processes: each in its own process group, all killed on exit, error or signal ----
const children = new Set<ChildProcess>();
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
process.on('exit', () => children.forEach((c) => killGroup(c, 'SIGKILL')));
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));

type Proc = ReturnType<typeof start>;
function start(name: string, cmd: string, argv: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(cmd, argv, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const tail: string[] = [];
  const exited = new Promise<void>((res) => {
    child.once('exit', () => res());
    child.once('error', (err) => void (tail.push(`${name}: ${err.message}`), res()));
  });
  void exited.then(() => children.delete(child));
  const listeners = new Set<(line: string) => void>();
  for (const s of [child.stdout, child.stderr]) {
    createInterface({ input: s }).on('line', (line) => {
      tail.push(line.slice(0, 500));
      if (tail.length > 15) tail.shift();
      listeners.forEach((l) => l(line));
    });
  }
  /** The first non-undefined `test(line)` of its output; rejects on exit or timeout. */
  const waitLine = (test: (line: string) => string | undefined, ms: number): Promise<string> =>
    new Promise((res, rej) => {
      const done = (err: Error | undefined, v?: string): void => {
        clearTimeout(timer);
        listeners.delete(onLine);
        void (err ? rej(err) : res(v!));
      };
      const onLine = (line: string): void => {
        const v = test(line);
        if (v !== undefined) done(undefined, v);
      };
      const timer = setTimeout(() => done(new Error(`${name}: not ready within ${ms / 1000} s; its last output:\n${tail.join('\n')}`)), ms);
      listeners.add(onLine);
      void exited.then(() => done(new Error(`${name} exited (${child.exitCode ?? child.signalCode}); its last output:\n${tail.join('\n')}`)));
    });
  const stop = async (): Promise<void> => {
    if (!children.has(child)) return;
    killGroup(child, 'SIGTERM');
    const t = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  };
  return { child, waitLine, stop };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// ---- scrapes, as Prometheus sends them ----
interface Scrape {
  start: number;
  end: number;
  ms: number;
  ok: boolean;
  /** As received (gzip or not): decompressed only when read, to keep the bench's own CPU use low. */
  body?: Buffer;
  gzip?: boolean;
}
const text = (s: Scrape | undefined): string => (s?.body ? (s.gzip ? gunzipSync(s.body) : s.body).toString('utf8') : '');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function scrape(url: string): Promise<Scrape> {
  const start = Date.now();
  const t0 = performance.now();
  return new Promise((res) => {
    const fail = (): void => res({ start, end: Date.now(), ms: performance.now() - t0, ok: false });
    const req = http.get(url, { agent, headers: { accept: ACCEPT, 'accept-encoding': 'gzip' }, timeout: SCRAPE_TIMEOUT_MS }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('error', fail);
      r.on('end', () => {
        const ms = performance.now() - t0;
        res({ start, end: Date.now(), ms, ok: r.statusCode === 200, body: Buffer.concat(chunks), gzip: r.headers['content-encoding'] === 'gzip' });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
  });
}

/** Scrapes every `everyMs` (never two at once) until `until`; keeps the bodies `keep` asks for. */
async function scrapeLoop(url: string, until: number, everyMs: number, keep: (s: Scrape) => void): Promise<Scrape[]> {
  const out: Scrape[] = [];
  while (Date.now() < until && out.length < 10_000) {
    const s = await scrape(url);
    keep(s);
    out.push({ ...s, body: undefined });
    await sleep(Math.min(s.start + everyMs, until) - Date.now());
  }
  return out;
}

async function ready(base: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = await new Promise<number>((res) => {
      http.get(`${base}/readyz`, { timeout: 2_000 }, (r) => void r.resume().on('end', () => res(r.statusCode ?? 0))).on('error', () => res(0));
    });
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`exporter: /readyz not 200 within ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(250);
  }
}

/** What each simulated node has served per endpoint so far (its GET /__sim/state). */
async function simRequests(urls: readonly string[]): Promise<Requests[]> {
  const one = (url: string): Promise<Requests> =>
    new Promise((res, rej) => {
      const req = http.get(`${url}/__sim/state`, { timeout: 10_000 }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('error', rej);
        r.on('end', () => {
          try {
            if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}`);
            res((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { requests: Requests }).requests);
          } catch (err) {
            rej(new Error(`simulator: ${url}/__sim/state: ${err instanceof Error ? err.message : String(err)}`));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`simulator: ${url}/__sim/state: timeout`)));
      req.on('error', rej);
    });
  return Promise.all(urls.map(one));
}

// ---- one workload ----
type Subject = 'exporter' | 'baseline' | 'floor';
interface Row {
  workload: string;
  subject: Subject;
  round: number;
  node: string;
  series: number;
  /** Median and maximum of VmRSS over the window scraped 2/s. */
  rssMiB: number;
  rssMaxMiB: number;
  cpuPct: number;
  p99ms: number;
  scrapes: number;
  failed: number;
  during?: { p99ms: number; n: number; idleP99ms: number; idleN: number; ratio: number };
  /** The second window, scraped once per 15 s. */
  slow: { rssMiB: number; rssMaxMiB: number; cpuPct: number; scrapes: number };
  /** Upstream requests per endpoint over `requestSeconds` from the end of the warm-up, as the simulator served them. */
  requests: Requests;
  requestSeconds: number;
}

/** RSS (median and maximum of a reading every second) and CPU (% of one core) of `pid` over the next `seconds`. */
async function usage(pid: number, seconds: number): Promise<{ rssMiB: number; rssMaxMiB: number; cpuPct: number }> {
  const cpu0 = cpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const t0 = performance.now();
  const rss: number[] = [];
  for (let t = 0; t < seconds; t += 1) {
    rss.push(vmRssKiB(readFileSync(`/proc/${pid}/status`, 'utf8')) / 1024);
    await sleep(t0 + (t + 1) * 1000 - performance.now());
  }
  const cpu1 = cpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return { rssMiB: median(rss), rssMaxMiB: Math.max(...rss), cpuPct: cpuPercent(cpu1 - cpu0, CLK_TCK, (performance.now() - t0) / 1000) };
}

async function runWorkload(w: Workload, subject: Subject, round: number): Promise<Row> {
  const tmp = mkdtempSync(join(tmpdir(), 'dne-bench-'));
  const procs: Proc[] = [];
  try {
    const targetsFile = join(tmp, 'targets.yaml');
    const simArgs = ['simulator/bin/datanode-simulator.js', '--port', '0', ...w.sim, ...(w.fleet ? ['--nodes-file', targetsFile] : [])];
    const sim = start('simulator', process.execPath, simArgs, process.env);
    procs.push(sim);
    const simUrl = await sim.waitLine((l) => {
      const m = /^simulated (?:data node on (\S+)|fleet of)/.exec(l);
      return m ? (m[1] ?? '') : undefined;
    }, READY_TIMEOUT_MS);

    // The exporter: as operators run it; nothing from this environment that could change its settings.
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('DATANODE_EXPORTER_') && !k.startsWith('MALLOC_') && k !== 'NODE_OPTIONS'),
    );
    if (nodeBin) env.PATH = `${dirname(nodeBin)}${delimiter}${env.PATH ?? ''}`;
    const configFile = join(tmp, 'config.yaml');
    if (w.config) writeFileSync(configFile, w.config);
    const target = w.fleet ? ['--config.file', targetsFile] : ['--datanode.url', simUrl, ...(w.config ? ['--config.file', configFile] : [])];
    const expArgs = ['--web.listen-address', '127.0.0.1:0', '--log.format', 'json', ...target];
    let exp: Proc;
    if (subject === 'floor') {
      // The floor takes the exporter's arguments and starts as the exporter does: the shebang's settings unless --plain.
      const launch = args.plain ? { env: {}, nodeArgs: [] } : shebangLaunch(readFileSync(CLI, 'utf8').split('\n', 1)[0]!);
      exp = start('floor', nodeBin ?? 'node', [...launch.nodeArgs, FLOOR, ...expArgs], { ...env, ...launch.env });
    } else {
      const cli = subject === 'baseline' ? BASELINE_CLI! : CLI;
      exp = args.plain ? start(subject, nodeBin ?? 'node', [cli, ...expArgs], env) : start(subject, cli, expArgs, env);
    }
    procs.push(exp);
    const metricsUrl = await exp.waitLine((l) => {
      try {
        const j = JSON.parse(l) as { msg?: string; url?: string };
        return j.msg === 'serving metrics' ? j.url : undefined;
      } catch {
        return undefined;
      }
    }, READY_TIMEOUT_MS);
    await ready(new URL(metricsUrl).origin);
    // The simulator's own records of what it served: a fleet's nodes each keep theirs.
    const simUrls = w.fleet ? (parseYaml(readFileSync(targetsFile, 'utf8')) as { targets: { url: string }[] }).targets.map((t) => t.url) : [simUrl];

    // Scrapes run from readiness on; the measured window follows the warm-up, then the window scraped once per 15 s.
    const pid = exp.child.pid!;
    const measureFrom = Date.now() + WARM * 1000;
    const until = measureFrom + SECONDS * 1000;
    const windows = new Map<string, Window>();
    let last: Scrape | undefined;
    // An exporter reports each collector's last poll until its next one (15 s at the shortest): every
    // tenth body is enough to see them all, and keeps the bench's own work on a large body low.
    let n = 0;
    const loop = scrapeLoop(metricsUrl, until, SCRAPE_EVERY_MS, (s) => {
      if (!s.ok) return;
      last = s;
      if (subject !== 'floor' && n++ % 10 === 0) for (const win of pollWindows(text(s))) windows.set(win.join(), win);
    });
    await sleep(measureFrom - Date.now());
    const requestsFrom = await simRequests(simUrls);
    const { rssMiB, rssMaxMiB, cpuPct } = await usage(pid, SECONDS);
    const measured = (await loop).filter((s) => s.start >= measureFrom);
    if (subject !== 'floor') for (const win of pollWindows(text(last))) windows.set(win.join(), win);
    const slowLoop = scrapeLoop(metricsUrl, Date.now() + SECONDS * 1000, SCRAPE_SLOW_MS, () => {});
    const slow = await usage(pid, SECONDS);
    const slowScrapes = (await slowLoop).length;
    await sleep(measureFrom + REQUEST_S * 1000 - Date.now());
    const requests = requestsBetween(requestsFrom, await simRequests(simUrls));
    const ok = measured.filter((s) => s.ok);
    const body = text(last);
    const row: Row = {
      workload: w.name,
      subject,
      round,
      node: /nodejs_version="([^"]+)"/.exec(body)?.[1] ?? /^nodejs_version_info\{version="([^"]+)"/m.exec(body)?.[1] ?? '?',
      series: countSeries(body),
      rssMiB,
      rssMaxMiB,
      cpuPct,
      p99ms: percentile(
        ok.map((s) => s.ms),
        99,
      ),
      scrapes: measured.length,
      failed: measured.length - ok.length,
      slow: { ...slow, scrapes: slowScrapes },
      requests,
      requestSeconds: REQUEST_S,
    };
    if (subject !== 'floor') {
      const busy = ok.filter((s) => duringPoll(s.start, s.end, windows.values(), POLL_TAIL_MS)).map((s) => s.ms);
      const idle = ok.filter((s) => !duringPoll(s.start, s.end, windows.values(), POLL_TAIL_MS)).map((s) => s.ms);
      const p99ms = percentile(busy, 99);
      const idleP99ms = percentile(idle, 99);
      row.during = { p99ms, n: busy.length, idleP99ms, idleN: idle.length, ratio: p99ms / idleP99ms };
    }
    return row;
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- main ----
const SUBJECTS: Subject[] = BASELINE_CLI ? ['exporter', 'baseline', 'floor'] : ['exporter', 'floor'];
const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
/** The median, and its range in parentheses over more than one round. */
const fmtSpread = (s: Spread, digits = 0): string =>
  s.n > 1 ? `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})` : fmt(s.median, digits);

/** One subject's rounds of one workload. */
interface Summary {
  workload: string;
  subject: Subject;
  rows: Row[];
}
const of = (s: Summary, f: (r: Row) => number): Spread => spread(s.rows.map(f));
/** A figure over the floor's, round by round (each exporter run with the floor run after it). */
const toFloor = (s: Summary, floor: Summary | undefined, f: (r: Row) => number): Spread =>
  spread(s.rows.map((r, i) => ratio(f(r), floor?.rows[i] ? f(floor.rows[i]) : undefined)));
/** Requests a minute per endpoint over all of a subject's rounds. */
const rates = (s: Summary): { requests: Requests; minutes: number } => ({
  requests: requestsBetween(
    [],
    s.rows.map((r) => r.requests),
  ),
  minutes: s.rows.reduce((m, r) => m + r.requestSeconds / 60, 0),
});

async function main(): Promise<void> {
  // A bound on the whole run: the build, then each run's start-up, warm-up and windows, with margin.
  const budgetS = 300 + selected.length * ROUNDS * SUBJECTS.length * (WARM + Math.max(2 * SECONDS, REQUEST_S) + 150);
  setTimeout(() => {
    console.error(`bench: not done within ${budgetS} s; giving up`);
    process.exit(1);
  }, budgetS * 1000).unref();
  // The exporter runs from dist/: always rebuild, so a stale build is never measured.
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2], timeout: 300_000 });
  rmSync(FLOOR_DIR, { recursive: true, force: true });
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const tscArgs = ['--outDir', FLOOR_DIR, '--rootDir', 'bench', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'];
  execFileSync(process.execPath, [tsc, ...tscArgs, '--lib', 'ES2023', '--types', 'node', '--strict', '--skipLibCheck', 'bench/floor.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
    timeout: 300_000,
  });
  if (args.busy) start('busy', process.execPath, ['-e', 'for (;;) {}'], process.env);
  const started = new Date();
  const summaries: Summary[] = [];
  for (const w of selected) {
    const subjects = SUBJECTS.map((subject): Summary => ({ workload: w.name, subject, rows: [] }));
    summaries.push(...subjects);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const s of subjects) {
        console.error(
          `bench: ${w.name}, ${s.subject}, round ${round} of ${ROUNDS} (${WARM} s warm-up, ${SECONDS} s scraped 2/s, ${SECONDS} s scraped once per 15 s)`,
        );
        s.rows.push(await runWorkload(w, s.subject, round));
      }
    }
  }
  const floorOf = (s: Summary): Summary | undefined => summaries.find((f) => f.subject === 'floor' && f.workload === s.workload);
  const name = (s: Summary): string =>
    s.subject === 'floor' ? `${s.workload}: Node floor` : s.subject === 'baseline' ? `${s.workload}: baseline` : s.workload;
  const rows = summaries.flatMap((s) => s.rows);
  const launch = args.plain ? `plain: ${nodeBin ?? 'node'} dist/exporter/cli.js` : `its shebang: ${readFileSync(CLI, 'utf8').split('\n', 1)[0]}`;
  const header =
    `Node ${rows[0]?.node ?? '?'}; the exporter${BASELINE_CLI ? `, the baseline (${args.baseline})` : ''} and the Node floor run by ${launch}; ${cpus()[0]?.model.trim() ?? '?'} × ${cpus().length}; ` +
    `${args.busy ? 'another process keeping one core busy; ' : ''}${ROUNDS} round(s) a workload, ${SUBJECTS.join(', ')} alternating; ${WARM} s warm-up, then ${SECONDS} s scraped 2/s with gzip and ${SECONDS} s scraped once per 15 s. ` +
    `Each figure: the median over the rounds (its range); ratios to the floor: each round's exporter over the floor run after it`;
  const failures: string[] = [];
  const lines = [
    header,
    '',
    'Scraped 2/s:',
    '',
    '| workload | series | RSS MiB | peak RSS MiB | CPU % of a core | RSS / floor | CPU / floor | scrape p99 ms | p99 during polls / idle |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...summaries.map((s) => {
      const during = s.rows.filter((r) => r.during);
      // The ratio over the rounds, then the medians it comes from: p99 during polls over how many scrapes / idle.
      const med = (f: (d: NonNullable<Row['during']>) => number, digits = 0): string => fmt(median(during.map((r) => f(r.during!))), digits);
      const d = during.length
        ? `${fmtSpread(spread(during.map((r) => r.during!.ratio)), 2)}; ${med((x) => x.p99ms, 1)} ms over ${med((x) => x.n)} / ${med((x) => x.idleP99ms, 1)} ms over ${med((x) => x.idleN)}`
        : '';
      const failed = s.rows.reduce((n, r) => n + r.failed, 0);
      const scrapes = s.rows.reduce((n, r) => n + r.scrapes, 0);
      const f = floorOf(s);
      return (
        `| ${name(s)} | ${fmtSpread(of(s, (r) => r.series))} | ${fmtSpread(of(s, (r) => r.rssMiB))} | ${fmtSpread(of(s, (r) => r.rssMaxMiB))} | ` +
        `${fmtSpread(
          of(s, (r) => r.cpuPct),
          1,
        )} | ${fmtSpread(
          toFloor(s, f, (r) => r.rssMiB),
          2,
        )} | ${fmtSpread(
          toFloor(s, f, (r) => r.cpuPct),
          2,
        )} | ` +
        `${fmtSpread(
          of(s, (r) => r.p99ms),
          1,
        )}${failed > 0 ? ` (${failed} of ${scrapes} scrapes failed)` : ''} | ${d} |`
      );
    }),
    '',
    "Scraped once per 15 s (Prometheus's default scrape_interval); CPU ms per scrape from the two windows' medians:",
    '',
    '| workload | RSS MiB | peak RSS MiB | CPU % of a core | RSS / floor | CPU / floor | CPU ms per scrape |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...summaries.map((s) => {
      const f = floorOf(s);
      const perScrape = cpuMsPerScrape(of(s, (r) => r.cpuPct).median, 1000 / SCRAPE_EVERY_MS, of(s, (r) => r.slow.cpuPct).median, 1000 / SCRAPE_SLOW_MS);
      return (
        `| ${name(s)} | ${fmtSpread(of(s, (r) => r.slow.rssMiB))} | ${fmtSpread(of(s, (r) => r.slow.rssMaxMiB))} | ${fmtSpread(
          of(s, (r) => r.slow.cpuPct),
          1,
        )} | ` +
        `${fmtSpread(
          toFloor(s, f, (r) => r.slow.rssMiB),
          2,
        )} | ${fmtSpread(
          toFloor(s, f, (r) => r.slow.cpuPct),
          2,
        )} | ${fmt(perScrape, 1)} |`
      );
    }),
    '',
    `Upstream requests a minute per endpoint, as the simulator served them (${REQUEST_S / 60} min from the end of each warm-up, over all rounds); the floor within ${RATE_TOLERANCE * 100}% of the exporter at every endpoint:`,
    '',
    '| workload | endpoint | exporter | floor | floor vs exporter |',
    '|---|---|---:|---:|---:|',
    ...summaries
      .filter((s) => s.subject === 'exporter')
      .flatMap((s) => {
        const f = floorOf(s);
        if (!f) return [];
        return compareRates(rates(s), rates(f), RATE_TOLERANCE).map((r) => {
          if (!r.ok) failures.push(`${s.workload}: ${r.endpoint}: the floor asks ${fmt(r.floor, 2)} a minute, the exporter ${fmt(r.exporter, 2)}`);
          const diff = Number.isFinite(r.diff) ? `${r.diff >= 0 ? '+' : ''}${fmt(r.diff * 100, 1)} %` : 'only the floor';
          return `| ${s.workload} | ${r.endpoint} | ${fmt(r.exporter, 2)} | ${fmt(r.floor, 2)} | ${diff}${r.ok ? '' : ' (differs)'} |`;
        });
      }),
  ];
  console.log(lines.join('\n'));
  for (const s of summaries.filter((x) => x.subject === 'exporter')) {
    const series = of(s, (r) => r.series).median;
    const floorSeries = floorOf(s) ? of(floorOf(s)!, (r) => r.series).median : NaN;
    if (Math.abs(floorSeries / series - 1) > SERIES_TOLERANCE) {
      console.error(
        `bench: ${s.workload}: the floor serves ${fmt(floorSeries)} series, the exporter ${fmt(series)} (more than ${SERIES_TOLERANCE * 100}% apart)`,
      );
    }
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: started.toISOString(),
        launch,
        plain: args.plain,
        baseline: args.baseline,
        busy: args.busy,
        cpus: cpus().length,
        model: cpus()[0]?.model,
        warmupS: WARM,
        seconds: SECONDS,
        rounds: ROUNDS,
        requestSeconds: REQUEST_S,
        pollTailMs: POLL_TAIL_MS,
        rows,
      },
      null,
      2,
    )}\n`,
  );
  console.error(`bench: wrote ${file}`);
  if (failures.length > 0) {
    console.error(`bench: the floor does not make the exporter's requests:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
