/**
 * The prom-client registry behind /metrics: one Gauge or Counter per catalogue family, whose
 * collect() sets the series the store holds (as client_golang's const metrics do), the process's
 * default metrics, and the exporter's own gauges, rendered by prom-client in both formats (each
 * polled family once per change of its series: FamilyRegistry says why). The body is rendered after
 * the store changes, at most once a second, only for the formats a client has asked for, and kept
 * as text and as one gzip member.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric, type RegistryContentType } from 'prom-client';
import type { MetricDef } from './metric.js';
import { SELF } from './self-metrics.js';
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
const NEWLINE = Buffer.from('\n');
const BLANK_LINE = Buffer.from('\n\n');

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

type Family = Gauge | Counter;

/**
 * One prom-client registry for one format. Each catalogue family is a Gauge or Counter whose
 * collect() sets the series the source holds now; only families with series are served, in
 * catalogue order, then the process metrics and the exporter's own gauges.
 *
 * Rendering all of /metrics on every change doubled the CPU and the scrape latency during polls of
 * a large network (the sizing bench). So, with the exporter's own metrics (`own`), each polled
 * family is rendered by getSingleMetricAsString once per version of its series, the texts joined
 * as Registry.metrics() joins them, and the own metrics rendered by registry.metrics() after them
 * (which ends the body, `# EOF` included). Without them (a probe), the families with series are
 * registered and registry.metrics() renders them.
 */
export class FamilyRegistry {
  /** The families rendered by metrics(): all until the first render, then those with series (a probe) or none. */
  readonly registry = new Registry<RegistryContentType>();
  /** The polled families rendered one by one. */
  private readonly polled = new Registry<RegistryContentType>();
  private readonly families = new Map<MetricDef, Family>();
  private readonly own: Metric[] = [];
  /** The families registered in `registry` now, in catalogue order. */
  private registered: Family[] = [];
  /** Each family's rendered text, with the version of its series it was rendered from. */
  private readonly texts = new Map<MetricDef, { version: number; bytes: Buffer }>();
  private readonly excluded = new Set<MetricDef>();
  private flagged = false;

  constructor(
    readonly format: Format,
    catalogue: readonly MetricDef[],
    private readonly source: Source,
    own?: { build: BuildInfo; seriesCount: () => number },
  ) {
    this.registry.setContentType(CONTENT_TYPES[format]);
    this.polled.setContentType(CONTENT_TYPES[format]);
    for (const def of catalogue) {
      const read = (): SeriesValue[] => (def === SELF.metricsTruncated ? [{ labels: {}, value: 1 }] : source.series(def));
      const metric = familyOf(def, nameOf(def, format), read);
      this.families.set(def, metric);
      this.polled.registerMetric(metric);
    }
    if (own) this.own = ownMetrics(own);
    // Every family registered until the first render, so that the registry lists all it can serve.
    this.register([...this.families.values()]);
  }

  /**
   * The whole exposition, families in catalogue order, at most `limit` bytes of polled series. The
   * event loop turns between the families rendered anew, so that a large render never holds a
   * scrape (which is answered from the last body meanwhile) or a poll.
   */
  async render(limit = Infinity): Promise<Buffer> {
    this.excluded.clear();
    this.flagged = false;
    if (this.own.length === 0) {
      this.register(this.present());
      return Buffer.from(await this.registry.metrics(), 'utf8');
    }
    this.register([]);
    let parts = await this.parts();
    const own = Buffer.from(await this.registry.metrics(), 'utf8');
    if (parts.reduce((n, p) => n + p.bytes.length, own.length) > limit) {
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
    // Joined as Registry.metrics() joins families: a blank line between them in the text format.
    const gap = this.format === 'openmetrics' ? NEWLINE : BLANK_LINE;
    return Buffer.concat([...parts.flatMap((p) => [p.bytes, gap]), own]);
  }

  /** Whether the last render left families out. */
  get truncated(): boolean {
    return this.flagged;
  }

  /** The families served now, in catalogue order. */
  private present(): Family[] {
    const out: Family[] = [];
    for (const [def, metric] of this.families) {
      if (def === SELF.metricsTruncated ? this.flagged : this.source.has(def) && !this.excluded.has(def)) out.push(metric);
    }
    return out;
  }

  /**
   * Each polled family's text, rendered again only when its series changed, kept as UTF-8 bytes
   * (the body is their concatenation: no string of the whole body is built, nor copied into a buffer).
   */
  private async parts(): Promise<{ def: MetricDef; bytes: Buffer }[]> {
    const out: { def: MetricDef; bytes: Buffer }[] = [];
    for (const def of this.families.keys()) {
      if (!(def === SELF.metricsTruncated ? this.flagged : this.source.has(def) && !this.excluded.has(def))) continue;
      const version = def === SELF.metricsTruncated ? 0 : (this.source.version?.(def) ?? NaN);
      let hit = this.texts.get(def);
      if (hit?.version !== version) {
        hit = { version, bytes: Buffer.from(await this.polled.getSingleMetricAsString(nameOf(def, this.format)), 'utf8') };
        // Its collect() sets every series again at the next render: holding them until then would
        // only make them outlive the young generation and cost a full collection each.
        this.families.get(def)!.reset();
        this.texts.set(def, hit);
        await nextTurn();
      }
      out.push({ def, bytes: hit.bytes });
    }
    return out;
  }

  /** Register these families and the own metrics in `registry`, unless they are the ones registered. */
  private register(families: Family[]): void {
    if (this.registered.length === families.length && families.every((m, i) => this.registered[i] === m) && this.registry.getMetricsAsArray().length > 0)
      return;
    this.registry.clear();
    for (const m of [...families, ...this.own]) this.registry.registerMetric(m);
    this.registered = families;
  }
}

/** The name a family's metric has in this format: an OpenMetrics counter family without _total, its samples with it (as Registry.metrics() names them). */
function nameOf(def: MetricDef, format: Format): string {
  return format === 'openmetrics' && def.type === 'counter' ? def.name.replace(/_total$/, '') : def.name;
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
function familyOf(def: MetricDef, name: string, read: () => readonly SeriesValue[]): Family {
  const config = { name, help: def.help, labelNames: [...def.labels], registers: [] };
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
      const plain = await registry.render(this.limitBytes);
      this.bodies.set(format, { contentType: CONTENT_TYPES[format], plain, gzip: await gzip(plain) });
      if (registry.truncated && !this.wasTruncated) this.own.onTruncated?.(this.limitBytes);
      this.wasTruncated = registry.truncated;
    }
  }
}
