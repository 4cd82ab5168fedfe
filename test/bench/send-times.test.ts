import { describe, expect, it } from 'vitest';
import { stratified } from '../../bench/lib/send-times.mjs';
import { Rng } from '../../src/simulator/rng.js';

/** How many of `times` fall in each `bandMs` band of a `periodMs` cycle (the phase to a poll's period). */
function phaseBands(times: number[], periodMs: number, bandMs: number): number[] {
  const bands = new Array<number>(periodMs / bandMs).fill(0);
  for (const t of times) bands[Math.floor((((t % periodMs) + periodMs) % periodMs) / bandMs)]! += 1;
  return bands;
}

describe('stratified send times (the latency sampler)', () => {
  const rng = new Rng(7);
  const random = (): number => rng.float();

  it('sends one scrape in each slot, in order', () => {
    const at = stratified(1_000, 20, random);
    for (let k = 0; k < 1_500; k++) {
      expect(at(k)).toBeGreaterThanOrEqual(1_000 + k * 20);
      expect(at(k)).toBeLessThan(1_000 + (k + 1) * 20);
    }
  });

  it('meets every phase of a one-second poll evenly in one 30 s window, where a fixed 20 ms period meets one point of each 20 ms band', () => {
    const at = stratified(0, 20, random);
    const times = Array.from({ length: 1_500 }, (_, k) => at(k));
    // 1,500 scrapes over 200 bands of 5 ms: 7.5 each on average. A fixed period puts all 30 of a
    // band's visits at one point of the 20 ms that hold it, so 3 of every 4 bands get none.
    const bands = phaseBands(times, 1_000, 5);
    expect(Math.min(...bands)).toBeGreaterThan(0);
    expect(Math.max(...bands)).toBeLessThan(7.5 * 3);
    // With no randomness the same function is the fixed period the sampler had before.
    const atFixed = stratified(0, 20, () => 0);
    const fixed = phaseBands(Array.from({ length: 1_500 }, (_, k) => atFixed(k)), 1_000, 5);
    expect(fixed.filter((n) => n === 0)).toHaveLength(150);
  });
});
