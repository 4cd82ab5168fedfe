/**
 * The exporter's own process metrics (prom-client's defaults), rendered live on each scrape.
 * Nothing here shares a name with the catalogue's families.
 */
import { Registry, collectDefaultMetrics, Gauge } from 'prom-client';

export function createSelfRegistry(version: string, seriesCount: () => number): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
