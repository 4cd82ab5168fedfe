/** The sizing bench's pure helpers (bench/run.ts); test/bench/stats.test.ts checks them. */

/** The p-th percentile (0–100) by nearest rank: a value that was measured. NaN without samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * utime + stime of a process, in clock ticks, from /proc/<pid>/stat (fields 14 and 15). Fields are
 * counted after the last ")", since the command name before it may hold spaces and parentheses.
 */
export function cpuTicks(stat: string): number {
  const fields = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (stat.lastIndexOf(')') < 0 || !Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error('not a /proc/<pid>/stat line');
  return utime + stime;
}

/** VmRSS in KiB, from /proc/<pid>/status. */
export function vmRssKiB(status: string): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!m) throw new Error('no VmRSS line in /proc/<pid>/status');
  return Number(m[1]);
}

/** Samples in an exposition body (text or OpenMetrics): lines that are neither blank nor comments. */
export function countSeries(body: string): number {
  let n = 0;
  for (const line of body.split('\n')) if (line !== '' && !line.startsWith('#')) n += 1;
  return n;
}

/** A poll: when it started and finished, in ms since the epoch. */
export type Window = [start: number, end: number];

const POLL_LINE = /^datanode_exporter_(network_)?collector_(duration_seconds|last_success_timestamp_seconds)(\{[^}\n]*\})? (\S+)/gm;

/**
 * Each collector's last successful poll, as the exporter reports it in a body:
 * [finish − duration, finish] from datanode_exporter_(network_)collector_last_success_timestamp_seconds and
 * datanode_exporter_(network_)collector_duration_seconds with the same labels.
 */
export function pollWindows(body: string): Window[] {
  const duration = new Map<string, number>();
  const finish = new Map<string, number>();
  for (const m of body.matchAll(POLL_LINE)) {
    const key = `${m[1] ?? ''}${m[3] ?? ''}`;
    (m[2] === 'duration_seconds' ? duration : finish).set(key, Number(m[4]));
  }
  const out: Window[] = [];
  for (const [key, t] of finish) {
    const d = duration.get(key);
    if (d !== undefined && Number.isFinite(d) && Number.isFinite(t)) out.push([(t - d) * 1000, t * 1000]);
  }
  return out;
}

/** Whether a scrape [start, end] overlaps a poll, or the `tailMs` after one (publishing its body). */
export function duringPoll(start: number, end: number, windows: Iterable<Window>, tailMs: number): boolean {
  for (const [ws, we] of windows) if (start <= we + tailMs && end >= ws) return true;
  return false;
}

/** CPU time (`ticks` of `clkTck` a second) over `seconds` of wall time, as % of one core. */
export function cpuPercent(ticks: number, clkTck: number, seconds: number): number {
  return (ticks / clkTck / seconds) * 100;
}

/** `value` over the floor's; NaN without a floor figure above zero (no floor row, or nothing measured). */
export function ratio(value: number, floor: number | undefined): number {
  return floor !== undefined && Number.isFinite(floor) && floor > 0 ? value / floor : NaN;
}

/**
 * CPU ms one scrape costs, from two windows of the same process at two scrape rates (per second):
 * the CPU (% of a core) they differ by, over the scrapes a second they differ by. Polls cost the same
 * in both, so they cancel out; noise can make it negative on a busy machine, and it is shown as measured.
 */
export function cpuMsPerScrape(fastPct: number, fastPerS: number, slowPct: number, slowPerS: number): number {
  return fastPerS > slowPerS ? (((fastPct - slowPct) / 100) * 1000) / (fastPerS - slowPerS) : NaN;
}

/**
 * What a `#!/usr/bin/env -S VAR=value … node --flag …` line sets: the environment before `node` and the
 * node options after it, so the floor starts as the exporter's bin does.
 */
export function shebangLaunch(line: string): { env: Record<string, string>; nodeArgs: string[] } {
  const m = /^#!\S*env\s+-S\s+(.*)$/.exec(line.trim());
  if (!m) return { env: {}, nodeArgs: [] };
  const words = m[1]!.split(/\s+/);
  const at = words.indexOf('node');
  if (at < 0) throw new Error(`no node in the shebang: ${line}`);
  const env: Record<string, string> = {};
  for (const w of words.slice(0, at)) {
    const eq = w.indexOf('=');
    if (eq <= 0) throw new Error(`not VAR=value before node in the shebang: ${w}`);
    env[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return { env, nodeArgs: words.slice(at + 1) };
}

/**
 * The floor's series (bench/floor.ts): the numeric leaves of a JSON value (numbers, and strings of
 * decimal digits as the data node sends amounts and heights), each with its path.
 */
export function numericLeaves(v: unknown, path: string, out: [string, number][]): [string, number][] {
  if (typeof v === 'number') out.push([path, v]);
  else if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) out.push([path, Number(v)]);
  else if (Array.isArray(v)) v.forEach((x, i) => numericLeaves(x, `${path}[${i}]`, out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) numericLeaves(x, path ? `${path}.${k}` : k, out);
  return out;
}

/** A figure over interleaved rounds: its median and its range. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** The median and range of the finite values (a round that measured nothing is left out). */
export function spread(values: readonly number[]): Spread {
  const v = values.filter(Number.isFinite);
  return { median: median(v), min: v.length ? Math.min(...v) : NaN, max: v.length ? Math.max(...v) : NaN, n: v.length };
}

/** Requests served per endpoint, as the simulator records them (GET /__sim/state `requests`). */
export type Requests = Record<string, number>;

/** What each endpoint was asked between two readings, summed over several simulated nodes (a fleet). */
export function requestsBetween(before: readonly Requests[], after: readonly Requests[]): Requests {
  const out: Requests = {};
  const add = (rs: readonly Requests[], sign: 1 | -1): void => {
    for (const r of rs) for (const [endpoint, n] of Object.entries(r)) out[endpoint] = (out[endpoint] ?? 0) + sign * n;
  };
  add(after, 1);
  add(before, -1);
  return out;
}

/**
 * The seconds over which upstream requests are counted: whole minutes (at least one) within the
 * measured windows, so that every default interval (15, 30, 60 s) fires a whole number of times
 * in it whatever its phase. Past the measured windows when they are shorter than a minute.
 */
export function requestWindowSeconds(measuredSeconds: number): number {
  return 60 * Math.max(1, Math.floor(measuredSeconds / 60));
}

export interface RateRow {
  endpoint: string;
  /** Requests a minute. */
  exporter: number;
  floor: number;
  /** (floor − exporter) / exporter; Infinity when only the floor asked. */
  diff: number;
  ok: boolean;
}

/**
 * Each endpoint's requests a minute for both subjects (`requests` over `minutes` each), in endpoint
 * order; an endpoint is ok when the floor's rate is within `tolerance` (a fraction) of the exporter's.
 */
export function compareRates(exporter: { requests: Requests; minutes: number }, floor: { requests: Requests; minutes: number }, tolerance: number): RateRow[] {
  const endpoints = [...new Set([...Object.keys(exporter.requests), ...Object.keys(floor.requests)])].sort();
  return endpoints.map((endpoint) => {
    const e = (exporter.requests[endpoint] ?? 0) / exporter.minutes;
    const f = (floor.requests[endpoint] ?? 0) / floor.minutes;
    const diff = e === 0 ? (f === 0 ? 0 : Infinity) : (f - e) / e;
    return { endpoint, exporter: e, floor: f, diff, ok: Math.abs(diff) <= tolerance };
  });
}

/** A floor sample: its labels and value. */
export type FloorSample = [labels: Record<string, string>, value: number];

/**
 * Whether a poll's samples are the ones held (same labels and values, in order): the floor then keeps
 * the family's text rendered from them instead of rendering it again.
 */
export function sameSamples(a: readonly FloorSample[], b: readonly FloorSample[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const [la, va] = a[i]!;
    const [lb, vb] = b[i]!;
    if (va !== vb && !(Number.isNaN(va) && Number.isNaN(vb))) return false;
    const ka = Object.keys(la);
    if (ka.length !== Object.keys(lb).length || ka.some((k) => la[k] !== lb[k])) return false;
  }
  return true;
}
