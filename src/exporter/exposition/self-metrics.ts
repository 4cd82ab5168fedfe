/**
 * The exporter's own process metrics (prom-client's defaults). Rendering them takes a fraction of
 * a millisecond, which is a lot next to sending a cached buffer, so the text is cached for a second
 * and refreshed in the background: scrapes never wait for it. Nothing here shares a name with the
 * catalogue's families.
 */
import { gzipSync } from 'node:zlib';
import { Registry, collectDefaultMetrics, defaultMetric, Gauge } from '../process/lean/prom-client.js';

/**
 * prom-client's default metrics that are left out. `gc` (nodejs_gc_duration_seconds) observes every
 * garbage collection with a PerformanceObserver, which runs JavaScript on the serving thread after
 * each one; under scrape load that thread collects its small young generation hundreds of times a
 * second, and the observer cost a measurable share of /metrics throughput (docs/performance.md,
 * "Choices").
 */
export const LEFT_OUT_DEFAULT_METRICS = ['gc'] as const;

export function createSelfRegistry(version: string, seriesCount: () => number): Registry {
  const registry = new Registry();
  // As collectDefaultMetrics does it (the same precision default), less the ones left out.
  const config = { register: registry, eventLoopMonitoringPrecision: 10 };
  for (const name of collectDefaultMetrics.metricsList) {
    if (!(LEFT_OUT_DEFAULT_METRICS as readonly string[]).includes(name)) defaultMetric(name)(registry, config);
  }
  // prom-client names three gauges with a _total suffix, which promtool rejects; the per-type
  // gauges it also exports (nodejs_active_handles{type} …) carry the same information.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  new Gauge({
    name: 'vega_exporter_build_info',
    help: 'Version of the exporter; value always 1.',
    labelNames: ['version', 'nodejs_version'],
    registers: [registry],
  }).set({ version, nodejs_version: process.version }, 1);
  new Gauge({
    name: 'vega_exporter_series',
    help: 'Series currently served from polled data (upstream and per-collector series).',
    registers: [registry],
    collect() {
      this.set(seriesCount());
    },
  });
  return registry;
}

export class SelfMetrics {
  plain: Buffer = Buffer.alloc(0);
  gzip: Buffer = gzipSync(Buffer.alloc(0));
  version = 0;
  private renderedAt = 0;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly registry: Registry, private readonly maxAgeMs = 1000) {}

  /** Render now (the server awaits this once at start). */
  async refresh(): Promise<void> {
    this.refreshing ??= this.registry
      .metrics()
      .then((text) => {
        this.plain = Buffer.from(text, 'utf8');
        this.gzip = gzipSync(this.plain);
        this.version += 1;
        this.renderedAt = Date.now();
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Start a background refresh when the cached text is older than maxAge; never waits. */
  touch(): void {
    if (Date.now() - this.renderedAt > this.maxAgeMs) void this.refresh();
  }

  /** Keep the cached text at most maxAge old even between rare scrapes. */
  keepFresh(): () => void {
    const t = setInterval(() => void this.refresh(), this.maxAgeMs);
    t.unref();
    return () => clearInterval(t);
  }
}
