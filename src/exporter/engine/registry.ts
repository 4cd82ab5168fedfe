/**
 * The prom-client registry behind /metrics: one Gauge or Counter per catalogue family, whose
 * collect() sets the series the store holds (as client_golang's const metrics do), the process's
 * default metrics, and the exporter's own gauges; registry.metrics() renders both formats. The body
 * is rendered after the store changes, at most once a second, only for the formats a client has
 * asked for, and kept as text and as one gzip member.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric, type RegistryContentType } from 'prom-client';
import { M, type MetricDef } from './catalogue.js';
import type { SeriesValue } from './labels.js';
import type { SeriesStore, StoreKey } from './store.js';
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

/** What one render reads: every family's series, or (probes) a filtered few. */
export interface Source {
  series: (m: MetricDef) => SeriesValue[];
  has: (m: MetricDef) => boolean;
}

export function storeSource(store: SeriesStore, keep?: (key: StoreKey) => boolean): Source {
  if (!keep) return { series: (m) => store.series(m), has: (m) => store.has(m) };
  return { series: (m) => store.series(m, keep), has: (m) => store.series(m, keep).length > 0 };
}

type Family = Gauge | Counter;

/**
 * One prom-client registry for one format. Each catalogue family is a Gauge or Counter whose
 * collect() sets the series the source holds now; only families that have series are registered
 * (in catalogue order, then the process metrics and the exporter's own gauges), so that
 * registry.metrics() renders exactly the families served.
 */
export class FamilyRegistry {
  /** The catalogue families that have series now, then the process metrics and the exporter's own gauges. */
  readonly registry = new Registry<RegistryContentType>();
  private readonly families = new Map<MetricDef, Family>();
  private own: Metric[] = [];
  /** The families registered in `polled` now, in catalogue order. */
  private registered: Family[] = [];
  private readonly excluded = new Set<MetricDef>();
  private flagged = false;

  constructor(
    readonly format: Format,
    catalogue: readonly MetricDef[],
    private readonly source: Source,
    own?: { build: BuildInfo; seriesCount: () => number },
  ) {
    this.registry.setContentType(CONTENT_TYPES[format]);
    for (const def of catalogue)
      this.families.set(
        def,
        familyOf(def, () => (def === M.metricsTruncated ? [{ labels: {}, value: 1 }] : source.series(def))),
      );
    if (own) this.own = ownMetrics(own);
    // Every family registered until the first render, so that the registry lists all it can serve.
    this.register([...this.families.values()]);
  }

  /** The whole exposition, families in catalogue order, at most `limit` bytes of series. */
  async render(limit = Infinity): Promise<string> {
    this.excluded.clear();
    this.flagged = false;
    this.reconcile();
    const text = await this.registry.metrics();
    // A UTF-8 byte is at most three UTF-16 units: count bytes only when the limit is within reach.
    if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) return text;
    // Families after the limit are left out, and the flag says so.
    let size = 0;
    for (const [def, metric] of this.families) {
      if (!this.registered.includes(metric)) continue;
      const alone = new Registry<RegistryContentType>();
      alone.setContentType(CONTENT_TYPES[this.format]);
      alone.registerMetric(metric);
      size += Buffer.byteLength(await alone.metrics());
      if (size > limit - HEADER_ROOM) this.excluded.add(def);
    }
    // The exporter's own state is never left out.
    for (const m of [M.metricsTruncated, M.configReloadSuccessful, M.configReloadSuccessTimestamp]) this.excluded.delete(m);
    this.flagged = true;
    this.reconcile();
    return this.registry.metrics();
  }

  /** Whether the last render left families out. */
  get truncated(): boolean {
    return this.flagged;
  }

  /** Register the families with series (and not left out), unless those are the ones registered. */
  private reconcile(): void {
    const want: Family[] = [];
    for (const [def, metric] of this.families) {
      if (def === M.metricsTruncated ? this.flagged : this.source.has(def) && !this.excluded.has(def)) want.push(metric);
    }
    if (want.length !== this.registered.length || want.some((m, i) => this.registered[i] !== m)) this.register(want);
  }

  private register(families: Family[]): void {
    this.registry.clear();
    for (const m of [...families, ...this.own]) this.registry.registerMetric(m);
    this.registered = families;
  }
}

/** The process's default metrics, build_info and the series count, as metrics to register. */
function ownMetrics(own: { build: BuildInfo; seriesCount: () => number }): Metric[] {
  // collectDefaultMetrics registers into a registry: a scratch one, from which the metrics are taken.
  const scratch = new Registry();
  collectDefaultMetrics({ register: scratch });
  // prom-client names three gauges with a _total suffix, which promtool rejects; the per-type
  // gauges it also exports (nodejs_active_handles{type} …) carry the same information.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) scratch.removeSingleMetric(name);
  const b = own.build;
  new Gauge({
    name: 'datanode_exporter_build_info',
    help: 'Version, git revision and branch of the exporter, and the Node.js running it; value always 1.',
    labelNames: ['version', 'revision', 'branch', 'nodejs_version'],
    registers: [scratch],
  }).set({ version: b.version, revision: b.revision, branch: b.branch, nodejs_version: b.nodejs_version }, 1);
  new Gauge({
    name: 'datanode_exporter_series',
    help: 'Series currently served from polled data (upstream and per-collector series).',
    registers: [scratch],
    collect() {
      this.set(own.seriesCount());
    },
  });
  return scratch.getMetricsAsArray().map((m) => scratch.getSingleMetric(m.name)!);
}

/** A family as a prom-client metric whose collect() sets the series `read` returns, in their order. */
function familyOf(def: MetricDef, read: () => readonly SeriesValue[]): Family {
  const config = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [] };
  if (def.type === 'counter') {
    return new Counter({
      ...config,
      collect() {
        this.reset();
        // A counter holds no negative or infinite value (prom-client throws): such a sample is left out rather than the body.
        for (const s of read()) if (s.value >= 0 ? s.value !== Infinity : Number.isNaN(s.value)) this.inc(s.labels, s.value);
      },
    });
  }
  return new Gauge({
    ...config,
    collect() {
      this.reset();
      for (const s of read()) this.set(s.labels, s.value);
    },
  });
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
      const plain = Buffer.from(await registry.render(this.limitBytes), 'utf8');
      this.bodies.set(format, { contentType: CONTENT_TYPES[format], plain, gzip: await gzip(plain) });
      if (registry.truncated && !this.wasTruncated) this.own.onTruncated?.(this.limitBytes);
      this.wasTruncated = registry.truncated;
    }
  }
}
