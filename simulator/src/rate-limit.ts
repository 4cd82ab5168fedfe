/**
 * The data node's per-client rate limit: a token bucket per IP (real defaults 20/s, burst 100);
 * a client that keeps going while refused is banned (403 with RateLimit-Retry-After).
 */
import { GRPC, gatewayError } from './api-error.js';
import type { RateLimitSettings } from './faults.js';

interface Bucket {
  tokens: number;
  at: number;
  refused: number;
  bannedUntil: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** A per-IP token bucket like the node's (20/s, burst 100); refusing too often earns a ban. */
  check(ip: string, rl: RateLimitSettings, headers: Record<string, string>): void {
    const now = Date.now();
    let b = this.buckets.get(ip);
    if (!b) {
      b = { tokens: rl.burst, at: now, refused: 0, bannedUntil: 0 };
      this.buckets.set(ip, b);
    }
    b.tokens = Math.min(rl.burst, b.tokens + ((now - b.at) / 1000) * rl.rps);
    b.at = now;
    headers['ratelimit-limit'] = String(rl.rps);
    if (!rl.enabled) {
      headers['ratelimit-remaining'] = String(Math.floor(b.tokens));
      headers['ratelimit-reset'] = '1';
      return;
    }
    if (b.bannedUntil > now) {
      const left = Math.ceil((b.bannedUntil - now) / 1000);
      throw gatewayError(GRPC.PermissionDenied, `banned for ${left}s`, { 'ratelimit-retry-after': String(left) });
    }
    if (b.tokens < 1) {
      b.refused += 1;
      if (b.refused > rl.banAfter) {
        b.bannedUntil = now + rl.banSeconds * 1000;
        b.refused = 0;
        throw gatewayError(GRPC.PermissionDenied, `banned for ${rl.banSeconds}s`, { 'ratelimit-retry-after': String(rl.banSeconds) });
      }
      headers['ratelimit-remaining'] = '0';
      headers['ratelimit-reset'] = String(Math.ceil((1 - b.tokens) / Math.max(1, rl.rps)));
      throw gatewayError(GRPC.ResourceExhausted, 'rate limit exceeded');
    }
    b.tokens -= 1;
    b.refused = 0;
    headers['ratelimit-remaining'] = String(Math.floor(b.tokens));
    headers['ratelimit-reset'] = String(Math.ceil((rl.burst - b.tokens) / Math.max(1, rl.rps)));
  }
}
