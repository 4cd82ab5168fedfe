/**
 * Converters from the data node's JSON encodings to numbers. Each names the field on failure.
 * 64-bit integers go through BigInt so values beyond 2^53 stay exact until the final float.
 */
import { FieldError } from '../errors.js';
import { isId } from '../../shared/ids.js';
import { parseRfc3339Nano } from '../../shared/time.js';

const U64 = /^\d{1,20}$/;
const I64 = /^-?\d{1,19}$/;
const U64_MAX = 2n ** 64n - 1n;

export function u64(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !U64.test(v)) throw new FieldError(field, 'a uint64 decimal string', v);
  const n = BigInt(v);
  if (n > U64_MAX) throw new FieldError(field, 'a uint64 decimal string', v);
  return n;
}

export function i64(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !I64.test(v)) throw new FieldError(field, 'an int64 decimal string', v);
  return BigInt(v);
}

/** A proto int32 (the reference's "integer/int32"): a JSON integer in the signed 32-bit range. */
export function i32(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -0x8000_0000 || v > 0x7fff_ffff) throw new FieldError(field, 'an int32 number', v);
  return v;
}

export function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new FieldError(field, 'a string', v);
  return v;
}

/** A decimal string such as a fee factor ("0.0002"); an empty string is unset. */
export function decimal(v: unknown, field: string): number | undefined {
  if (v === '') return undefined;
  if (typeof v !== 'string' || !/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v)) throw new FieldError(field, 'a decimal string', v);
  return Number(v);
}

const UNSIGNED_AMOUNT = /^\d+(?:\.\d+)?$/;
const SIGNED_AMOUNT = /^-?\d+(?:\.\d+)?$/;

/**
 * An amount, price, PnL or fee: a decimal string of any length (no 64-bit bound: uint256 in core),
 * signed only where the field can be negative. Kept as its exact text; "" is unset (undefined).
 */
export function amount(v: unknown, field: string, signed = false): string | undefined {
  if (v === '') return undefined;
  if (typeof v !== 'string' || !(signed ? SIGNED_AMOUNT : UNSIGNED_AMOUNT).test(v)) {
    throw new FieldError(field, signed ? 'a signed decimal amount string' : 'an unsigned decimal amount string', v);
  }
  return v;
}

/**
 * value / 10^decimals as the float64 nearest the exact quotient (decimals may be negative). The
 * scaling is done on the decimal text (an exponent suffix), so Number() rounds once, correctly;
 * nothing is converted to a float before that.
 */
export function scaleExact(value: string | bigint, decimals: number): number {
  const s = typeof value === 'bigint' ? value.toString() : value;
  const dot = s.indexOf('.');
  const digits = dot < 0 ? s : s.slice(0, dot) + s.slice(dot + 1);
  const fraction = dot < 0 ? 0 : s.length - dot - 1;
  const x = Number(`${digits}e${-(BigInt(decimals) + BigInt(fraction))}`);
  return x === 0 ? 0 : x; // "-0" is zero, not negative zero
}

/**
 * A proto double: a JSON number, or the protobuf JSON strings "NaN", "Infinity", "-Infinity" (or a
 * quoted number). Non-finite values are returned as such: callers leave that series out.
 */
export function double(v: unknown, field: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  const d = typeof v === 'string' && v !== '' ? decimal(v, field) : undefined;
  if (d === undefined) throw new FieldError(field, 'a double (number, "NaN", "Infinity" or "-Infinity")', v);
  return d;
}

/**
 * An id: any non-empty string (src/shared/ids.ts says what can never be one). A value that is not
 * a string is a bad field (the wrong type); a string that can never be an id (empty, control
 * characters) is a bad id. As a label an id is bounded by the label cap (exposition/labels.ts); in
 * a URL it is one encoded path segment (pathSegment).
 */
export function id(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new FieldError(field, 'an id string', v);
  if (!isId(v)) throw new FieldError(field, 'a non-empty id without control characters', v, 'bad_id');
  return v;
}

/**
 * An id as one URL path segment: percent-encoded (encodeURIComponent), and "." and ".." (which a
 * URL parser or proxy would read as "this" and "parent" directory) with their dots encoded too.
 * The data node decodes it back to the id.
 */
export function pathSegment(v: string): string {
  return v === '.' || v === '..' ? v.replace(/\./g, '%2E') : encodeURIComponent(v);
}

/** An enum: its name, or an integer the node's descriptor did not know. Open-ended by design. */
export function enumValue(v: unknown, field: string): string {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  throw new FieldError(field, 'an enum name or number', v);
}

/** Unix nanoseconds to seconds: one correctly rounded conversion of the exact quotient. */
export function nsToSeconds(ns: bigint): number {
  return scaleExact(ns, 9);
}

/** A unix-nanosecond string; "0" means unset and gives undefined. */
export function unixNsSeconds(v: unknown, field: string): number | undefined {
  const ns = i64(v, field);
  return ns === 0n ? undefined : nsToSeconds(ns);
}

/**
 * An RFC3339 time with 0-9 fractional digits, as exact unix nanoseconds (src/shared/time.ts, every
 * field range-checked). "" and the proto zero time (year 1, "0001-01-01T00:00:00Z") mean unset and
 * give undefined.
 */
export function rfc3339Nanos(v: unknown, field: string): bigint | undefined {
  if (typeof v !== 'string') throw new FieldError(field, 'an RFC3339 time string', v);
  if (v === '') return undefined;
  const ns = parseRfc3339Nano(v);
  if (ns === undefined) throw new FieldError(field, 'an RFC3339 time string with every field in range', v);
  if (v.startsWith('0000-') || v.startsWith('0001-')) return undefined; // year 1: Go's zero time, i.e. unset
  return ns;
}

/** The same time as unix seconds (one rounding from the exact nanoseconds). */
export function rfc3339Seconds(v: unknown, field: string): number | undefined {
  const ns = rfc3339Nanos(v, field);
  return ns === undefined ? undefined : nsToSeconds(ns);
}

/** The JSON object at `field`, or a FieldError. */
export function obj(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new FieldError(field, 'an object', v);
  return v as Record<string, unknown>;
}

export function arr(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw new FieldError(field, 'an array', v);
  return v;
}

/** An HTTP header holding a decimal integer; missing or malformed gives undefined (unknown, not 0). */
export function headerU64(v: string | string[] | undefined): bigint | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || !U64.test(s)) return undefined;
  return BigInt(s);
}
