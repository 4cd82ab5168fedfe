/**
 * At most `max` jobs at once; the rest wait their turn in arrival order.
 *
 * Every runner polls once at start (readiness). With a thousand targets that is thousands of
 * requests at once, whose answers then arrive together: one turn of the event loop handling them
 * all outlasts a second, and every poll due meanwhile starts late, all together. Taking the first polls a few at a time keeps each turn short (docs/fleet.md).
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active < this.max) this.active += 1;
    // A finished job hands its slot straight to the next in line, so none can slip in between.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  /** Jobs waiting for a turn (tests). */
  get queued(): number {
    return this.waiting.length;
  }
}
