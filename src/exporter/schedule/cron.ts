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
