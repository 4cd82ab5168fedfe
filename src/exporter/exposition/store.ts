/**
 * The series store: the latest rendered result of each (target, collector), replaced in one step
 * when a poll is applied, dropped once older than its maximum age. The /metrics body is assembled
 * from the fragments at most once per change, and a gzip copy is made lazily.
 */
import { constants, gzipSync, type ZlibOptions } from 'node:zlib';
import { BUILTIN_METRICS, type MetricDef } from './catalogue.js';
import type { GcHint } from '../process/gc-hint.js';
import { fragments, header, sampleLine, type Sample } from './render.js';
import { M } from './catalogue.js';

/**
 * The polled body is gzipped again on every change. From this size on at level 1, which takes about
 * half the time of the default level for a body a few percent larger; below it at the default
 * level, which costs little there and makes smaller the body every scrape moves
 * (docs/performance.md, "Choices").
 */
export const FAST_GZIP_FROM_BYTES = 1 << 20;
export const LARGE_BODY_GZIP: ZlibOptions = { level: constants.Z_BEST_SPEED };

export function gzipBody(plain: Buffer): Buffer {
  return plain.length >= FAST_GZIP_FROM_BYTES ? gzipSync(plain, LARGE_BODY_GZIP) : gzipSync(plain);
}

/** What a set of series belongs to. */
export interface StoreKey {
  scope: 'target' | 'network' | 'exporter';
  /** The target name or the network; '' for the exporter's own. */
  id: string;
  /** The collector, or 'http' (upstream request counters), or 'fleet'. */
  source: string;
  /** The runner's bookkeeping (success, duration, …) rather than the collector's data. */
  meta?: boolean;
}

/**
 * The map key, also the order entries render in: exporter-wide first, then networks, then targets,
 * each by name and source. Never parsed back: entries keep their StoreKey.
 */
function encode(k: StoreKey): string {
  const base = k.scope === 'target' ? `${k.id}\u0000${k.source}` : k.scope === 'network' ? `\u0000net\u0000${k.id}\u0000${k.source}` : `\u0000${k.source}`;
  return k.meta ? `${base}\u0000meta` : base;
}

/** The scope a key belongs to (its target, its network, or the exporter). */
const scopeOf = (k: StoreKey): string => `${k.scope}\u0000${k.id}`;

interface Entry {
  key: StoreKey;
  fragments: Map<MetricDef, string>;
  /** Series lines in the fragments (counted once, when set). */
  lines: number;
  /** When the data were fetched (ms); the entry expires at updatedAt + maxAgeMs. */
  updatedAt: number;
  maxAgeMs: number;
}

export class SeriesStore {
  private readonly entries = new Map<string, Entry>();
  /**
   * Series lines of the data (not meta) entries per scope, kept as entries change: every poll asks
   * for its scope's count (the series limit), and walking every entry for it was quadratic in targets.
   */
  private readonly scopeLines = new Map<string, number>();
  private body: Buffer | undefined;
  private gz: Buffer | undefined;
  /** Families in exposition order (the catalogue). */
  readonly order: readonly MetricDef[];
  /** Bumped on every change; readers compare it to know when to re-read. */
  version = 0;
  /** No entry expires before this (a lower bound): expire() runs after every poll, and skips its walk over all entries until then. */
  private nextExpiry = Infinity;
  /** Called after every change (the threaded exporter publishes from here). */
  onChange: (() => void) | undefined;
  /** Told how much text each change replaced, to collect the garbage of large polls promptly. */
  gcHint: GcHint | undefined;
  /** The rendered body stops growing here (limits.metrics_body_bytes). */
  bodyLimitBytes = Infinity;
  /** Called when a render first hits bodyLimitBytes (and again after one that did not). */
  onTruncated: ((bytes: number) => void) | undefined;
  private truncated = false;

  constructor(catalogue: readonly MetricDef[] = BUILTIN_METRICS) {
    this.order = catalogue;
  }

  /** Replace the series of one source. An entry with maxAgeMs = Infinity never expires. */
  set(key: StoreKey, samples: readonly Sample[], updatedAt: number, maxAgeMs: number): void {
    const f = fragments(samples);
    let chars = 0;
    let lines = 0;
    for (const text of f.values()) {
      chars += text.length;
      lines += countLines(text);
    }
    const code = encode(key);
    const old = this.entries.get(code);
    if (old) this.count(old, -1);
    const entry: Entry = { key, fragments: f, lines, updatedAt, maxAgeMs };
    this.entries.set(code, entry);
    this.count(entry, 1);
    this.nextExpiry = Math.min(this.nextExpiry, updatedAt + maxAgeMs);
    this.invalidate();
    this.gcHint?.note(chars);
  }

  delete(key: StoreKey): void {
    const code = encode(key);
    const old = this.entries.get(code);
    if (!old) return;
    this.entries.delete(code);
    this.count(old, -1);
    this.invalidate();
  }

  private count(e: Entry, sign: 1 | -1): void {
    if (e.key.meta || e.lines === 0) return;
    const k = scopeOf(e.key);
    const n = (this.scopeLines.get(k) ?? 0) + sign * e.lines;
    if (n === 0) this.scopeLines.delete(k);
    else this.scopeLines.set(k, n);
  }

  /** Remove every entry whose key passes `drop`. */
  deleteWhere(drop: (key: StoreKey) => boolean): void {
    let any = false;
    for (const [k, e] of this.entries) {
      if (!drop(e.key)) continue;
      this.entries.delete(k);
      this.count(e, -1);
      any = true;
    }
    if (any) this.invalidate();
  }

  /** Drop entries past their maximum age, so Prometheus sees the series go stale. */
  expire(now: number): StoreKey[] {
    const dropped: StoreKey[] = [];
    if (now <= this.nextExpiry) return dropped;
    let next = Infinity;
    for (const [k, e] of this.entries) {
      if (now - e.updatedAt > e.maxAgeMs) {
        this.entries.delete(k);
        this.count(e, -1);
        dropped.push(e.key);
      } else next = Math.min(next, e.updatedAt + e.maxAgeMs);
    }
    this.nextExpiry = next;
    if (dropped.length > 0) this.invalidate();
    return dropped;
  }

  private invalidate(): void {
    this.body = undefined;
    this.gz = undefined;
    this.version += 1;
    this.onChange?.();
  }

  /** The exposition text of every live entry, families in catalogue order. */
  render(): Buffer {
    if (!this.body) this.body = this.assemble(() => true);
    return this.body;
  }

  /** The exposition text of the entries whose key passes `keep` (uncached: probes). */
  renderFiltered(keep: (key: StoreKey) => boolean): Buffer {
    return this.assemble(keep);
  }

  /**
   * The full text, not cached: the polling thread gzips it for the serving thread and drops it,
   * rather than keeping a second copy of the largest thing it holds.
   */
  renderUncached(): Buffer {
    return this.assemble(() => true);
  }

  private parts(keep: (key: StoreKey) => boolean): string[] {
    const parts: string[] = [];
    // Filter first: a probe keeps one target's few entries, and sorting every target's per probe showed in profiles.
    const entries = [...this.entries].filter(([, e]) => keep(e.key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
    // Room for the truncation flag itself.
    const limit = this.bodyLimitBytes - 512;
    let size = 0;
    let cut = false;
    for (const m of this.order) {
      let has = false;
      for (const e of entries) {
        const f = e.fragments.get(m);
        if (f === undefined) continue;
        const h = has ? '' : header(m);
        const add = Buffer.byteLength(h, 'utf8') + Buffer.byteLength(f, 'utf8');
        if (size + add > limit) {
          cut = true;
          continue;
        }
        if (h) parts.push(h);
        has = true;
        parts.push(f);
        size += add;
      }
    }
    if (cut) {
      parts.push(header(M.metricsTruncated), sampleLine({ metric: M.metricsTruncated, values: [], value: 1 }));
      if (!this.truncated) this.onTruncated?.(size);
    }
    this.truncated = cut;
    return parts;
  }

  /**
   * Encode the parts straight into one buffer (joining them into a string first would hold a second
   * copy of the text until the next full collection).
   */
  private encode(parts: readonly string[]): Buffer {
    let size = 0;
    for (const p of parts) size += Buffer.byteLength(p, 'utf8');
    const out = Buffer.allocUnsafeSlow(size);
    let off = 0;
    for (const p of parts) off += out.write(p, off, 'utf8');
    return out;
  }

  private assemble(keep: (key: StoreKey) => boolean): Buffer {
    return this.encode(this.parts(keep));
  }

  renderGzip(): Buffer {
    if (!this.gz) this.gz = gzipBody(this.render());
    return this.gz;
  }

  /** Series lines of the data entries in the scope of `key` (same scope and id), other than `key`'s own. */
  linesIn(key: StoreKey): number {
    const own = this.entries.get(encode({ ...key, meta: false }));
    return (this.scopeLines.get(scopeOf(key)) ?? 0) - (own?.lines ?? 0);
  }

  /** Number of series lines (for self-metrics and benchmarks). */
  seriesCount(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.lines;
    return n;
  }
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
