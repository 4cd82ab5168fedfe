/**
 * Fake time for schedule and deadline tests. Only the clock (Date) and the timer functions are
 * faked, so the scheduler's tick and its starts within a second (plain setTimeouts that read
 * `Date.now()`) and the deadline timers run on it, while real I/O (sockets, setImmediate,
 * process.nextTick) still runs. Nothing here waits on wall-clock time.
 */
import { vi } from 'vitest';

const realSetImmediate = globalThis.setImmediate;

export interface FakeClock {
  /** Move fake time on by `ms`, firing each due timer in order; promises settle between timers. */
  advance: (ms: number) => Promise<void>;
}

/** Run `body` with the fake clock set to `startMs`; real timers are back afterwards, whatever happened. */
export async function withFakeClock<T>(startMs: number, body: (clock: FakeClock) => Promise<T>): Promise<T> {
  vi.useFakeTimers({ now: startMs, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  try {
    return await body({ advance: async (ms) => void (await vi.advanceTimersByTimeAsync(ms)) });
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Let real I/O and its callbacks run: up to `turns` turns of the real event loop (a count, not a
 * duration), stopping early once `until` holds. Returns whether `until` held.
 */
export async function ioTurns(turns: number, until: () => boolean = () => false): Promise<boolean> {
  for (let i = 0; i < turns && !until(); i++) await new Promise<void>((r) => realSetImmediate(r));
  return until();
}
