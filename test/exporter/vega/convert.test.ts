import { thrown } from '../../helpers/thrown.js';
import { describe, expect, it } from 'vitest';
import {
  amount,
  decimal,
  double,
  enumValue,
  headerU64,
  i32,
  i64,
  id,
  pathSegment,
  rfc3339Seconds,
  scaleExact,
  u64,
  unixNsSeconds,
} from '../../../src/exporter/vega/convert.js';
import { FieldError } from '../../../src/exporter/errors.js';

describe('converters', () => {
  it('uint64 strings stay exact through BigInt; the float comes last', () => {
    expect(u64('9007199254740993', 'f')).toBe(9007199254740993n);
    expect(u64('18446744073709551615', 'f')).toBe(2n ** 64n - 1n);
    expect(() => u64('18446744073709551616', 'f')).toThrow(FieldError);
    // Subtracting before converting keeps small differences of huge numbers exact.
    expect(Number(u64('9007199254740993', 'a') - u64('9007199254740990', 'b'))).toBe(3);
  });

  it.each([
    [12, 'a number'],
    ['-1', 'negative'],
    ['1.5', 'fraction'],
    ['', 'empty'],
    [null, 'null'],
  ] as [unknown, string][])('u64 rejects %j (%s) naming the field', (v) => {
    expect(() => u64(v, 'statistics.blockHeight')).toThrow(/statistics\.blockHeight: expected a uint64/);
  });

  it('int64 accepts negatives; int32 wants a JSON number in range', () => {
    expect(i64('-42', 'f')).toBe(-42n);
    expect(i32(7, 'f')).toBe(7);
    expect(i32(-1, 'f')).toBe(-1);
    expect(() => i32('7', 'f')).toThrow(FieldError);
    expect(() => i32(2 ** 31, 'f')).toThrow(FieldError);
  });

  it('amounts are decimal strings of any length, signed only where asked; "" is unset', () => {
    expect(amount('123456789123456789012345678901234567890', 'f')).toBe('123456789123456789012345678901234567890');
    expect(amount('-10000000000000000000', 'f', true)).toBe('-10000000000000000000');
    expect(amount('1234567890123456789012.5', 'f')).toBe('1234567890123456789012.5');
    expect(amount('', 'f')).toBeUndefined();
    for (const bad of ['-1', '1e5', ' 1', 12, null]) expect(() => amount(bad, 'f')).toThrow(FieldError);
  });

  it('scaling is exact on the decimal text, then rounded once to the nearest float64', () => {
    expect(scaleExact('123456789123456789012345678', 18)).toBe(123456789.12345679); // the example
    expect(scaleExact('123456789123456789012345678', 18)).toBe(Number('123456789.123456789012345678'));
    expect(scaleExact('-9223372036854775808', 4)).toBe(-922337203685477.6);
    expect(scaleExact('-1234567', -2)).toBe(-123456700);
    expect(scaleExact(9007199254740993n, 0)).toBe(9007199254740992); // tie to even
    // Two roundings (integer part, then fraction, as before) can miss the nearest double; one cannot:
    // 50065165791402324.7 is nearest 50065165791402328 (printed ...330), not ...320.
    expect(scaleExact('500651657914023247', 1)).toBe(50065165791402330);
    expect(Object.is(scaleExact('-0', 3), 0)).toBe(true);
  });

  it('doubles: JSON numbers, or the protobuf JSON strings for non-finite values', () => {
    expect(double(0.25, 'f')).toBe(0.25);
    expect(double('NaN', 'f')).toBeNaN();
    expect(double('Infinity', 'f')).toBe(Infinity);
    expect(double('-Infinity', 'f')).toBe(-Infinity);
    expect(double('1.5', 'f')).toBe(1.5);
    expect(() => double('nan', 'f')).toThrow(FieldError);
    expect(() => double(null, 'f')).toThrow(FieldError);
  });

  it('an id is any non-empty string: bad_id only for what can never be one, bad_field for another type', () => {
    for (const good of ['a'.repeat(64), 'network', 'n1', 'A'.repeat(64), 'AbC+/dE=', 'x'.repeat(200), 'ünï ✓ 🚀', '.', 'a b']) expect(id(good, 'f')).toBe(good);
    for (const bad of ['', 'a\nb', '\u0000', 'tab\there', '\u007f', '\u0085', 'x\ud800', '\udc00y'])
      expect(thrown(() => id(bad, 'f'))).toMatchObject({ reason: 'bad_id', field: 'f' });
    for (const wrong of [5, null, undefined, {}, ['a']]) expect(thrown(() => id(wrong, 'f'))).toMatchObject({ reason: 'bad_field', field: 'f' });
  });

  it('an id in a URL is one percent-encoded path segment; "." and ".." are not dot segments', () => {
    expect(pathSegment('a'.repeat(64))).toBe('a'.repeat(64));
    expect(pathSegment('AbC+/dE=')).toBe('AbC%2B%2FdE%3D');
    expect(pathSegment('a b?#%')).toBe('a%20b%3F%23%25');
    expect(pathSegment('.')).toBe('%2E');
    expect(pathSegment('..')).toBe('%2E%2E');
    expect(pathSegment('...')).toBe('...');
    for (const v of ['AbC+/dE=', 'ünï ✓ 🚀', '..']) expect(decodeURIComponent(pathSegment(v))).toBe(v);
  });

  it('RFC3339 with 0 to 9 fractional digits, to the nanosecond', () => {
    expect(rfc3339Seconds('2023-05-31T15:06:26Z', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000);
    expect(rfc3339Seconds('2023-05-31T15:06:26.5Z', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000 + 0.5);
    const v = rfc3339Seconds('2023-05-31T15:06:26.962283107Z', 'f')!;
    expect(v).toBeCloseTo(1685545586.9622831, 6);
    expect(rfc3339Seconds('2023-05-31T17:06:26+02:00', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000);
  });

  it('unset sentinels become undefined (absent), not 0', () => {
    expect(rfc3339Seconds('', 'f')).toBeUndefined();
    expect(rfc3339Seconds('0001-01-01T00:00:00Z', 'f')).toBeUndefined();
    expect(unixNsSeconds('0', 'f')).toBeUndefined();
    expect(unixNsSeconds('1727784000123456789', 'f')).toBeCloseTo(1727784000.1234567, 6);
    expect(decimal('', 'f')).toBeUndefined();
  });

  it('malformed times are errors naming the field', () => {
    expect(() => rfc3339Seconds('yesterday', 'statistics.vegaTime')).toThrow(/statistics\.vegaTime/);
    expect(() => rfc3339Seconds('2023-05-31T15:06:26.1234567890Z', 'f')).toThrow(FieldError);
    expect(() => rfc3339Seconds(12, 'f')).toThrow(FieldError);
  });

  it('enums are open-ended: an unknown name or an integer is data', () => {
    expect(enumValue('CHAIN_STATUS_FUTURE', 'f')).toBe('CHAIN_STATUS_FUTURE');
    expect(enumValue(99, 'f')).toBe('99');
    expect(() => enumValue(true, 'f')).toThrow(FieldError);
  });

  it('a missing or malformed header is unknown', () => {
    expect(headerU64(undefined)).toBeUndefined();
    expect(headerU64('abc')).toBeUndefined();
    expect(headerU64('18591101')).toBe(18591101n);
  });

  it('error messages describe the value, never quote it', () => {
    const err = thrown(() => u64('sim-swarm-key-secret', 'networkhistory.swarmKey'));
    expect(err.message).not.toContain('secret');
    expect(err.message).toContain('a string of 20 characters');
  });
});
