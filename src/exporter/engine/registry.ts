/**
 * What /metrics serves: the catalogue's families with series, whose series the store holds, then
 * the process's default metrics and the exporter's own gauges (prom-client's, read through
 * getMetricsAsJSON), all written by text-format.ts in both formats, each polled family once per
 * change of its series (FamilyRegistry says why). The body is rendered after the store changes, at
 * most once a second, only for the formats a client has asked for, and kept as text and as one gzip
 * member.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { MetricDef } from './metric.js';
import { SELF } from './self-metrics.js';
import type { SeriesValue } from './labels.js';
import type { SeriesStore, StoreKey } from './store.js';
import type { BuildInfo } from '../version.js';
import { CONTENT_TYPES, familyText, joinFamilies, type Format, type TextSample } from './text-format.js';

export { CONTENT_TYPES, type Format } from './text-format.js';

const gzip = promisify(gzipCallback);

/** Renders at most this often, however many polls change the store. */
export const RENDER_EVERY_MS = 1000;
/** Room kept under limits.metrics_body_bytes for the families' headers and the truncation flag. */
const HEADER_ROOM = 32 * 1024;

/** What one render reads: every family's series, or (probes) a filtered few. */
export interface Source {
  series: (m: MetricDef) => SeriesValue[];
  has: (m: MetricDef) => boolean;
  /** A number that changes whenever the family's series may have: its text is rendered once per version. */
  version?: (m: MetricDef) => number;
}

export function storeSource(store: SeriesStore, keep?: (key: StoreKey) => boolean): Source {
  if (!keep) return { series: (m) => store.series(m), has: (m) => store.has(m), version: (m) => store.familyVersion(m) };
  return { series: (m) => store.series(m, keep), has: (m) => store.series(m, keep).length > 0 };
}

/**
 * The exposition for one format: the catalogue's families with series, in catalogue order, then
 * (with `own`) the process metrics and the exporter's own gauges.
 *
 * Rendering all of /metrics on every change doubled the CPU and the scrape latency during polls of
 * a large network (the sizing bench). So each polled family's text is written once per version of
 * its series and kept as bytes; a render writes anew only the families that changed.
 */
export class FamilyRegistry {
  /** The process metrics, build_info and the series count (prom-client's). */
  private readonly own: Registry | undefined;
  /** Each family's text, with the version of its series it was written from. */
  private readonly texts = new Map<MetricDef, { version: number; bytes: Buffer }>();
  private readonly excluded = new Set<MetricDef>();
  private flagged = false;

  constructor(
    readonly format: Format,
    private readonly catalogue: readonly MetricDef[],
    private readonly source: Source,
    own?: { build: BuildInfo; seriesCount: () => number },
  ) {
    if (own) this.own = ownMetrics(own);
  }

  /** Every family this registry can serve, as it names them (the catalogue's, then the own metrics). */
  served(): { name: string; type: string }[] {
    return [
      ...this.catalogue.map((d) => ({ name: d.name, type: d.type })),
      ...(this.own?.getMetricsAsArray() ?? []).map((m) => ({ name: m.name, type: String(m.type) })),
    ];
  }

  /**
   * The whole exposition, families in catalogue order, at most `limit` bytes of polled series. The
   * event loop turns between the families rendered anew, so that a large render never holds a
   * scrape (which is answered from the last body meanwhile) or a poll.
   */
  async render(limit = Infinity): Promise<Buffer> {
    this.excluded.clear();
    this.flagged = false;
    let parts = await this.parts();
    const own = this.own ? await this.ownTexts(this.own) : [];
    if (
      parts.reduce(
        (n, p) => n + p.bytes.length,
        own.reduce((n, b) => n + b.length, 0),
      ) > limit
    ) {
      // Families after the limit are left out, and the flag says so.
      let size = 0;
      for (const p of parts) {
        size += p.bytes.length;
        if (size > limit - HEADER_ROOM) this.excluded.add(p.def);
      }
      // The exporter's own state is never left out.
      for (const m of [SELF.metricsTruncated, SELF.configReloadSuccessful, SELF.configReloadSuccessTimestamp]) this.excluded.delete(m);
      this.flagged = true;
      parts = await this.parts();
    }
    return joinFamilies(this.format, [...parts.map((p) => p.bytes), ...own]);
  }

  /** Whether the last render left families out. */
  get truncated(): boolean {
    return this.flagged;
  }

  /**
   * Each polled family's text, written again only when its series changed, kept as UTF-8 bytes
   * (the body is their concatenation: no string of the whole body is built, nor copied into a buffer).
   */
  private async parts(): Promise<{ def: MetricDef; bytes: Buffer }[]> {
    const out: { def: MetricDef; bytes: Buffer }[] = [];
    for (const def of this.catalogue) {
      if (!(def === SELF.metricsTruncated ? this.flagged : this.source.has(def) && !this.excluded.has(def))) continue;
      const version = def === SELF.metricsTruncated ? 0 : (this.source.version?.(def) ?? NaN);
      let hit = this.texts.get(def);
      if (hit?.version !== version) {
        await nextTurn();
        const series = def === SELF.metricsTruncated ? [{ labels: {}, value: 1 }] : this.source.series(def);
        hit = { version, bytes: Buffer.from(familyText(this.format, def, def.type === 'counter' ? series.filter(countable) : series), 'utf8') };
        this.texts.set(def, hit);
      }
      out.push({ def, bytes: hit.bytes });
    }
    return out;
  }

  /** The own metrics' texts, from what prom-client collects for them now. */
  private async ownTexts(own: Registry): Promise<Buffer[]> {
    const families = await own.getMetricsAsJSON();
    return families.map((f) => Buffer.from(familyText(this.format, { name: f.name, help: f.help, type: String(f.type) }, f.values as TextSample[]), 'utf8'));
  }
}

/** A counter holds no negative or infinite value: such a sample is left out rather than the body. */
const countable = (s: SeriesValue): boolean => (s.value >= 0 ? s.value !== Infinity : Number.isNaN(s.value));

/** The process's default metrics, build_info and the series count, in a registry of their own. */
function ownMetrics(own: { build: BuildInfo; seriesCount: () => number }): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client names three gauges with a _total suffix, which promtool rejects; the per-type
  // gauges it also exports (nodejs_active_handles{type} …) carry the same information.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const b = own.build;
  new Gauge({
    name: 'datanode_exporter_build_info',
    help: 'Version, git revision and branch of the exporter, and the Node.js running it; value always 1.',
    labelNames: ['version', 'revision', 'branch', 'nodejs_version'],
    registers: [registry],
  }).set({ version: b.version, revision: b.revision, branch: b.branch, nodejs_version: b.nodejs_version }, 1);
  new Gauge({
    name: 'datanode_exporter_series',
    help: 'Series currently served from polled data (upstream and per-collector series).',
    registers: [registry],
    collect() {
      this.set(own.seriesCount());
    },
  });
  return registry;
}

export interface Body {
  contentType: string;
  plain: Buffer;
  gzip: Buffer;
}

/**
 * /metrics for both formats. A format is rendered only once a client has asked for it; from then
 * on after every change, at most once per RENDER_EVERY_MS. A scrape gets the latest rendered body
 * (never older than that, plus the render's own time) and waits only for the first one.
 */
export class Exposition {
  private readonly registries = new Map<Format, FamilyRegistry>();
  private readonly bodies = new Map<Format, Body>();
  private rendering: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private again = false;
  private lastRender = -Infinity;
  /** The store's version the last render started from. */
  private renderedVersion = -1;
  private stopped = false;
  /** limits.metrics_body_bytes */
  private limitBytes = Infinity;
  private wasTruncated = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: SeriesStore,
    private readonly catalogue: readonly MetricDef[],
    private readonly own: {
      build: BuildInfo;
      seriesCount: () => number;
      /** Told when a render first leaves families out (and again after one that did not). */
      onTruncated?: (limit: number) => void;
    },
  ) {
    this.unsubscribe = store.subscribe(() => this.changed());
  }

  /** limits.metrics_body_bytes, from the next render on. */
  setLimit(bytes: number): void {
    this.limitBytes = bytes;
  }

  async body(format: Format): Promise<Body> {
    if (!this.registries.has(format)) {
      this.registries.set(format, new FamilyRegistry(format, this.catalogue, storeSource(this.store), this.own));
      await this.renderNow();
    }
    let body = this.bodies.get(format);
    while (!body) {
      await this.renderNow();
      body = this.bodies.get(format);
    }
    return body;
  }

  /** Render now whatever changed since the last render, without waiting for the next turn. */
  async flush(): Promise<void> {
    while (this.registries.size > 0 && this.renderedVersion !== this.store.version) {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.renderNow();
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    clearTimeout(this.timer);
  }

  private changed(): void {
    if (this.registries.size === 0 || this.stopped) return;
    if (this.rendering || this.timer) {
      this.again = true;
      return;
    }
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        // A failed render leaves the last body in place; the next change renders again.
        this.renderNow().catch(() => {});
      },
      Math.max(0, this.lastRender + RENDER_EVERY_MS - Date.now()),
    );
    this.timer.unref();
  }

  private renderNow(): Promise<void> {
    this.rendering ??= this.renderAll().finally(() => {
      this.rendering = undefined;
      this.lastRender = Date.now();
      if (this.again) {
        this.again = false;
        this.changed();
      }
    });
    return this.rendering;
  }

  private async renderAll(): Promise<void> {
    this.again = false;
    this.renderedVersion = this.store.version;
    for (const [format, registry] of this.registries) {
      const plain = await registry.render(this.limitBytes);
      this.bodies.set(format, { contentType: CONTENT_TYPES[format], plain, gzip: await gzip(plain) });
      if (registry.truncated && !this.wasTruncated) this.own.onTruncated?.(this.limitBytes);
      this.wasTruncated = registry.truncated;
    }
  }
}
