/**
 * What answers held at once may cost, in bytes: a semaphore a request takes its worst case from
 * before it reads a body and gives back once its caller is done with the parsed answer. Waiters are
 * served in order; a request that cannot be served within its signal's deadline gives up.
 */
import { ExporterError } from '../errors.js';

/**
 * What one byte of an answer costs while held: the body's bytes (1), its text decoded (2: UTF-16
 * once one character is not Latin-1), and the parsed objects (3: JSON.parse of the densest body an
 * endpoint's token bound allows, small objects and numbers, measured at 2.5 times its bytes).
 */
export const HELD_PER_BYTE = 6;

export class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Bytes reserved now. */
  get held(): number {
    return this.used;
  }

  /** Reserve `bytes` (at most the limit), waiting for releases while the budget cannot take them; the release function is idempotent. */
  async acquire(bytes: number, signal: AbortSignal, what: string): Promise<() => void> {
    const n = Math.min(bytes, this.limit);
    signal.throwIfAborted();
    if (this.waiting.length > 0 || this.used + n > this.limit) {
      await new Promise<void>((resolve, reject) => {
        const w = { bytes: n, grant: resolve };
        const onAbort = (): void => {
          const i = this.waiting.indexOf(w);
          if (i >= 0) this.waiting.splice(i, 1);
          this.drain(); // the head may have been the one blocking the others
          reject(
            new ExporterError('UPSTREAM_TIMEOUT', `${what}: deadline exceeded waiting for ${n} bytes of the held-answer budget`, { cause: signal.reason }),
          );
        };
        w.grant = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(w);
      });
    } else {
      this.used += n;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= n;
      this.drain();
    };
  }

  /** Grant waiters in order while the budget can take the first. */
  private drain(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.limit) {
      const w = this.waiting.shift()!;
      this.used += w.bytes;
      w.grant();
    }
  }
}
