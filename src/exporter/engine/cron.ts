import { fnv1a } from '../hash.js';

/**
 * A node-cron (6-field) expression that fires every `ms`, aligned to the clock; undefined when
 * the interval does not divide a minute, an hour or a day evenly.
 */
export function intervalToCron(ms: number): string | undefined {
  if (ms % 1000 !== 0) return undefined;
  const s = ms / 1000;
  if (s < 60) return 60 % s === 0 ? (s === 1 ? '* * * * * *' : `*/${s} * * * * *`) : undefined;
  if (s % 60 !== 0) return undefined;
  const m = s / 60;
  if (m < 60) return 60 % m === 0 ? (m === 1 ? '0 * * * * *' : `0 */${m} * * * *`) : undefined;
  if (m % 60 !== 0) return undefined;
  const h = m / 60;
  if (h < 24) return 24 % h === 0 ? (h === 1 ? '0 0 * * * *' : `0 0 */${h} * * *`) : undefined;
  return h === 24 ? '0 0 0 * * *' : undefined;
}

/** Every interval intervalToCron accepts, as an operator writes it ("15s", "5m", "24h"). */
export const SCHEDULABLE_INTERVALS: readonly string[] = [
  ...[...Array(59).keys()]
    .map((i) => i + 1)
    .filter((s) => intervalToCron(s * 1000))
    .map((s) => `${s}s`),
  ...[...Array(59).keys()]
    .map((i) => i + 1)
    .filter((m) => intervalToCron(m * 60_000))
    .map((m) => `${m}m`),
  ...[...Array(24).keys()]
    .map((i) => i + 1)
    .filter((h) => intervalToCron(h * 3_600_000))
    .map((h) => `${h}h`),
];

/**
 * Where in its interval a poll fires: a hash of its identity (`target/collector`), as Prometheus
 * offsets its scrapes. It depends on nothing else, so a reload keeps an unchanged target's polls
 * where they were, and N targets land spread over the interval instead of all at :00.
 */
export function stableOffset(identity: string, intervalMs: number): number {
  let h = fnv1a(identity);
  // FNV-1a alone leaves names that differ only in their last character close together: finish
  // with murmur3's avalanche so consecutive names (dn-001, dn-002, ...) scatter.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) % intervalMs;
}

export interface SpreadSchedule {
  /** Fires on the whole second of the offset, every interval. */
  expression: string;
  /** The sub-second rest of the offset, waited inside the tick (cron has no finer field). */
  delayMs: number;
  offsetMs: number;
}

/** Every `step` from `first` within a field of `size` values, as a cron list ('*' when that is all of them). */
function every(first: number, step: number, size: number): string {
  if (step === 1) return '*';
  const out: number[] = [];
  for (let v = first; v < size; v += step) out.push(v);
  return out.join(',');
}

/**
 * The clock-aligned schedule of `intervalMs` shifted by `offsetMs` (0 ≤ offset < interval):
 * polls fire at t ≡ offset (mod interval) in wall-clock time. Undefined for the intervals
 * intervalToCron refuses: an offset list is only periodic when the interval divides its field.
 */
export function spreadSchedule(intervalMs: number, offsetMs: number): SpreadSchedule | undefined {
  if (!intervalToCron(intervalMs) || offsetMs < 0 || offsetMs >= intervalMs) return undefined;
  const s = intervalMs / 1000;
  const off = Math.floor(offsetMs / 1000);
  const delayMs = offsetMs % 1000;
  const sec = off % 60;
  const min = Math.floor(off / 60) % 60;
  const hour = Math.floor(off / 3600);
  let expression: string;
  if (s < 60) expression = `${every(off, s, 60)} * * * * *`;
  else if (s < 3600) expression = `${sec} ${every(Math.floor(off / 60), s / 60, 60)} * * * *`;
  else expression = `${sec} ${min} ${every(hour, s / 3600, 24)} * * *`;
  return { expression, delayMs, offsetMs };
}
