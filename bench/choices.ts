/**
 * The measurements behind the remaining clever choices (docs/performance.md, "Choices"): the lean
 * imports of library internals, the V8 launch flags, and synchronous gzip. Each prints the choice
 * and its alternative side by side with their ratio, from the same run.
 */
import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import { LARGE_BODY_GZIP } from '../src/exporter/exposition/store.js';
import { LAUNCH_ENV, NODE_FLAGS } from '../src/exporter/process/launch.js';

type Log = (s: string) => void;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f = (n: number, d = 1): string => n.toFixed(d);

/** Lean loaders versus the packages' entry points: resident memory of a process that only loads them. */
export function importsChoice(log: Log, starts: number): Record<string, unknown> {
  const probe = (which: string): { rssMiB: number; heapMiB: number } =>
    JSON.parse(execFileSync(process.execPath, [...NODE_FLAGS, 'bench/lib/import-probe.mjs', which], { env: { ...process.env, ...LAUNCH_ENV }, encoding: 'utf8' })) as { rssMiB: number; heapMiB: number };
  const runs: Record<string, { rssMiB: number; heapMiB: number }[]> = { none: [], lean: [], entry: [], 'http-require': [], 'http-import': [] };
  // Interleaved, so machine noise falls on all three alike.
  for (let i = 0; i < starts; i++) for (const w of Object.keys(runs)) runs[w]!.push(probe(w));
  const row = (w: string) => ({ rssMiB: median(runs[w]!.map((r) => r.rssMiB)), heapMiB: median(runs[w]!.map((r) => r.heapMiB)) });
  const out = Object.fromEntries(Object.keys(runs).map((w) => [w, row(w)])) as Record<string, { rssMiB: number; heapMiB: number }>;
  log(`\n## Choice: lean imports of undici and prom-client, and node:http by require (${starts} starts each, median, shipped flags, Node ${process.version})`);
  log('| loaded | RSS MiB | heap MiB |');
  log('|---|---|---|');
  for (const [w, r] of Object.entries(out)) log(`| ${w} | ${f(r.rssMiB)} | ${f(r.heapMiB, 2)} |`);
  log(`entry points cost ${f(out.entry!.rssMiB - out.lean!.rssMiB)} MiB more resident memory than the lean loaders (ratio ${f(out.entry!.rssMiB / out.lean!.rssMiB, 2)})`);
  log(`import of node:http costs ${f(out['http-import']!.rssMiB - out['http-require']!.rssMiB)} MiB more than require (ratio ${f(out['http-import']!.rssMiB / out['http-require']!.rssMiB, 2)})`);
  return out;
}

/** Synchronous gzip (what the store does) versus the async API: time on the event loop and in all. */
export async function zlibChoice(log: Log, bodies: { series: number; body: Buffer }[], rounds: number): Promise<Record<string, unknown>[]> {
  const gzipAsync = promisify(gzip);
  const rows: Record<string, unknown>[] = [];
  log(`\n## Choice: synchronous gzip of the polled body (level 1, ${rounds} rounds each, median)`);
  log('| series | body MiB | sync: loop blocked ms | async: wall ms | async: longest loop stall ms | sync/async wall | default level ms | level 1 / default: time, size |');
  log('|---|---|---|---|---|---|---|---|');
  for (const { series, body } of bodies) {
    const sync: number[] = [];
    const wall: number[] = [];
    const stall: number[] = [];
    const level6: number[] = [];
    let sizes = [0, 0];
    for (let i = 0; i < rounds; i++) {
      const t6 = performance.now();
      const z6 = gzipSync(body);
      level6.push(performance.now() - t6);
      const t0 = performance.now();
      const z1 = gzipSync(body, LARGE_BODY_GZIP);
      sync.push(performance.now() - t0);
      sizes = [z1.length, z6.length];
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      const t1 = performance.now();
      await gzipAsync(body, LARGE_BODY_GZIP);
      wall.push(performance.now() - t1);
      h.disable();
      stall.push(h.max / 1e6);
    }
    const row = { series, bodyMiB: body.length / 2 ** 20, syncMs: median(sync), asyncWallMs: median(wall), asyncStallMs: median(stall), defaultLevelMs: median(level6), level1Bytes: sizes[0]!, defaultLevelBytes: sizes[1]! };
    rows.push(row);
    log(`| ${series} | ${f(row.bodyMiB, 2)} | ${f(row.syncMs)} | ${f(row.asyncWallMs)} | ${f(row.asyncStallMs)} | ${f(row.syncMs / row.asyncWallMs, 2)} | ${f(row.defaultLevelMs)} | ${f(row.syncMs / row.defaultLevelMs, 2)}, ${f(row.level1Bytes / row.defaultLevelBytes, 2)} |`);
  }
  return rows;
}

/** The launch flags' variants, from the shipped set down to V8's defaults. */
export const FLAG_VARIANTS: { name: string; flags: string[]; env: Record<string, string> }[] = [
  { name: 'shipped', flags: [...NODE_FLAGS], env: { ...LAUNCH_ENV } },
  // Candidates that trade CPU for memory on Node 22+ (no background GC/compiler threads; no TurboFan).
  { name: 'shipped + --single-threaded', flags: [...NODE_FLAGS, '--single-threaded'], env: { ...LAUNCH_ENV } },
  { name: 'shipped + --single-threaded --no-opt', flags: [...NODE_FLAGS, '--single-threaded', '--no-opt'], env: { ...LAUNCH_ENV } },
  { name: 'without --optimize-for-size', flags: NODE_FLAGS.filter((x) => x !== '--optimize-for-size'), env: { ...LAUNCH_ENV } },
  { name: 'V8 defaults (only --expose-gc)', flags: ['--expose-gc'], env: { ...LAUNCH_ENV } },
  { name: 'nothing (not even the mmap threshold)', flags: [], env: {} },
];
