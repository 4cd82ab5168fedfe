/**
 * Polls on one timer: it ticks at the start of every second and starts whatever is due in that
 * second, at its millisecond. The jobs wait in a min-heap by due time, so a tick with nothing due
 * looks at one entry, and a tick's cost grows with the polls due, not with the number of
 * collectors. Any whole second interval works: a job's next due time is its last one plus its
 * interval. A plain timer, not node-cron: node-cron reads each tick's date through Intl, whose
 * locale data costs about 8 MiB of resident memory (Node 24), near a tenth of a one-target exporter.
 */
import { fnv1a } from '../hash.js';
import type { Logger } from '../logger.js';

/** The longest interval a collector may poll at. */
const MAX_INTERVAL_MS = 86_400_000;

/** Whether the scheduler takes `ms` as an interval: a whole number of seconds, from 1 s to 24 h. */
export function isSchedulable(ms: number): boolean {
  return Number.isInteger(ms) && ms % 1000 === 0 && ms >= 1000 && ms <= MAX_INTERVAL_MS;
}

/**
 * Where in its interval a poll fires: a hash of its identity (`target/collector`), as Prometheus
 * offsets its scrapes. It depends on nothing else, so a reload keeps an unchanged target's polls
 * where they were, and N targets land spread over the interval instead of all at :00.
 */
export function stableOffset(identity: string, intervalMs: number): number {
  let h = fnv1a(identity);
  // FNV-1a alone leaves names that differ only in their last character close together: finish
  // with murmur3's avalanche so consecutive names (dn-001, dn-002, ...) scatter.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) % intervalMs;
}

/** The first time after `nowMs` (epoch ms) at which t ≡ offset (mod interval). */
export function nextDue(nowMs: number, intervalMs: number, offsetMs: number): number {
  const since = (((nowMs - offsetMs) % intervalMs) + intervalMs) % intervalMs;
  return nowMs - since + intervalMs;
}

/** A job on the scheduler; cancel() stops it, a start already armed within the second included. */
export interface ScheduledJob {
  cancel: () => void;
}

interface Job {
  readonly intervalMs: number;
  readonly offsetMs: number;
  readonly run: () => void;
  dueMs: number;
  live: boolean;
  /** The start armed for the current second. */
  timer: NodeJS.Timeout | undefined;
}

/** Jobs on one timer ticking every second; the timer runs while any job does. */
export class Scheduler {
  /** Min-heap by dueMs. A cancelled job stays until it comes up (it is dropped then). */
  private readonly heap: Job[] = [];
  private live = 0;
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly log?: Logger) {}

  /** Run `run` at every t ≡ offset (mod interval), from the first such t after now. */
  every(intervalMs: number, offsetMs: number, run: () => void): ScheduledJob {
    if (!isSchedulable(intervalMs) || !(offsetMs >= 0 && offsetMs < intervalMs))
      throw new RangeError(`cannot schedule every ${intervalMs} ms at ${offsetMs} ms`);
    const now = Date.now();
    const job: Job = { intervalMs, offsetMs, run, dueMs: nextDue(now, intervalMs, offsetMs), live: true, timer: undefined };
    // This second's tick has passed: a start due within it is armed here.
    const horizon = secondAfter(now);
    if (job.dueMs < horizon) this.arm(job, now, horizon);
    else this.push(job);
    if (++this.live === 1) this.nextTick();
    return { cancel: () => this.cancel(job) };
  }

  /** Jobs scheduled and not cancelled (tests). */
  get size(): number {
    return this.live;
  }

  private cancel(job: Job): void {
    if (!job.live) return;
    job.live = false;
    clearTimeout(job.timer);
    job.timer = undefined;
    if (--this.live === 0) {
      this.heap.length = 0; // every entry left is a cancelled job
      clearTimeout(this.ticker);
      this.ticker = undefined;
    }
  }

  /**
   * Tick at the start of the next second. A tick that comes late (a busy event loop) starts the
   * jobs that came due meanwhile at once.
   */
  private nextTick(): void {
    const now = Date.now();
    this.ticker = setTimeout(
      () => {
        this.ticker = undefined;
        this.tick();
        // A job started by this tick may have cancelled the last job, or scheduled the first again.
        if (this.live > 0 && this.ticker === undefined) this.nextTick();
      },
      secondAfter(now) - now,
    );
  }

  /** Start every job due before the next second: overdue ones now, the others at their millisecond. */
  private tick(): void {
    const now = Date.now();
    const horizon = secondAfter(now);
    while (this.heap.length > 0 && this.heap[0]!.dueMs < horizon) {
      const job = this.pop();
      if (job.live) this.arm(job, now, horizon);
    }
  }

  /** Start `job`, due before `horizon`, at its time (now if overdue); queue its next start. */
  private arm(job: Job, now: number, horizon: number): void {
    const due = job.dueMs;
    // Once per second at most: an overdue job resumes its rhythm after this second.
    job.dueMs = due + job.intervalMs >= horizon ? due + job.intervalMs : nextDue(horizon - 1, job.intervalMs, job.offsetMs);
    this.push(job);
    if (due <= now) {
      this.start(job);
      return;
    }
    job.timer = setTimeout(() => {
      job.timer = undefined;
      this.start(job);
    }, due - now);
  }

  private start(job: Job): void {
    try {
      job.run();
    } catch (err) {
      this.log?.error({ code: 'SCHEDULE', err: err instanceof Error ? err.message : String(err) }, 'scheduler: a job failed to start');
    }
  }

  private push(job: Job): void {
    const h = this.heap;
    let i = h.push(job) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.dueMs <= job.dueMs) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = job;
  }

  private pop(): Job {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]!.dueMs < h[l]!.dueMs ? l + 1 : l;
        if (h[c]!.dueMs >= last.dueMs) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

/** The start of the second after the one `ms` is in. */
const secondAfter = (ms: number): number => Math.floor(ms / 1000) * 1000 + 1000;

let shared: Scheduler | undefined;

/** The process's scheduler: one tick for every runner of every exporter in it. */
export function sharedScheduler(log?: Logger): Scheduler {
  shared ??= new Scheduler(log);
  return shared;
}
