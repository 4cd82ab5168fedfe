/**
 * Deterministic randomness for the simulator. Everything the simulated network does is derived
 * from a seed, so two runs with the same seed and clock serve byte-identical data.
 */

/** mulberry32: tiny, fast, good enough for test data (not for cryptography). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next unsigned 32-bit integer. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** n random bytes as lowercase hex. */
  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i += 4) {
      out += this.next().toString(16).padStart(8, '0');
    }
    return out.slice(0, bytes * 2);
  }

  bytes(n: number): Buffer {
    const buf = Buffer.alloc(n);
    for (let i = 0; i < n; i++) buf[i] = this.next() & 0xff;
    return buf;
  }

  /** A child generator whose stream depends only on this seed and the given tag. */
  fork(...tags: number[]): Rng {
    return new Rng(mix(this.state, ...tags));
  }
}

/** Hash a list of integers into one 32-bit seed (murmur3 finaliser per step). */
export function mix(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}
