import { afterEach, describe, expect, it, vi } from 'vitest';
import { SIZE_FROM_BODY_BYTES, SIZE_FROM_SERIES, SPEED_BELOW_SERIES, SizeMode, upstreamBody } from '../../../src/exporter/process/size-mode.js';

const launched = ['--max-semi-space-size=1', '--optimize-for-size', '--expose-gc'];

describe('SizeMode', () => {
  it('turns the flag off at start, on from the upper bound, off again only below the lower one', () => {
    const set = vi.fn();
    const mode = new SizeMode(launched, set);
    expect(mode.current).toBe('size');
    mode.begin();
    expect(set).toHaveBeenLastCalledWith('--no-optimize-for-size');
    expect(mode.current).toBe('speed');
    expect(mode.update(1_100)).toBeUndefined();
    expect(mode.update(SIZE_FROM_SERIES - 1)).toBeUndefined();
    expect(mode.update(SIZE_FROM_SERIES)).toBe('size');
    expect(set).toHaveBeenLastCalledWith('--optimize-for-size');
    // Between the bounds it stays where it is, from either side.
    expect(mode.update(SPEED_BELOW_SERIES)).toBeUndefined();
    expect(mode.update(SPEED_BELOW_SERIES - 1)).toBe('speed');
    expect(set).toHaveBeenLastCalledWith('--no-optimize-for-size');
    expect(mode.update(SIZE_FROM_SERIES - 1)).toBeUndefined();
    expect(set).toHaveBeenCalledTimes(3);
  });

  it('leaves a process started without the flag as it was started', () => {
    const set = vi.fn();
    const mode = new SizeMode(['--expose-gc'], set);
    mode.begin();
    expect(mode.update(10)).toBeUndefined();
    expect(mode.update(1_000_000)).toBeUndefined();
    expect(mode.current).toBeUndefined();
    expect(set).not.toHaveBeenCalled();
  });

  it('switches once per crossing, not at every look', () => {
    const set = vi.fn();
    const mode = new SizeMode(launched, set);
    mode.begin();
    for (const n of [10_000, 12_000, 9_000, 5_000, 4_500, 4_000]) mode.update(n);
    expect(set.mock.calls.map((c) => c[0])).toEqual(['--no-optimize-for-size', '--optimize-for-size']);
  });
});

describe('SizeMode and upstream bodies', () => {
  afterEach(() => SizeMode.resetLatch());

  it('a large body turns size on before it is parsed, and keeps it on whatever the series count', () => {
    const set = vi.fn();
    const switched: [string, Record<string, number>][] = [];
    const mode = new SizeMode(launched, set, (m, cause) => switched.push([m, cause]));
    mode.begin();
    try {
      upstreamBody(SIZE_FROM_BODY_BYTES - 1);
      expect(mode.current).toBe('speed');
      upstreamBody(SIZE_FROM_BODY_BYTES);
      expect(mode.current).toBe('size');
      expect(set).toHaveBeenLastCalledWith('--optimize-for-size');
      expect(mode.update(10)).toBeUndefined();
      expect(mode.current).toBe('size');
      expect(switched).toEqual([
        ['speed', {}],
        ['size', { bytes: SIZE_FROM_BODY_BYTES }],
      ]);
    } finally {
      mode.end();
    }
  });

  it('bodies reach only the switch that began, until it ends', () => {
    const set = vi.fn();
    const mode = new SizeMode(launched, set);
    mode.begin();
    mode.end();
    upstreamBody(SIZE_FROM_BODY_BYTES * 10);
    expect(mode.current).toBe('speed');
    const never = new SizeMode(['--expose-gc'], set);
    never.begin();
    upstreamBody(SIZE_FROM_BODY_BYTES * 10);
    expect(never.current).toBeUndefined();
    expect(set).toHaveBeenCalledTimes(1);
  });

  it('a large body keeps size on across an exporter restart in the same process', () => {
    const set = vi.fn();
    const first = new SizeMode(launched, set);
    first.begin();
    upstreamBody(SIZE_FROM_BODY_BYTES);
    first.end();
    const second = new SizeMode(launched, set);
    second.begin();
    expect(second.current).toBe('size');
    expect(second.update(10)).toBeUndefined();
    expect(set.mock.calls.map((c) => c[0])).toEqual(['--no-optimize-for-size', '--optimize-for-size']);
    second.end();
  });
});
