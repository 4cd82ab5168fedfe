/**
 * One full garbage collection after a large change, when V8 would otherwise wait.
 *
 * A poll that replaces megabytes of series text leaves its parsed response, its samples and the
 * old text in V8's old space. Little is allocated after it, so V8 does not collect until its memory
 * reducer runs, seconds later, and resident memory stays high meanwhile; collecting right away is
 * cheap at the sizes one thread serves (docs/performance.md, "Memory"). Needs `--expose-gc`, which
 * the bin, `npm start` and the image pass; without it this does nothing. At most one collection
 * per interval, however busy the polls.
 *
 * A forced collection is not incremental: on the thread that serves scrapes it pauses them for as
 * long as it takes, and that grows with the heap. So the serving thread skips it above
 * `maxHeapBytes` (V8's own incremental collector copes there); the polling thread, whose pauses no
 * scrape waits for, collects at any size.
 *
 * With a growth budget it also collects once the heap has grown by that much since its last full
 * collection, whatever the changes were: the polling thread runs with V8's heap growth raised
 * (raiseHeapGrowth), and this bounds the garbage it keeps instead.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

type V8Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** The collector `--expose-gc` puts on the global object (undefined without the flag). */
const exposedGc = (): V8Gc | undefined => (globalThis as { gc?: V8Gc }).gc;

/** V8's collector with `--expose-gc`, called bare: one full collection, no compaction asked for. */
export function plainGc(gc: V8Gc | undefined = exposedGc()): (() => void) | undefined {
  return gc === undefined ? undefined : () => gc();
}

/**
 * A full collection that also gives emptied heap pages back. V8 12 (Node 22) and later take
 * options: 'last-resort' follows the collection with a second, compacting one, without which the
 * pages a large poll emptied stay committed and resident memory differs by several MiB from one
 * start to the next (docs/performance.md, "Node 24"). V8 11 (Node 20) reads an options object as a
 * request for a young-generation collection, so there it is called bare.
 */
export function compactingGc(gc: V8Gc | undefined = exposedGc(), v8Version: string = process.versions.v8): (() => void) | undefined {
  if (gc === undefined || Number(v8Version.split('.')[0]) < 12) return plainGc(gc);
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * V8's heap growth for the threaded exporter, as a percentage: a heap may grow to four times its
 * live size before V8 collects it in full. Under `--optimize-for-size` V8 allows 1.1-1.3 times, and
 * a poll that replaces its series leaves more garbage than that, so the polling thread's heap was
 * collected in full after nearly every poll, on V8's collector threads, in the cores a scrape
 * needs (docs/performance.md, "Polls and V8's heap growth").
 */
export const THREADED_HEAP_GROWING_PERCENT = 300;
/** What the polling thread's heap may grow by before it is collected in full (its GcHint's budget). */
export const POLLING_HEAP_GROWTH_BUDGET = 16 * 2 ** 20;

/**
 * Raise V8's heap growth, process-wide, before the polling thread starts: only with `--expose-gc`,
 * without which the polling thread could not bound its heap itself. V8 reads the setting at each
 * collection; the serving thread keeps little garbage.
 */
export function raiseHeapGrowth(gc: unknown = (globalThis as { gc?: unknown }).gc, set: (flags: string) => void = setFlagsFromString): boolean {
  if (typeof gc !== 'function') return false;
  set(`--heap-growing-percent=${THREADED_HEAP_GROWING_PERCENT}`);
  return true;
}

export interface GcHintOptions {
  /** Changed bytes of series text that justify a collection. */
  thresholdBytes: number;
  /**
   * Smaller changes are not counted: a thousand targets' small polls add up to the threshold every
   * few seconds, and a forced collection of their large heap costs far more than it returns.
   */
  minChangeBytes: number;
  minIntervalMs: number;
  /** No collection while V8's heap holds more than this. */
  maxHeapBytes: number;
  /** Collect once the heap has grown by this much since the last full collection (Infinity: never). */
  growthBudgetBytes: number;
  gc: (() => void) | undefined;
  heapBytes: () => number;
  now: () => number;
}

export class GcHint {
  private pending = 0;
  private last = -Infinity;
  private floor = Infinity;
  private timer: NodeJS.Timeout | undefined;
  private readonly o: GcHintOptions;
  /** Collections run so far (tests, benchmarks). */
  runs = 0;

  constructor(options: Partial<GcHintOptions> = {}) {
    this.o = {
      thresholdBytes: 1 << 20,
      minChangeBytes: 64 << 10,
      minIntervalMs: 5_000,
      maxHeapBytes: Infinity,
      growthBudgetBytes: Infinity,
      gc: compactingGc(),
      heapBytes: () => getHeapStatistics().used_heap_size,
      now: Date.now,
      ...options,
    };
  }

  /** Record a change of `bytes`; schedules a collection once enough has changed. */
  note(bytes: number): void {
    if (this.o.gc === undefined) return;
    if (this.o.growthBudgetBytes !== Infinity && this.overBudget()) {
      // Now, not after the interval: the budget is what bounds this heap.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.run(), 0);
      this.timer.unref();
      return;
    }
    if (bytes < this.o.minChangeBytes) return;
    this.pending += bytes;
    if (this.pending < this.o.thresholdBytes || this.timer !== undefined) return;
    // A timer, not a call: the poll that reported the change still holds its garbage on the stack.
    this.timer = setTimeout(() => this.run(), Math.max(0, this.last + this.o.minIntervalMs - this.o.now()));
    this.timer.unref();
  }

  /**
   * The heap's growth since the lowest size seen since the last full collection: V8's own
   * collections lower that floor too.
   */
  private overBudget(): boolean {
    const used = this.o.heapBytes();
    if (used < this.floor) this.floor = used;
    return used - this.floor > this.o.growthBudgetBytes;
  }

  private run(): void {
    this.timer = undefined;
    this.pending = 0;
    this.last = this.o.now();
    const heap = this.o.heapBytes();
    if (heap > this.o.maxHeapBytes) {
      this.floor = heap;
      return;
    }
    this.runs += 1;
    this.o.gc?.();
    this.floor = this.o.heapBytes();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
