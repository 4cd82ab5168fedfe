/** The held-answer budget: reservations, waits in order, releases, deadlines (fake timers). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ByteBudget } from '../../../src/exporter/http/budget.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const never = new AbortController().signal;
/** Whether `p` has settled after the microtasks queued so far. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('ByteBudget', () => {
  it('grants what fits at once; what does not waits for a release', async () => {
    const b = new ByteBudget(100);
    const r1 = await b.acquire(60, never, 'a');
    expect(b.held).toBe(60);
    const second = b.acquire(50, never, 'b');
    expect(await settled(second)).toBe(false);
    r1();
    expect(await settled(second)).toBe(true);
    expect(b.held).toBe(50);
  });

  it('serves waiters in order: a small request does not pass a large one waiting', async () => {
    const b = new ByteBudget(100);
    const r1 = await b.acquire(90, never, 'a');
    const order: string[] = [];
    const large = b.acquire(80, never, 'large').then((r) => (order.push('large'), r));
    const small = b.acquire(5, never, 'small').then((r) => (order.push('small'), r));
    expect(await settled(small)).toBe(false);
    r1();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['large', 'small']);
    expect(b.held).toBe(85);
    (await large)();
    (await small)();
    expect(b.held).toBe(0);
  });

  it('a release is counted once however often it is called', async () => {
    const b = new ByteBudget(100);
    const r = await b.acquire(40, never, 'a');
    r();
    r();
    expect(b.held).toBe(0);
  });

  it('more than the whole budget is reserved as the whole budget: it waits until nothing else is held', async () => {
    const b = new ByteBudget(100);
    const r1 = await b.acquire(10, never, 'a');
    const big = b.acquire(1_000, never, 'big');
    expect(await settled(big)).toBe(false);
    r1();
    (await big)();
    expect(b.held).toBe(0);
  });

  it('a wait ends at the deadline with UPSTREAM_TIMEOUT, and frees the line for those behind it', async () => {
    const b = new ByteBudget(100);
    const r1 = await b.acquire(50, never, 'a');
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('poll deadline')), 1_000);
    const blocked = b.acquire(80, ac.signal, 'markets');
    const behind = b.acquire(30, never, 'c');
    const outcome = blocked.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(blocked)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: 'UPSTREAM_TIMEOUT', message: expect.stringContaining('markets') });
    expect(await settled(behind)).toBe(true);
    expect(b.held).toBe(80);
    r1();
    expect(b.held).toBe(30);
  });

  it('an aborted signal is refused at once', async () => {
    const b = new ByteBudget(100);
    const ac = new AbortController();
    ac.abort();
    await expect(b.acquire(1, ac.signal, 'a')).rejects.toBeDefined();
    expect(b.held).toBe(0);
  });
});
