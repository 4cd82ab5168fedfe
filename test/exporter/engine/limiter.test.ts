import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../src/exporter/engine/limiter.js';

describe('Limiter', () => {
  it('runs at most max jobs at once, the rest in arrival order', async () => {
    const limiter = new Limiter(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const job = (i: number) => () =>
      new Promise<number>((resolve) => {
        active += 1;
        peak = Math.max(peak, active);
        order.push(i);
        releases.push(() => {
          active -= 1;
          resolve(i);
        });
      });
    const done = [0, 1, 2, 3, 4].map((i) => limiter.run(job(i)));
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    expect(limiter.queued).toBe(3);
    releases.shift()!();
    // A newcomer arriving while others wait goes behind them.
    const late = limiter.run(job(5));
    for (let k = 0; k < 10 && releases.length > 0; k++) {
      await new Promise((r) => setTimeout(r, 0));
      releases.shift()?.();
    }
    while (releases.length > 0 || limiter.queued > 0) {
      await new Promise((r) => setTimeout(r, 0));
      releases.shift()?.();
    }
    expect(await Promise.all([...done, late])).toEqual([0, 1, 2, 3, 4, 5]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
  });

  it('frees the slot when a job fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(() => Promise.resolve('next'))).toBe('next');
  });
});
