/**
 * The parts of prom-client this exporter uses (Registry, Gauge, the default metrics), loaded from
 * their own modules. The entry point also loads the push gateway (https, tls, crypto) and the
 * cluster aggregator: resident memory never used here (docs/performance.md, "Choices"). test/exporter/lean-deps.test.ts
 * checks these are the very objects the entry point exports.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const load = createRequire(import.meta.url);

export const Registry = load('prom-client/lib/registry.js') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Gauge = load('prom-client/lib/gauge.js') as typeof PromClient.Gauge;
export const collectDefaultMetrics = load('prom-client/lib/defaultMetrics.js') as typeof PromClient.collectDefaultMetrics & { metricsList: string[] };

type DefaultMetric = (registry: PromClient.Registry, config: PromClient.DefaultMetricsCollectorConfiguration<PromClient.RegistryContentType>) => void;

/**
 * prom-client's default metrics by name, each from its own module, as `collectDefaultMetrics`
 * lists them (`metricsList`). Loaded one by one so that one of them can be left out.
 */
export function defaultMetric(name: string): DefaultMetric {
  return load(`prom-client/lib/metrics/${name}.js`) as DefaultMetric;
}
