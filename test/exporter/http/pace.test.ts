/** Pacing: the token bucket (burst, then the rate; idle time never buys more than the burst) and sleep. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExporterError } from '../../../src/exporter/errors.js';
import { sleep, TokenBucket } from '../../../src/exporter/http/pace.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Start `n` takes at once; `done()` says how many have been granted so far. */
function takes(bucket: TokenBucket, n: number): { done: () => number; all: Promise<void[]> } {
  let granted = 0;
  const all = Promise.all(Array.from({ length: n }, () => bucket.take().then(() => void (granted += 1))));
  return { done: () => granted, all };
}

describe('TokenBucket', () => {
  it('grants the burst at once, then one token per 1/rate seconds', async () => {
    const b = new TokenBucket(10, 3); // 10/s: one token every 100 ms
    const t = takes(b, 6);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.done()).toBe(3);
    await vi.advanceTimersByTimeAsync(99);
    expect(t.done()).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.done()).toBe(4);
    await vi.advanceTimersByTimeAsync(200);
    expect(t.done()).toBe(6);
    await t.all;
  });

  it('idle time never adds more than the burst', async () => {
    const b = new TokenBucket(10, 3);
    await vi.advanceTimersByTimeAsync(60_000);
    const t = takes(b, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.done()).toBe(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(t.done()).toBe(4);
    await vi.advanceTimersByTimeAsync(100);
    expect(t.done()).toBe(5);
    await t.all;
  });

  it('a waiting take gives up with the signal reason', async () => {
    const b = new TokenBucket(1, 1);
    await b.take();
    const ac = new AbortController();
    const waiting = b.take(ac.signal);
    const reason = new ExporterError('POLL_TIMEOUT', 'deadline');
    ac.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('sleep', () => {
  it('resolves after the time', async () => {
    let done = false;
    const p = sleep(50).then(() => void (done = true));
    await vi.advanceTimersByTimeAsync(49);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    await p;
  });

  it('rejects with the reason when the signal aborts, and clears its timer', async () => {
    const ac = new AbortController();
    const p = sleep(10_000, ac.signal);
    const reason = new Error('stop');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const reason = new Error('already');
    await expect(sleep(10_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});
