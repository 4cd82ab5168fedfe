/** Pacing: a token bucket that waits (abortably) instead of refusing. */
import { setTimeout as delay } from 'node:timers/promises';

export class TokenBucket {
  private tokens: number;
  private at = performance.now();

  constructor(
    private rate: number,
    private burst: number,
  ) {
    this.tokens = burst;
  }

  /** New settings (a reload); tokens already earned are kept up to the new burst. */
  configure(rate: number, burst: number): void {
    this.rate = rate;
    this.burst = burst;
    this.tokens = Math.min(this.tokens, burst);
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
      try {
        await delay(((1 - this.tokens) / this.rate) * 1000, undefined, { signal });
      } catch (err) {
        signal?.throwIfAborted(); // the caller's reason (a deadline's ExporterError), not Node's AbortError
        throw err;
      }
    }
  }
}

/**
 * Pacing and back-off per upstream host and port, shared by everything that talks to it: the
 * configured targets' polls and /probe's allowed URLs alike. A node's rate limit (and its ban) is
 * per client address, so several targets or probe URLs that name the same node must share one budget.
 */
export class HostPacer {
  readonly bucket: TokenBucket;
  /** No request leaves before this time (ms): set by 429 answers and bans, capped by the caller. */
  blockedUntil = 0;
  /**
   * No request to an endpoint (by its label) leaves before this time (ms): set by a 403 that does
   * not say it is for the host. At most one entry per endpoint the exporter knows.
   */
  readonly endpointBlockedUntil = new Map<string, number>();

  constructor(rate: number, burst: number) {
    this.bucket = new TokenBucket(rate, burst);
  }
}

/** host:port of an http(s) URL, default ports made explicit. */
export function hostPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** One exporter's pacers, by upstream host and port. */
export class PacerRegistry {
  private readonly pacers = new Map<string, HostPacer>();

  /** The shared pacer of the host and port of `url` (the first caller's rate and burst apply until `reset`). */
  get(url: URL, rate: number, burst: number): HostPacer {
    const key = hostPort(url);
    let p = this.pacers.get(key);
    if (!p) {
      p = new HostPacer(rate, burst);
      this.pacers.set(key, p);
    }
    return p;
  }

  /** On reload: new rates apply, and every back-off is lifted (a reload is how an operator says "try again"). */
  reset(rate?: number, burst?: number): void {
    for (const p of this.pacers.values()) {
      p.blockedUntil = 0;
      p.endpointBlockedUntil.clear();
      if (rate !== undefined && burst !== undefined) p.bucket.configure(rate, burst);
    }
  }
}
