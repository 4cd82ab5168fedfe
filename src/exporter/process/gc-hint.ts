/**
 * One full garbage collection after a large change, when V8 would otherwise wait.
 *
 * A poll that replaces megabytes of series text leaves its parsed response, its samples and the
 * old text in V8's old space. Little is allocated after it, so V8 does not collect until its memory
 * reducer runs, seconds later, and resident memory stays high meanwhile; collecting right away is
 * cheap at the sizes one thread serves (docs/performance.md, "Memory"). Needs `--expose-gc`, which
 * the bin, `npm start` and the image pass; without it this does nothing. At most one collection
 * per interval for changes, however busy the polls.
 *
 * A forced collection is not incremental: on the thread that serves scrapes it pauses them for as
 * long as it takes, and that grows with the heap. So the serving thread skips it above
 * `maxHeapBytes` (V8's own incremental collector copes there); the polling thread, whose pauses no
 * scrape waits for, collects at any size.
 *
 * With a growth budget it also collects, at once and whatever the changes were, once the heap has
 * grown by that much over its lowest sampled size since the last forced collection: the polling
 * thread runs with V8's heap growth raised (raiseHeapGrowth), and this bounds its heap instead. A
 * poll that alone leaves more than the budget (above ~100,000 series) gets a collection after it,
 * as V8 gave it before; that case was not measured with the budget.
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
 * live size before V8 collects it in full. Under `--optimize-for-size` V8 allowed 1.1-1.4 times, and
 * a poll that replaces its series leaves more garbage than that, so the polling thread's heap was
 * collected in full after nearly every poll, on V8's collector threads, in the cores a scrape
 * needs (docs/performance.md, "Polls and V8's heap growth").
 */
export const THREADED_HEAP_GROWING_PERCENT = 300;
/** What the polling thread's heap may grow by before it is collected in full (its GcHint's budget). */
export const POLLING_HEAP_GROWTH_BUDGET = 16 * 2 ** 20;
/**
 * The same for the serving thread of the threaded exporter: under the raised heap growth a thousand
 * targets' snapshots (each a copy of every runner's status) let its heap grow well past this before
 * V8 collected it, and resident memory with it (docs/performance.md, "Fleet").
 */
export const SERVING_HEAP_GROWTH_BUDGET = 16 * 2 ** 20;

/**
 * Raise V8's heap growth, process-wide, before the polling thread starts: only with `--expose-gc`,
 * without which the polling thread could not bound its heap itself. V8 reads the setting each time
 * it sets a heap's limit, so it applies to the serving thread too, which bounds its heap with a
 * budget of its own (SERVING_HEAP_GROWTH_BUDGET).
 */
export function raiseHeapGrowth(gc: unknown = exposedGc(), set: (flags: string) => void = setFlagsFromString): boolean {
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
  /**
   * Collect once the heap (live data and garbage) has grown by this much over the lowest size
   * sampled since the last forced collection (Infinity: never), checked at each change and every
   * `budgetCheckMs`.
   */
  growthBudgetBytes: number;
  budgetCheckMs: number;
  gc: (() => void) | undefined;
  heapBytes: () => number;
  now: () => number;
}

export class GcHint {
  private pending = 0;
  private last = -Infinity;
  /** The lowest heap size sampled since the last forced collection. */
  private floor = Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** The scheduled collection is the budget's (due at once), not the threshold's. */
  private immediate = false;
  private stopped = false;
  private readonly watch: NodeJS.Timeout | undefined;
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
      budgetCheckMs: 1_000,
      gc: compactingGc(),
      heapBytes: () => getHeapStatistics().used_heap_size,
      now: Date.now,
      ...options,
    };
    // The heap can grow without a change to the store (probes render stores of their own).
    if (this.o.gc !== undefined && this.o.growthBudgetBytes !== Infinity) {
      this.watch = setInterval(() => this.checkBudget(), this.o.budgetCheckMs);
      this.watch.unref();
    }
  }

  /** Record a change of `bytes`; schedules a collection once enough has changed. */
  note(bytes: number): void {
    if (this.o.gc === undefined || this.stopped) return;
    if (this.checkBudget() || bytes < this.o.minChangeBytes) return;
    this.pending += bytes;
    if (this.pending < this.o.thresholdBytes || this.timer !== undefined) return;
    // A timer, not a call: the poll that reported the change still holds its garbage on the stack.
    this.timer = setTimeout(() => this.run(), Math.max(0, this.last + this.o.minIntervalMs - this.o.now()));
    this.timer.unref();
  }

  /**
   * With a growth budget: schedule a collection at once (not after the interval: the budget is
   * what bounds this heap) when the heap has grown past it from its floor. The floor is sampled
   * here, so V8's own collections lower it only as far as a sample sees. True when one is due.
   */
  private checkBudget(): boolean {
    if (this.o.growthBudgetBytes === Infinity || this.stopped) return false;
    if (this.immediate) return true;
    const used = this.o.heapBytes();
    if (used < this.floor) this.floor = used;
    if (used - this.floor <= this.o.growthBudgetBytes) return false;
    clearTimeout(this.timer);
    this.immediate = true;
    this.timer = setTimeout(() => this.run(), 0);
    this.timer.unref();
    return true;
  }

  private run(): void {
    this.timer = undefined;
    this.immediate = false;
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

  /** Stop: nothing scheduled runs, and nothing more is scheduled. */
  cancel(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.watch);
    this.timer = undefined;
  }
}
