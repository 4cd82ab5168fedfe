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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in month `m` (1-12) of year `y`. */
function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/**
 * An RFC 3339 time with 0-9 fractional digits as exact unix nanoseconds, or undefined when the text
 * is not one. Every field is range-checked (RFC 3339 section 5.7): month 1-12, the day within its
 * month (leap years included), hour 0-23, minute 0-59, second 0-59, zone offset up to 23:59. A leap
 * second (:60) is refused: protobuf timestamps smear leap seconds and Go's parser refuses :60, so a
 * node never sends one. Nothing out of range ever rolls over into another date.
 */
export function parseRfc3339Nano(v: string): bigint | undefined {
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const zh = Number(zone!.slice(1, 3));
    const zm = Number(zone!.slice(4, 6));
    if (zh > 23 || zm > 59) return undefined;
    offsetMinutes = (zone![0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC: it maps years 0-99 to 1900-1999
  date.setUTCHours(hour, minute - offsetMinutes, second);
  return BigInt(date.getTime()) * NS_PER_MS + BigInt((frac ?? '').padEnd(9, '0'));
}
