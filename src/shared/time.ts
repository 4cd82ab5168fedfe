/** Time encodings used by the data-node API: unix nanoseconds and RFC3339 with 0-9 fractional digits. */

export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_MS = 1_000_000n;

/** The proto zero time, which real nodes send for an unset timestamp. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Format unix nanoseconds the way Go's time.RFC3339Nano does (UTC, trailing zeros trimmed). */
export function formatRfc3339Nano(ns: bigint): string {
  let secs = ns / NS_PER_SECOND;
  let frac = ns % NS_PER_SECOND;
  if (frac < 0n) {
    frac += NS_PER_SECOND;
    secs -= 1n;
  }
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  if (frac === 0n) return `${base}Z`;
  const digits = frac.toString().padStart(9, '0').replace(/0+$/, '');
  return `${base}.${digits}Z`;
}
