/** Pacing: a token bucket that waits (abortably) instead of refusing. */

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class TokenBucket {
  private tokens: number;
  private at = performance.now();

  constructor(private readonly rate: number, private readonly burst: number) {
    this.tokens = burst;
  }

  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
      this.at = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(((1 - this.tokens) / this.rate) * 1000, signal);
    }
  }
}
