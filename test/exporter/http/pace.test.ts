/** Pacing: the token bucket (burst, then the rate; idle time never buys more than the burst). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExporterError } from '../../../src/exporter/errors.js';
import { TokenBucket } from '../../../src/exporter/http/pace.js';

// vitest's fake timers replace the global setTimeout but not node:timers/promises, which the bucket
// waits with: its setTimeout is routed through the global one here, so the fake clock drives it.
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: (ms: number, value: unknown, opts?: { signal?: AbortSignal }): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const signal = opts?.signal;
      if (signal?.aborted) return reject(new DOMException('The operation was aborted', 'AbortError'));
      const t = setTimeout(() => resolve(value), ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), reject(new DOMException('The operation was aborted', 'AbortError'))), { once: true });
    }),
}));

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
