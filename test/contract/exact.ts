/**
 * Exact decimal arithmetic for the expected samples: every value is kept as an exact rational
 * (BigInt numerator / BigInt denominator) and rounded ONCE to the nearest float64
 * (round-half-to-even), without going through Number() on a long string.
 */

export interface Rat {
  n: bigint;
  d: bigint;
} // d > 0

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
};
export const rat = (n: bigint, d = 1n): Rat => {
  if (d === 0n) throw new Error('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};
export const sub = (a: Rat, b: Rat): Rat => rat(a.n * b.d - b.n * a.d, a.d * b.d);
export const pow10 = (k: bigint): bigint => 10n ** k;

/** "-123.0456" → exact rational */
export function parseDecimal(s: string): Rat {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(s);
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(s)}`);
  const frac = m[3] ?? '';
  const n = BigInt(m[2]! + frac) * (m[1] ? -1n : 1n);
  return rat(n, pow10(BigInt(frac.length)));
}

/** value / 10^exp, exp may be negative (position decimals) */
export function scaleDown(s: string, exp: bigint | number | string): Rat {
  const e = BigInt(exp);
  const v = parseDecimal(s);
  return e >= 0n ? rat(v.n, v.d * pow10(e)) : rat(v.n * pow10(-e), v.d);
}

/** unix nanoseconds (int64 string) → seconds */
export const nsToSeconds = (ns: string): Rat => scaleDown(ns, 9);

/** RFC3339 UTC ("Z") with 0-9 fractional digits → exact seconds since the epoch */
export function rfc3339ToSeconds(s: string): Rat {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z$/.exec(s);
  if (!m) throw new Error(`not RFC3339 UTC: ${s}`);
  const whole = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000; // integer, exact
  const frac = m[7] ?? '';
  return rat(BigInt(whole) * pow10(BigInt(frac.length)) + BigInt(frac || '0'), pow10(BigInt(frac.length)));
}

const bitLength = (x: bigint): number => x.toString(2).length;

/** The float64 nearest to n/d (ties to even). Normal range only (as every value here is). */
export function toFloat64(r: Rat): number {
  let { n } = r;
  const { d } = r;
  if (n === 0n) return 0;
  const neg = n < 0n;
  if (neg) n = -n;
  // choose e so that q = n / (d * 2^e) lies in [2^52, 2^53)
  let e = bitLength(n) - bitLength(d) - 53;
  for (;;) {
    const num = e < 0 ? n << BigInt(-e) : n;
    const den = e > 0 ? d << BigInt(e) : d;
    let q = num / den;
    const rem = num - q * den;
    if (q < 1n << 52n) {
      e -= 1;
      continue;
    }
    if (q >= 1n << 53n) {
      e += 1;
      continue;
    }
    const twice = 2n * rem;
    if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
    if (q === 1n << 53n) {
      q >>= 1n;
      e += 1;
    }
    if (e < -1074 + 52 || e > 971) throw new Error('outside the normal float64 range');
    const v = Number(q) * 2 ** e;
    return neg ? -v : v;
  }
}

/** Exact decimal expansion of a rational whose denominator divides a power of ten (all ours do). */
export function toExactDecimal(r: Rat): string {
  let { n } = r;
  const { d } = r;
  const neg = n < 0n;
  if (neg) n = -n;
  let k = 0n;
  while (pow10(k) % d !== 0n) {
    k += 1n;
    if (k > 400n) throw new Error('not a terminating decimal');
  }
  const scaled = n * (pow10(k) / d);
  let s = scaled.toString();
  if (k > 0n) {
    s = s.padStart(Number(k) + 1, '0');
    s = s.slice(0, s.length - Number(k)) + '.' + s.slice(s.length - Number(k));
    s = s.replace(/0+$/, '').replace(/\.$/, '');
  }
  return (neg ? '-' : '') + s;
}

/** The float64 as its shortest round-trip decimal (ECMAScript Number::toString). */
export const float64String = (x: number): string => String(x);
