import { thrown } from '../../helpers/thrown.js';
import { describe, expect, it } from 'vitest';
import { decimal, enumValue, headerU64, i64, rfc3339Seconds, u32, u64, unixNsSeconds } from '../../../src/exporter/upstream/convert.js';
import { FieldError } from '../../../src/exporter/errors.js';

describe('converters', () => {
  it('uint64 strings stay exact through BigInt; the float comes last', () => {
    expect(u64('9007199254740993', 'f')).toBe(9007199254740993n);
    expect(u64('18446744073709551615', 'f')).toBe(2n ** 64n - 1n);
    expect(() => u64('18446744073709551616', 'f')).toThrow(FieldError);
    // Subtracting before converting keeps small differences of huge numbers exact.
    expect(Number(u64('9007199254740993', 'a') - u64('9007199254740990', 'b'))).toBe(3);
  });

  it.each([[12, 'a number'], ['-1', 'negative'], ['1.5', 'fraction'], ['', 'empty'], [null, 'null']] as [unknown, string][])('u64 rejects %j (%s) naming the field', (v) => {
    expect(() => u64(v, 'statistics.blockHeight')).toThrow(/statistics\.blockHeight: expected a uint64/);
  });

  it('int64 accepts negatives; uint32 wants a JSON number', () => {
    expect(i64('-42', 'f')).toBe(-42n);
    expect(u32(7, 'f')).toBe(7);
    expect(() => u32('7', 'f')).toThrow(FieldError);
  });

  it('RFC3339 with 0 to 9 fractional digits, to the nanosecond', () => {
    expect(rfc3339Seconds('2023-05-31T15:06:26Z', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000);
    expect(rfc3339Seconds('2023-05-31T15:06:26.5Z', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000 + 0.5);
    const v = rfc3339Seconds('2023-05-31T15:06:26.962283107Z', 'f')!;
    expect(v).toBeCloseTo(1685545586.962283107, 6);
    expect(rfc3339Seconds('2023-05-31T17:06:26+02:00', 'f')).toBe(Date.UTC(2023, 4, 31, 15, 6, 26) / 1000);
  });

  it('unset sentinels become undefined (absent), not 0', () => {
    expect(rfc3339Seconds('', 'f')).toBeUndefined();
    expect(rfc3339Seconds('0001-01-01T00:00:00Z', 'f')).toBeUndefined();
    expect(unixNsSeconds('0', 'f')).toBeUndefined();
    expect(unixNsSeconds('1727784000123456789', 'f')).toBeCloseTo(1727784000.123456789, 6);
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
