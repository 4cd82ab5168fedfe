import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { GcHint, compactingGc, raiseHeapGrowth } from '../../../src/exporter/process/gc-hint.js';
import { SeriesStore } from '../../../src/exporter/exposition/store.js';
import { M } from '../../../src/exporter/exposition/catalogue.js';

describe('compactingGc', () => {
  it('passes the last-resort options to V8 12 and later, and nothing to V8 11', () => {
    const gc = vi.fn();
    compactingGc(gc, '11.3.244.8-node.33')!();
    expect(gc).toHaveBeenLastCalledWith();
    compactingGc(gc, '13.6.233.17-node.40')!();
    expect(gc).toHaveBeenLastCalledWith({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    expect(compactingGc(undefined)).toBeUndefined();
  });

  it("makes this Node's V8 run full collections, not a young-generation one", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) kinds.push((e as unknown as { detail: { kind: number } }).detail.kind);
    });
    observer.observe({ entryTypes: ['gc'] });
    compactingGc(gc)!();
    await new Promise((r) => setTimeout(r, 50));
    observer.disconnect();
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds.every((k) => k === constants.NODE_PERFORMANCE_GC_MAJOR)).toBe(true);
  });
});

describe('GcHint', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collects once enough has changed, after the caller returns, at most once per interval', () => {
    const gc = vi.fn();
    const hint = new GcHint({ thresholdBytes: 1000, minChangeBytes: 100, minIntervalMs: 5000, gc, now: () => Date.now() });
    hint.note(99);
    hint.note(99);
    vi.advanceTimersByTime(10);
    expect(gc).not.toHaveBeenCalled(); // small changes are not counted
    hint.note(600);
    vi.advanceTimersByTime(10);
    expect(gc).not.toHaveBeenCalled(); // below the threshold
    hint.note(600);
    expect(gc).not.toHaveBeenCalled(); // never inside the caller
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1);
    hint.note(5000);
    vi.advanceTimersByTime(4000);
    expect(gc).toHaveBeenCalledTimes(1); // the interval has not passed
    hint.note(5000); // coalesced into the scheduled one
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(2);
    expect(hint.runs).toBe(2);
  });

  it('does nothing without gc, and cancel drops a scheduled collection', () => {
    const none = new GcHint({ thresholdBytes: 1, minChangeBytes: 0, gc: undefined });
    none.note(10);
    vi.advanceTimersByTime(10_000);
    expect(none.runs).toBe(0);
    const gc = vi.fn();
    const hint = new GcHint({ thresholdBytes: 1, minChangeBytes: 0, gc });
    hint.note(10);
    hint.cancel();
    vi.advanceTimersByTime(10_000);
    expect(gc).not.toHaveBeenCalled();
  });

  it('skips the collection while the heap is larger than allowed', () => {
    const gc = vi.fn();
    let heap = 100;
    const hint = new GcHint({ thresholdBytes: 1, minChangeBytes: 0, minIntervalMs: 0, maxHeapBytes: 50, gc, heapBytes: () => heap });
    hint.note(10);
    vi.advanceTimersByTime(0);
    expect(gc).not.toHaveBeenCalled();
    heap = 40;
    hint.note(10);
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('with a growth budget, collects at once when the heap has grown past it, whatever the changes', () => {
    const gc = vi.fn(() => void (heap = 30));
    let heap = 30;
    // Small changes only, far below the threshold: without the budget nothing would ever run.
    const hint = new GcHint({ thresholdBytes: 1e12, minChangeBytes: 1e9, minIntervalMs: 5000, growthBudgetBytes: 16, gc, heapBytes: () => heap });
    hint.note(1); // the floor: 30
    heap = 46;
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).not.toHaveBeenCalled(); // grown by 16, not more
    heap = 47;
    hint.note(1);
    expect(gc).not.toHaveBeenCalled(); // never inside the caller
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1); // no interval to wait for
    // The floor is the heap after that collection (30); V8's own collections lower it too.
    heap = 20;
    hint.note(1);
    heap = 37;
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(2); // 17 over the lowered floor of 20, not 7 over 30
  });

  it('measures the budget from the heap after the forced collection, however large that is', () => {
    let heap = 30;
    const gc = vi.fn(() => void (heap = 50)); // more is live after it than the floor before
    const hint = new GcHint({ thresholdBytes: 1e12, minChangeBytes: 1e9, growthBudgetBytes: 16, budgetCheckMs: 1e9, gc, heapBytes: () => heap });
    hint.note(1);
    heap = 47;
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1);
    heap = 60; // 30 over the old floor, 10 over the new one
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('collects once for several changes over budget, ahead of a pending interval, and checks without changes', () => {
    let heap = 10;
    const gc = vi.fn(() => void (heap = 10));
    const hint = new GcHint({ thresholdBytes: 100, minChangeBytes: 0, minIntervalMs: 5000, growthBudgetBytes: 16, budgetCheckMs: 1000, gc, heapBytes: () => heap, now: () => Date.now() });
    hint.note(100); // the threshold path: due at once (no collection yet)
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(1);
    hint.note(100); // due 5 s after that one
    heap = 30;
    hint.note(1);
    hint.note(1);
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).toHaveBeenCalledTimes(2); // at once, once, and the pending one was replaced
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(2);
    heap = 27; // no change noted: the periodic check finds it (its collection 1 ms later: a timer set within a tick)
    vi.advanceTimersByTime(1001);
    expect(gc).toHaveBeenCalledTimes(3);
    hint.cancel(); // and after a cancel nothing more runs
    heap = 100;
    hint.note(1e9);
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(3);
  });

  it('does not collect over budget while the heap is above its maximum, and waits for another budget', () => {
    let heap = 10;
    const gc = vi.fn();
    const hint = new GcHint({ thresholdBytes: 1e12, minChangeBytes: 1e9, maxHeapBytes: 20, growthBudgetBytes: 5, budgetCheckMs: 1e9, gc, heapBytes: () => heap });
    hint.note(1);
    heap = 21;
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(gc).not.toHaveBeenCalled();
    heap = 25; // 4 over the new floor of 21
    hint.note(1);
    vi.advanceTimersByTime(0);
    expect(hint.runs).toBe(0);
  });

  it('without the budget, heap growth alone schedules nothing', () => {
    const gc = vi.fn();
    let heap = 0;
    const heapBytes = vi.fn(() => heap);
    const hint = new GcHint({ thresholdBytes: 1e12, minChangeBytes: 1e9, budgetCheckMs: 10, gc, heapBytes });
    hint.note(1);
    heap = 1e12;
    hint.note(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).not.toHaveBeenCalled();
    expect(heapBytes).not.toHaveBeenCalled(); // not even sampled: no cost per change
  });

  it('is told the size of the text each store change replaced', () => {
    const notes: number[] = [];
    const store = new SeriesStore();
    store.gcHint = { note: (n: number) => notes.push(n) } as unknown as GcHint;
    store.set({ scope: 'target', id: 'a', source: 'test' }, [{ metric: M.up, values: ['t1'], value: 1 }], 0, Infinity);
    expect(notes).toEqual([Buffer.byteLength('vega_up{target="t1"} 1\n')]);
  });
});

describe('raiseHeapGrowth', () => {
  it('raises V8\'s heap growth only when this process can collect on demand', () => {
    const set = vi.fn();
    expect(raiseHeapGrowth(undefined, set)).toBe(false);
    expect(set).not.toHaveBeenCalled();
    expect(raiseHeapGrowth(() => {}, set)).toBe(true);
    expect(set).toHaveBeenCalledWith('--heap-growing-percent=300');
  });
});
