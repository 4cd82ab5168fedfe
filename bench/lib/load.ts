/** Load and latency measurement: wrk for throughput, an open-loop sampler for scrape latency. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Rng } from '../../src/simulator/rng.js';

export interface LoadResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

function ms(v: string, unit: string): number {
  const n = Number(v);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

/** wrk -c<concurrency> for `seconds`, one thread (the machine has two cores: one for the server). */
export async function wrk(url: string, concurrency: number, seconds: number, gzip: boolean): Promise<LoadResult> {
  const args = ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--latency', '--timeout', '10s'];
  if (gzip) args.push('-H', 'Accept-Encoding: gzip');
  const { stdout } = await promisify(execFile)('wrk', [...args, url], { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const p = (q: string): number => {
    const m = new RegExp(`^\\s+${q}%\\s+([\\d.]+)(us|ms|s|m)$`, 'm').exec(stdout);
    return m ? ms(m[1]!, m[2]!) : NaN;
  };
  const errs = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const sockErr = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = Number(errs?.[1] ?? 0) + (sockErr ? sockErr.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, p50ms: p('50'), p99ms: p('99'), errors };
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export interface Latency {
  p50ms: number;
  p99ms: number;
  max: number;
  n: number;
  /** Every latency, sorted (to pool windows). */
  samples: number[];
}

function latencyOf(samples: number[]): Latency {
  samples.sort((a, b) => a - b);
  return { p50ms: quantile(samples, 0.5), p99ms: quantile(samples, 0.99), max: samples[samples.length - 1] ?? NaN, n: samples.length, samples };
}

/** Percentiles of latencies pooled from several windows. */
export function pooled(windows: readonly Latency[]): Latency {
  return latencyOf(windows.flatMap((w) => w.samples));
}

/**
 * How far a pooled p99 ratio (busy over idle) moves with the luck of the rounds: the 5th and 95th
 * percentiles of the ratio over `draws` resamples of the rounds with replacement, each round's
 * idle and busy windows kept together (they ran one after the other, under the same machine drift).
 * Seeded, so one set of windows always gives the same interval.
 */
export function roundsInterval(idle: readonly Latency[], busy: readonly Latency[], draws = 1000): [number, number] {
  const rng = new Rng(0x9e3779b9);
  const ratios: number[] = [];
  for (let d = 0; d < draws; d++) {
    const pick = Array.from(idle, () => rng.int(0, idle.length - 1));
    ratios.push(pooled(pick.map((k) => busy[k]!)).p99ms / pooled(pick.map((k) => idle[k]!)).p99ms);
  }
  ratios.sort((a, b) => a - b);
  return [quantile(ratios, 0.05), quantile(ratios, 0.95)];
}

/**
 * One scrape every `everyMs` for `seconds` (open loop, like Prometheus): latency percentiles. The
 * scrapes come from a process of their own (sampler.mjs): in this one, the benchmark's own
 * collections and work showed up as scrape latency.
 */
export async function sampleLatency(url: string, seconds: number, everyMs: number): Promise<Latency> {
  const sampler = fileURLToPath(new URL('./sampler.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [sampler, url, String(seconds), String(everyMs)], { maxBuffer: 64 << 20, timeout: (seconds + 60) * 1000 });
  return latencyOf(JSON.parse(stdout) as number[]);
}
