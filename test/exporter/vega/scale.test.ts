/** Decimal scaling: expected values are hand-written decimal strings turned into floats once. */
import { describe, expect, it } from 'vitest';
import { scaleExact as scaleDown } from '../../../src/exporter/vega/convert.js';
import { oneHot } from '../../../src/exporter/vega/scale.js';

describe('scaleExact', () => {
  it('positive decimals divide by 10^decimals, signs included', () => {
    expect(scaleDown(123456n, 2)).toBe(1234.56);
    expect(scaleDown(5n, 3)).toBe(0.005);
    expect(scaleDown(-15n, 1)).toBe(-1.5);
    expect(scaleDown(-5n, 3)).toBe(-0.005);
    expect(scaleDown(0n, 18)).toBe(0);
    expect(scaleDown(1000000000000000000n, 18)).toBe(1);
  });

  it('zero decimals is the integer itself', () => {
    expect(scaleDown(42n, 0)).toBe(42);
    expect(scaleDown(-42n, 0)).toBe(-42);
  });

  it('negative decimals multiply (a scale of -2 means hundreds)', () => {
    expect(scaleDown(123456789n, -2)).toBe(12345678900);
    expect(scaleDown(-7n, -3)).toBe(-7000);
  });

  it('values beyond 2^53 keep their digits until the final float', () => {
    // 2^53 + 1: Number(value) alone would already have lost the last digit.
    expect(scaleDown(9007199254740993n, 6)).toBe(Number('9007199254.740993'));
    expect(scaleDown(9007199254740993n, 8)).toBe(Number('90071992.54740993'));
    expect(scaleDown(9007199254740995n, 8)).toBe(Number('90071992.54740995'));
    expect(scaleDown(-9007199254740993n, 6)).toBe(Number('-9007199254.740993'));
  });

  it('values beyond 2^64 (asset amounts in 18-decimal units)', () => {
    expect(scaleDown(123456789012345678901n, 6)).toBe(Number('123456789012345.678901'));
    expect(scaleDown(123456789012345678901n, 1)).toBe(Number('12345678901234567890.1'));
    expect(scaleDown(123456789012345678901234567890n, 18)).toBe(Number('123456789012.345678901234567890'));
    expect(scaleDown(-123456789012345678901234567890n, 18)).toBe(Number('-123456789012.345678901234567890'));
    expect(scaleDown(18446744073709551617n, 18)).toBe(Number('18.446744073709551617'));
  });
});

describe('oneHot', () => {
  const known = ['STATE_ACTIVE', 'STATE_SUSPENDED', 'STATE_CLOSED'] as const;

  it('a known value: one series per known state, 1 on the current one, in the known order', () => {
    expect(oneHot(known, 'STATE_SUSPENDED')).toEqual([
      ['STATE_ACTIVE', 0],
      ['STATE_SUSPENDED', 1],
      ['STATE_CLOSED', 0],
    ]);
  });

  it('an unknown value is added at the end with 1; the known states stay at 0', () => {
    expect(oneHot(known, 'STATE_NEW_IN_V2')).toEqual([
      ['STATE_ACTIVE', 0],
      ['STATE_SUSPENDED', 0],
      ['STATE_CLOSED', 0],
      ['STATE_NEW_IN_V2', 1],
    ]);
    expect(known).toHaveLength(3); // the caller's list is not modified
  });
});
