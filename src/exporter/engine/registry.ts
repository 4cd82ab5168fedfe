/**
 * The prom-client registry behind /metrics: one Gauge or Counter per catalogue family, whose
 * collect() sets the series the store holds (as client_golang's const metrics do), the process's
 * default metrics, and the exporter's own gauges, rendered by prom-client in both formats (each
 * polled family once per change of its series: FamilyRegistry says why). The body is rendered after
 * the store changes, at most once a second, only for the formats a client has asked for, and kept
 * as its families' texts (reused from render to render) and one gzip member of them.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric, type RegistryContentType } from 'prom-client';
import type { MetricDef } from './metric.js';
import { SELF } from './self-metrics.js';
import type { SeriesValue } from './labels.js';
import type { SeriesStore, StoreKey } from './store.js';
import type { BuildInfo } from '../version.js';

export type Format = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<Format, RegistryContentType> = {
  text: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

/** Renders at most this often, however many polls change the store. */
export const RENDER_EVERY_MS = 1000;
/** Series of one family rendered in one turn of the event loop (a few milliseconds' work). */
export const RENDER_SLICE = 2000;
/** Room kept under limits.metrics_body_bytes for the families' headers and the truncation flag. */
const HEADER_ROOM = 32 * 1024;
/** OpenMetrics ends an exposition with this line, once: a family's own exposition leaves it to the body's end. */
const EOF = '# EOF\n';

/** What one render reads: every family's series, or (probes) a filtered few. */
export interface Source {
  series: (m: MetricDef) => SeriesValue[];
  has: (m: MetricDef) => boolean;
  /** A number that changes whenever the family's series may have: its text is rendered once per version. */
  version?: (m: MetricDef) => number;
  /**
   * The family's series source by source, in order (together, what `series` gives): a list stays
   * the same object while its series are unchanged, so its lines are rendered once.
   */
  lists?: (m: MetricDef) => readonly (readonly SeriesValue[])[];
}

export function storeSource(store: SeriesStore, keep?: (key: StoreKey) => boolean): Source {
  if (!keep) return { series: (m) => store.series(m), has: (m) => store.has(m), version: (m) => store.familyVersion(m), lists: (m) => store.lists(m) };
  return { series: (m) => store.series(m, keep), has: (m) => store.series(m, keep).length > 0 };
}

type Family = Gauge | Counter;

/**
 * A family of the exporter's own kept as prom-client metrics of one name, one per part (a
 * target's histogram), so that only the parts that moved since the last render are rendered again.
 */
export interface PartedFamily {
  /** The family with no series: what gives its HELP and TYPE lines. */
  readonly empty: Metric;
  /** The parts in exposition order; `version` moves whenever the part's series may have. */
  parts(): readonly { readonly metric: Metric; readonly version: number }[];
}

/** What a render adds of the exporter's own. */
export interface OwnMetrics {
  build: BuildInfo;
  seriesCount: () => number;
  /** Metrics of the exporter's own beyond these (prom-client metrics it keeps itself). */
  extra?: readonly Metric[];
  /** Families of its own kept in parts, rendered after the others. */
  parted?: readonly PartedFamily[];
}

/**
 * prom-client registries for one format. Each catalogue family is a Gauge or Counter serving the
 * series the source holds now; only families with series are served, in catalogue order, then the
 * process metrics and the exporter's own gauges.
 *
 * Rendering all of /metrics on every change doubled the CPU and the scrape latency during polls of
 * a large network (the sizing bench). So, with the exporter's own metrics (`own`), each polled
 * family sits in a registry of its own, rendered by its registry.metrics() once per version of its
 * series, and then only for the sources (targets, networks) whose series changed (bySource); the
 * body is those expositions one after another, then the own metrics' (which ends it,
 * OpenMetrics' `# EOF` included: the families' own `# EOF` lines are left out). Without them (a
 * probe), the families with series are registered in one registry and registry.metrics() renders it.
 */
export class FamilyRegistry {
  /** The families rendered by metrics(): all until the first render, then those with series (a probe) or none. */
  readonly registry = new Registry<RegistryContentType>();
  private readonly families = new Map<MetricDef, Family>();
  /** Each polled family in a registry of its own, so that its registry.metrics() renders it alone. */
  private readonly alone = new Map<MetricDef, Registry<RegistryContentType>>();
  private readonly own: Metric[] = [];
  private readonly parted: readonly PartedFamily[];
  /** Each part's registry, and its lines (after the family's header) with the version they were rendered from. */
  private readonly partTexts = new WeakMap<Metric, { registry: Registry<RegistryContentType>; version: number; lines: string }>();
  /** The families registered in `registry` now, in catalogue order. */
  private registered: Family[] = [];
  /** Each family's rendered text, with the version of its series it was rendered from. */
  private readonly texts = new Map<MetricDef, { version: number; bytes: Buffer } | { version: number; lines: readonly string[] }>();
  /** Each family's HELP and TYPE lines. */
  private readonly headers = new Map<MetricDef, string>();
  /** The lines of one source's list of series (Source.lists), for as long as the store holds that list. */
  private readonly lines = new WeakMap<readonly SeriesValue[], string>();
  /** While set, the family being rendered serves these series instead of the source's. */
  private only: readonly SeriesValue[] | undefined;
  private readonly excluded = new Set<MetricDef>();
  private flagged = false;

  constructor(
    readonly format: Format,
    catalogue: readonly MetricDef[],
    private readonly source: Source,
    own?: OwnMetrics,
  ) {
    this.registry.setContentType(CONTENT_TYPES[format]);
    for (const def of catalogue) {
      const read = (): readonly SeriesValue[] => this.only ?? (def === SELF.metricsTruncated ? [{ labels: {}, value: 1 }] : source.series(def));
      const metric = familyOf(def, read);
      this.families.set(def, metric);
      if (!own) continue;
      const alone = new Registry<RegistryContentType>();
      alone.setContentType(CONTENT_TYPES[format]);
      alone.registerMetric(metric);
      this.alone.set(def, alone);
    }
    if (own) this.own = ownMetrics(own);
    this.parted = own?.parted ?? [];
    // Every family registered until the first render, so that the registry lists all it can serve.
    this.register([...this.families.values()]);
  }

  /**
   * The whole exposition, families in catalogue order, at most `limit` bytes of polled series. The
   * event loop turns between the families rendered anew, so that a large render never holds a
   * scrape (which is answered from the last body meanwhile) or a poll.
   */
  async render(limit = Infinity): Promise<Buffer> {
    return Buffer.concat(await this.renderParts(limit));
  }

  /** render() as the pieces the body is made of, in order: the families' texts are kept from render to render, not copied. */
  async renderParts(limit = Infinity): Promise<Buffer[]> {
    this.excluded.clear();
    this.flagged = false;
    if (this.own.length === 0) {
      this.register(this.present());
      return [Buffer.from(await this.registry.metrics(), 'utf8')];
    }
    this.register([]);
    let parts = await this.parts();
    const own = await this.ownBytes();
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
    return [...parts.map((p) => p.bytes), own];
  }

  /**
   * The own metrics, then the parted families (as prom-client puts a family after another in one
   * registry: a blank line between them in the text format), then OpenMetrics' `# EOF`.
   */
  private async ownBytes(): Promise<Buffer> {
    let text = await this.registry.metrics();
    if (this.parted.length === 0) return Buffer.from(text, 'utf8');
    const open = this.format === 'openmetrics' && text.endsWith(EOF);
    if (open) text = text.slice(0, -EOF.length);
    const out = [text];
    for (const family of this.parted) {
      await nextTurn();
      const header = await this.partLines(family.empty, 0, '');
      out.push(this.format === 'text' ? `\n${header}` : header);
      for (const { metric, version } of family.parts()) out.push(await this.partLines(metric, version, header));
    }
    if (open) out.push(EOF);
    return Buffer.from(out.join(''), 'utf8');
  }

  /** A part's exposition after the family's header, rendered again only when its version moved. */
  private async partLines(metric: Metric, version: number, header: string): Promise<string> {
    let hit = this.partTexts.get(metric);
    if (hit && hit.version === version) return hit.lines;
    if (!hit) {
      const registry = new Registry<RegistryContentType>();
      registry.setContentType(CONTENT_TYPES[this.format]);
      registry.registerMetric(metric);
      hit = { registry, version, lines: '' };
      this.partTexts.set(metric, hit);
    }
    let text = await hit.registry.metrics();
    if (this.format === 'openmetrics' && text.endsWith(EOF)) text = text.slice(0, -EOF.length);
    hit.version = version;
    // Never expected otherwise: every part of a family has the same HELP and TYPE lines.
    hit.lines = text.startsWith(header) ? text.slice(header.length) : text;
    return hit.lines;
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
   * (the body is their concatenation: no string of the whole body is built, nor copied into a buffer);
   * a family of several sources as its sources' lines, encoded at each render rather than kept twice.
   */
  private async parts(): Promise<{ def: MetricDef; bytes: Buffer }[]> {
    const out: { def: MetricDef; bytes: Buffer }[] = [];
    for (const def of this.families.keys()) {
      if (!(def === SELF.metricsTruncated ? this.flagged : this.source.has(def) && !this.excluded.has(def))) continue;
      const version = def === SELF.metricsTruncated ? 0 : (this.source.version?.(def) ?? NaN);
      let hit = this.texts.get(def);
      if (hit?.version !== version) {
        const lists = def === SELF.metricsTruncated ? undefined : this.source.lists?.(def);
        // A family of one source (a network's markets, key rotations) is kept whole: its lines
        // kept apart would be a second copy of it, megabytes for a large network.
        hit =
          lists && lists.length > 1
            ? { version, lines: await this.bySource(def, lists) }
            : { version, bytes: unpooled(await this.renderInSlices(def, lists?.[0])) };
        this.texts.set(def, hit);
        await nextTurn();
      }
      out.push({ def, bytes: 'bytes' in hit ? hit.bytes : Buffer.from(hit.lines.join(''), 'utf8') });
    }
    return out;
  }

  /**
   * A family's text from its lists of series, one after another: a poll changes a few sources'
   * series, and rendering the whole family again for them cost most of a render (100 targets).
   * Each list's lines are what prom-client renders for the family holding that list alone, after
   * the HELP and TYPE lines: the concatenation is the text of the whole family.
   */
  private async bySource(def: MetricDef, lists: readonly (readonly SeriesValue[])[]): Promise<string[]> {
    const header = await this.header(def);
    const out = [header];
    for (const list of lists) {
      let lines = this.lines.get(list);
      if (lines === undefined) {
        const text = await this.renderAlone(def, list);
        // Never expected: prom-client renders each series on a line of its own, after the header.
        if (!text.startsWith(header)) return [await this.renderAlone(def)];
        lines = text.slice(header.length);
        this.lines.set(list, lines);
      }
      out.push(lines);
    }
    return out;
  }

  /**
   * A family's text, its series rendered RENDER_SLICE at a time with a turn of the event loop
   * between them, as bySource renders each source's: a large network's family (tens of thousands
   * of series) otherwise holds a scrape for tens of milliseconds.
   */
  private async renderInSlices(def: MetricDef, list: readonly SeriesValue[] | undefined): Promise<string> {
    if (!list || list.length <= RENDER_SLICE) return this.renderAlone(def);
    const header = await this.header(def);
    const out = [header];
    for (let at = 0; at < list.length; at += RENDER_SLICE) {
      if (at > 0) await nextTurn();
      const text = await this.renderAlone(def, list.slice(at, at + RENDER_SLICE));
      // Never expected: prom-client renders each series on a line of its own, after the header.
      if (!text.startsWith(header)) return this.renderAlone(def);
      out.push(text.slice(header.length));
    }
    return out.join('');
  }

  /** A family's HELP and TYPE lines, as prom-client renders them. */
  private async header(def: MetricDef): Promise<string> {
    let header = this.headers.get(def);
    if (header === undefined) {
      header = await this.renderAlone(def, []);
      this.headers.set(def, header);
    }
    return header;
  }

  /** One family's exposition from its own registry (the `# EOF` left out): its series, or `only` these. */
  private async renderAlone(def: MetricDef, only?: readonly SeriesValue[]): Promise<string> {
    this.only = only;
    try {
      const text = await this.alone.get(def)!.metrics();
      return this.format === 'openmetrics' && text.endsWith(EOF) ? text.slice(0, -EOF.length) : text;
    } finally {
      this.only = undefined;
    }
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

/**
 * A text as UTF-8 bytes of its own. Buffer.from() puts a small text in a slice of a shared pool
 * (64 KiB on Node 24), which a cached slice keeps alive whole: a pool per small family.
 */
function unpooled(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

/** One gzip member of the parts one after another, compressed as they come on zlib's thread pool: no copy of the whole body is made. */
async function gzipParts(parts: readonly Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(Readable.from(parts), createGzip(), async (zipped: AsyncIterable<Buffer>) => {
    for await (const chunk of zipped) out.push(chunk);
  });
  return Buffer.concat(out);
}

/** The process's default metrics, build_info and the series count, as metrics to register. */
function ownMetrics(own: OwnMetrics): Metric[] {
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
  return [...scratch.getMetricsAsArray().map((m) => scratch.getSingleMetric(m.name)!), ...(own.extra ?? [])];
}

/**
 * A family as a prom-client metric whose get() serves the series `read` returns, in their order,
 * as they are: prom-client's own store keys a series by its label values joined with `,` and `:`
 * unescaped, so two distinct series could be merged into one by what a node puts in a name.
 */
function familyOf(def: MetricDef, read: () => readonly SeriesValue[]): Family {
  const config = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [] };
  if (def.type === 'counter') {
    return new (class extends Counter {
      override async get() {
        // A counter holds no negative or infinite value: such a sample is left out rather than the body.
        return { ...(await super.get()), values: read().filter((s) => (s.value >= 0 ? s.value !== Infinity : Number.isNaN(s.value))) };
      }
    })(config);
  }
  return new (class extends Gauge {
    override async get() {
      return { ...(await super.get()), values: [...read()] };
    }
  })(config);
}

export interface Body {
  contentType: string;
  readonly plain: Buffer;
  gzip: Buffer;
}

/** A rendered body: its gzip member, and its text joined only when a client that does not take gzip asks for it (Prometheus takes gzip). */
class PartsBody implements Body {
  private joined: Buffer | undefined;

  constructor(
    readonly contentType: string,
    private readonly parts: readonly Buffer[],
    readonly gzip: Buffer,
  ) {}

  get plain(): Buffer {
    return (this.joined ??= Buffer.concat(this.parts));
  }
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
    private readonly own: OwnMetrics & {
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
      const parts = await registry.renderParts(this.limitBytes);
      this.bodies.set(format, new PartsBody(CONTENT_TYPES[format], parts, await gzipParts(parts)));
      if (registry.truncated && !this.wasTruncated) this.own.onTruncated?.(this.limitBytes);
      this.wasTruncated = registry.truncated;
    }
  }
}
