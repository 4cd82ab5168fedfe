/**
 * The series store: the latest result of each (target or network, source), replaced in one step
 * when a poll is applied and dropped once older than its maximum age. The registry's metrics read
 * their series from here when it renders (engine/registry.ts); subscribers hear of every change.
 */
import type { MetricDef } from './metric.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_LABEL_VALUE_BYTES, SeriesBuilder, toSeries, type Sample, type SeriesValue } from './labels.js';

/** Samples turned into series in one turn of the event loop (a few milliseconds' work). */
const SET_SLICE = 5000;

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
 * The map key, also the order series render in within a family: exporter-wide first, then
 * networks, then targets, each by name and source. Never parsed back: entries keep their StoreKey.
 */
function encode(k: StoreKey): string {
  const base = k.scope === 'target' ? `${k.id}\u0000${k.source}` : k.scope === 'network' ? `\u0000net\u0000${k.id}\u0000${k.source}` : `\u0000${k.source}`;
  return k.meta ? `${base}\u0000meta` : base;
}

/** The scope a key belongs to (its target, its network, or the exporter). */
const scopeOf = (k: StoreKey): string => `${k.scope}\u0000${k.id}`;

interface Entry {
  code: string;
  key: StoreKey;
  families: Map<MetricDef, SeriesValue[]>;
  series: number;
  /** When the data were fetched (ms); the entry expires at updatedAt + maxAgeMs. */
  updatedAt: number;
  maxAgeMs: number;
}

export class SeriesStore {
  private readonly entries = new Map<string, Entry>();
  /** Per family, the entries holding its series in key order: rebuilt on the first read after a change. */
  private byFamily: Map<MetricDef, Entry[]> | undefined;
  /** Series of the data (not meta) entries per scope: every poll asks for its scope's count (the series limit). */
  private readonly scopeSeries = new Map<string, number>();
  /** No entry expires before this: expire() runs after every poll and skips its walk until then. */
  private nextExpiry = Infinity;
  /** Bumped on every change. */
  version = 0;
  private readonly listeners = new Set<() => void>();
  /** Per family, a number bumped whenever its series in some entry change, or an entry holding them is removed. */
  private readonly familyVersions = new Map<MetricDef, number>();

  constructor(
    /** limits.label_value_bytes: the cap on label values as polls are stored. */
    public labelValueBytes = DEFAULT_LABEL_VALUE_BYTES,
  ) {}

  /** Call `listener` after every change, until the returned function is called. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Replace the series of one source. An entry with maxAgeMs = Infinity never expires. A family
   * whose series are the same as the last poll's (toSeries keeps them) keeps its version, so its
   * text is not rendered again; subscribers hear only of a change to some family's series.
   */
  set(key: StoreKey, samples: readonly Sample[], updatedAt: number, maxAgeMs: number): void {
    this.replace(key, toSeries(samples, this.labelValueBytes, this.entries.get(encode(key))?.families), samples.length, updatedAt, maxAgeMs);
  }

  /**
   * set(), the samples turned into series SET_SLICE at a time with a turn of the event loop between
   * slices: a large network's poll is tens of thousands of samples, tens of milliseconds. The entry
   * is still replaced in one step, so a render never sees part of a poll. Only the key's owner may
   * write it meanwhile (a runner, whose polls never overlap).
   */
  async setInTurns(key: StoreKey, samples: readonly Sample[], updatedAt: number, maxAgeMs: number): Promise<void> {
    const b = new SeriesBuilder(this.labelValueBytes, this.entries.get(encode(key))?.families);
    for (let at = 0; at < samples.length; at += SET_SLICE) {
      if (at > 0) await nextTurn();
      b.add(samples, at, Math.min(samples.length, at + SET_SLICE));
    }
    this.replace(key, b.finish(), samples.length, updatedAt, maxAgeMs);
  }

  private replace(key: StoreKey, families: Map<MetricDef, SeriesValue[]>, series: number, updatedAt: number, maxAgeMs: number): void {
    const code = encode(key);
    const old = this.entries.get(code);
    this.nextExpiry = Math.min(this.nextExpiry, updatedAt + maxAgeMs);
    if (!old) {
      const entry: Entry = { code, key, families, series, updatedAt, maxAgeMs };
      this.bump(entry.families.keys());
      this.byFamily = undefined;
      this.entries.set(code, entry);
      this.count(entry, 1);
      this.changedNow();
      return;
    }
    // The entry is updated in place: the per-family lists of entries stay valid unless its families change.
    const changed: MetricDef[] = [];
    for (const [m, list] of families) if (old.families.get(m) !== list) changed.push(m);
    let sameFamilies = true;
    for (const m of old.families.keys()) {
      if (families.has(m)) continue;
      changed.push(m);
      sameFamilies = false;
    }
    if (families.size !== old.families.size) sameFamilies = false;
    this.count(old, -1);
    old.families = families;
    old.series = series;
    old.updatedAt = updatedAt;
    old.maxAgeMs = maxAgeMs;
    this.count(old, 1);
    if (!sameFamilies) this.byFamily = undefined;
    if (changed.length === 0) return;
    this.bump(changed);
    this.changedNow();
  }

  delete(key: StoreKey): void {
    const e = this.entries.get(encode(key));
    if (!e) return;
    this.remove(e);
    this.changedNow();
  }

  /** Remove every entry whose key passes `drop`. */
  deleteWhere(drop: (key: StoreKey) => boolean): void {
    let any = false;
    for (const e of this.entries.values()) {
      if (!drop(e.key)) continue;
      this.remove(e);
      any = true;
    }
    if (any) this.changedNow();
  }

  /** Drop entries past their maximum age, so Prometheus sees the series go stale. */
  expire(now: number): StoreKey[] {
    const dropped: StoreKey[] = [];
    if (now <= this.nextExpiry) return dropped;
    let next = Infinity;
    for (const e of this.entries.values()) {
      if (now - e.updatedAt > e.maxAgeMs) {
        this.remove(e);
        dropped.push(e.key);
      } else next = Math.min(next, e.updatedAt + e.maxAgeMs);
    }
    this.nextExpiry = next;
    if (dropped.length > 0) this.changedNow();
    return dropped;
  }

  /** The series of one family across the entries whose key passes `keep`, in key order. */
  series(m: MetricDef, keep?: (key: StoreKey) => boolean): SeriesValue[] {
    const out: SeriesValue[] = [];
    for (const e of this.holding(m)) {
      if (keep && !keep(e.key)) continue;
      for (const v of e.families.get(m)!) out.push(v);
    }
    return out;
  }

  /** The family's series in each entry holding them, in key order; a list is the same object while its series are unchanged. */
  lists(m: MetricDef): (readonly SeriesValue[])[] {
    return this.holding(m).map((e) => e.families.get(m)!);
  }

  /** Whether any entry holds series of this family. */
  has(m: MetricDef): boolean {
    return this.holding(m).length > 0;
  }

  /** Series of the data entries in the scope of `key` (same scope and id), other than `key`'s own. */
  seriesIn(key: StoreKey): number {
    const own = this.entries.get(encode({ ...key, meta: false }));
    return (this.scopeSeries.get(scopeOf(key)) ?? 0) - (own?.series ?? 0);
  }

  /** Number of series held. */
  seriesCount(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.series;
    return n;
  }

  private holding(m: MetricDef): readonly Entry[] {
    if (!this.byFamily) {
      this.byFamily = new Map();
      const sorted = [...this.entries.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
      for (const e of sorted) {
        for (const f of e.families.keys()) {
          const list = this.byFamily.get(f);
          if (list) list.push(e);
          else this.byFamily.set(f, [e]);
        }
      }
    }
    return this.byFamily.get(m) ?? [];
  }

  /** A number that changes whenever the family's series may have. */
  familyVersion(m: MetricDef): number {
    return this.familyVersions.get(m) ?? 0;
  }

  private bump(families: Iterable<MetricDef>): void {
    for (const m of families) this.familyVersions.set(m, (this.familyVersions.get(m) ?? 0) + 1);
  }

  private remove(e: Entry): void {
    this.bump(e.families.keys());
    this.entries.delete(e.code);
    this.byFamily = undefined;
    this.count(e, -1);
  }

  private changedNow(): void {
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  private count(e: Entry, sign: 1 | -1): void {
    if (e.key.meta || e.series === 0) return;
    const k = scopeOf(e.key);
    const n = (this.scopeSeries.get(k) ?? 0) + sign * e.series;
    if (n === 0) this.scopeSeries.delete(k);
    else this.scopeSeries.set(k, n);
  }
}
