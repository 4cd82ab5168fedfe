import { describe, expect, it } from 'vitest';
import { pooled, roundsInterval, type Latency } from '../../bench/lib/load.js';

/** A window whose latencies are exactly these (sorted), as the sampler would report them. */
const windowOf = (samples: number[]): Latency => pooled([{ p50ms: NaN, p99ms: NaN, max: NaN, n: samples.length, samples }]);
/** 100 scrapes: 1, 2, ..., 100 ms times `scale` (p99 is the 100th: 100 × scale). */
const hundred = (scale: number): Latency => windowOf(Array.from({ length: 100 }, (_, k) => (k + 1) * scale));

describe('roundsInterval (the during-polls ratio over resampled rounds)', () => {
  it('is a single point when every round is the same', () => {
    const rounds = 6;
    const idle = Array.from({ length: rounds }, () => hundred(1));
    const busy = Array.from({ length: rounds }, () => hundred(2));
    expect(roundsInterval(idle, busy)).toEqual([2, 2]);
  });

  it('stays within the ratios the rounds can give, and is the same on every call (seeded)', () => {
    // Round 0: ratio 3 (busy p99 300 / idle p99 100); round 1: ratio 1 (200 / 200).
    const idle = [hundred(1), hundred(2)];
    const busy = [hundred(3), hundred(2)];
    const [lo, hi] = roundsInterval(idle, busy);
    // Each resample is rounds {0,0} (ratio 3), {1,1} (ratio 1) or one of each: pooled over 200
    // scrapes the p99 is the 199th, 297 ms busy against 198 ms idle, ratio 1.5.
    expect([1, 1.5, 3]).toContain(lo);
    expect([1, 1.5, 3]).toContain(hi);
    expect(lo).toBeLessThan(hi);
    expect(roundsInterval(idle, busy)).toEqual([lo, hi]);
  });
});
