/**
 * The prom-client registry behind /metrics: one metric per catalogue family, whose get() reads its
 * series from the store (as client_golang's const metrics do), the process's default metrics, and
 * the exporter's own gauges. The body is rendered after the store changes, at most once a second,
 * only for the formats a client has asked for, and kept as text and as one gzip member. The series
 * of a store entry that did not change since the last render keep their rendered text.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { Counter, Gauge, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue, type RegistryContentType } from 'prom-client';
import type { MetricDef } from './metric.js';
import { SELF } from './self-metrics.js';
import type { SeriesValue } from './labels.js';
import type { SeriesStore, StoreKey, StorePart } from './store.js';
import type { BuildInfo } from '../version.js';

const gzip = promisify(gzipCallback);

export type Format = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<Format, RegistryContentType> = {
  text: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

/** Renders at most this often, however many polls change the store. */
export const RENDER_EVERY_MS = 1000;
/** Room kept under limits.metrics_body_bytes for the families' headers and the truncation flag. */
const HEADER_ROOM = 32 * 1024;

/**
 * OpenMetrics when the client lists it and ranks it at least as high as the text format
 * (Prometheus does); the text format otherwise.
 */
export function formatFor(accept: string | undefined): Format {
  let om = 0;
  let text = 0;
  for (const range of (accept ?? '').toLowerCase().split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    if (!Number.isFinite(q)) continue;
    if (type === 'application/openmetrics-text') om = Math.max(om, q);
    else if (type === 'text/plain') text = Math.max(text, q);
  }
  return om > 0 && om >= text ? 'openmetrics' : 'text';
}

/** What one render reads: every family's series, or (probes) a filtered few. */
export interface Source {
  series: (m: MetricDef) => SeriesValue[];
  has: (m: MetricDef) => boolean;
  /** The family's series per store entry, each with a version that changes with them: rendered once per version. */
  parts?: (m: MetricDef) => readonly StorePart[];
}

export function storeSource(store: SeriesStore, keep?: (key: StoreKey) => boolean): Source {
  if (!keep) return { series: (m) => store.series(m), has: (m) => store.has(m), parts: (m) => store.parts(m) };
  return { series: (m) => store.series(m, keep), has: (m) => store.series(m, keep).length > 0 };
}

interface Registered {
  key: string;
  def?: MetricDef;
}

/**
 * One registry for one format. prom-client renders each metric; the join (and the OpenMetrics
 * counter naming, the blank lines and `# EOF`) is done here as Registry.metrics() does it, so that
 * the series of one store entry (a collector's last poll of one target) are rendered once per poll,
 * not again whenever another target's poll changes the same family.
 */
export class FamilyRegistry {
  readonly registry = new Registry<RegistryContentType>();
  private readonly order: Registered[] = [];
  /** Rendered sample lines per (store entry, family), with the entry's version. */
  private readonly lines = new Map<string, { version: number; text: string }>();
  /** Each family's HELP and TYPE lines. */
  private readonly headers = new Map<MetricDef, string>();
  private readonly excluded = new Set<MetricDef>();
  /** What a family's get() returns instead of all its series, while one part of it is rendered. */
  private readonly reading = new Map<MetricDef, SeriesValue[]>();

  constructor(
    readonly format: Format,
    catalogue: readonly MetricDef[],
    private readonly source: Source,
    own?: { build: BuildInfo; seriesCount: () => number },
  ) {
    const om = format === 'openmetrics';
    this.registry.setContentType(CONTENT_TYPES[format]);
    for (const def of catalogue) {
      const config = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [this.registry] };
      const metric = def.type === 'counter' ? new Counter(config) : new Gauge(config);
      // The family's series live in the store: prom-client reads them here when it renders.
      metric.get = async () =>
        ({
          name: om && def.type === 'counter' ? def.name.replace(/_total$/, '') : def.name,
          help: def.help,
          type: def.type,
          aggregator: 'sum',
          values: (this.reading.get(def) ?? source.series(def)) as MetricValue<string>[],
        }) as unknown as MetricObjectWithValues<MetricValue<string>>;
      this.order.push({ key: def.name, def });
    }
    if (!own) return;
    const defaults = this.registry.getMetricsAsArray().length;
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges with a _total suffix, which promtool rejects; the per-type
    // gauges it also exports (nodejs_active_handles{type} …) carry the same information.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    const b = own.build;
    new Gauge({
      name: 'datanode_exporter_build_info',
      help: 'Version, git revision and branch of the exporter, and the Node.js running it; value always 1.',
      labelNames: ['version', 'revision', 'branch', 'nodejs_version'],
      registers: [this.registry],
    }).set({ version: b.version, revision: b.revision, branch: b.branch, nodejs_version: b.nodejs_version }, 1);
    new Gauge({
      name: 'datanode_exporter_series',
      help: 'Series currently served from polled data (upstream and per-collector series).',
      registers: [this.registry],
      collect() {
        this.set(own.seriesCount());
      },
    });
    for (const m of this.registry.getMetricsAsArray().slice(defaults)) {
      this.order.push({ key: m.name });
      // As Registry.metrics() does for OpenMetrics: the family is named without _total, its samples with.
      if (om && String(m.type) === 'counter') m.name = m.name.replace(/_total$/, '');
    }
  }

  /** The whole exposition, families in catalogue order, at most `limit` bytes of series. */
  async render(limit = Infinity): Promise<string> {
    this.excluded.clear();
    let parts = await this.families();
    // A UTF-8 byte is at most three UTF-16 units: count bytes only when the limit is within reach.
    const units = parts.reduce((n, p) => n + p.text.length, 0);
    let size = units * 3 > limit ? parts.reduce((n, p) => n + Buffer.byteLength(p.text), 0) : units;
    if (size > limit) {
      // Families after the limit are left out (headers only), and the flag says so.
      size = 0;
      for (const p of parts) {
        size += Buffer.byteLength(p.text);
        if (p.def && size > limit - HEADER_ROOM) this.excluded.add(p.def);
      }
      // The exporter's own state is never left out.
      for (const m of [SELF.metricsTruncated, SELF.configReloadSuccessful, SELF.configReloadSuccessTimestamp]) this.excluded.delete(m);
      parts = await this.families(true);
    }
    const texts = parts.map((p) => p.text);
    return this.format === 'openmetrics' ? `${texts.join('\n')}\n# EOF\n` : `${texts.join('\n\n')}\n`;
  }

  /** Whether the last render left families out. */
  get truncated(): boolean {
    return this.excluded.size > 0;
  }

  private async families(truncated = false): Promise<{ def?: MetricDef; text: string }[]> {
    const out: { def?: MetricDef; text: string }[] = [];
    const used = new Set<string>();
    for (const { key, def } of this.order) {
      if (!def) out.push({ text: await this.registry.getSingleMetricAsString(key) });
      else if (def === SELF.metricsTruncated) {
        if (truncated) out.push({ def, text: await this.only(def, [{ labels: {}, value: 1 }]) });
      } else if (this.source.has(def)) out.push({ def, text: await this.family(def, used) });
    }
    for (const k of this.lines.keys()) if (!used.has(k)) this.lines.delete(k);
    return out;
  }

  /** A family's text: its header, then each store entry's lines, rendered again only when that entry changed. */
  private async family(def: MetricDef, used: Set<string>): Promise<string> {
    const parts = this.source.parts?.(def);
    if (this.excluded.has(def)) return this.header(def);
    if (!parts) return this.registry.getSingleMetricAsString(def.name);
    const texts = [await this.header(def)];
    for (const p of parts) {
      const k = `${p.key}\u0000${def.name}`;
      used.add(k);
      let hit = this.lines.get(k);
      if (hit?.version !== p.version) {
        const text = await this.only(def, p.series);
        hit = { version: p.version, text: text.slice(text.indexOf('\n', text.indexOf('\n') + 1) + 1) };
        this.lines.set(k, hit);
      }
      texts.push(hit.text);
    }
    return texts.join('\n');
  }

  private async header(def: MetricDef): Promise<string> {
    let h = this.headers.get(def);
    if (h === undefined) {
      h = await this.only(def, []);
      this.headers.set(def, h);
    }
    return h;
  }

  /** prom-client's rendering of the family with these series only. */
  private async only(def: MetricDef, series: SeriesValue[]): Promise<string> {
    this.reading.set(def, series);
    try {
      return await this.registry.getSingleMetricAsString(def.name);
    } finally {
      this.reading.delete(def);
    }
  }
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
  limitBytes = Infinity;
  private wasTruncated = false;

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
    store.onChange = () => this.changed();
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
      const plain = Buffer.from(await registry.render(this.limitBytes), 'utf8');
      this.bodies.set(format, { contentType: CONTENT_TYPES[format], plain, gzip: await gzip(plain) });
      if (registry.truncated && !this.wasTruncated) this.own.onTruncated?.(this.limitBytes);
      this.wasTruncated = registry.truncated;
    }
  }
}
