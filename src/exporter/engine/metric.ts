/**
 * How a metric family is declared: each module that writes series declares its families beside
 * the code that fills them, with the facts docs/metrics.md is generated from (type, labels, unit,
 * source field). The type follows from the name: counters end in `_total`, gauges do not.
 */

export type MetricType = 'gauge' | 'counter';

export interface MetricDef {
  name: string;
  type: MetricType;
  help: string;
  labels: readonly string[];
  unit: string;
  /** Endpoint and field the value comes from. */
  source: string;
  /** Who writes it: a collector's name, 'fleet' (cross-target signals) or 'exporter' (its own). */
  collector: string;
}

/** What HELP adds after the source for a polled series. */
export const POLLED = ' Polled and cached by the exporter.';

/** A metric of `owner`: a counter when its name ends in `_total` (Prometheus' rule), else a gauge. */
export function defineMetric(
  owner: string,
  name: string,
  labels: readonly string[],
  unit: string,
  source: string,
  help: string,
  note: string = POLLED,
): MetricDef {
  const type: MetricType = name.endsWith('_total') ? 'counter' : 'gauge';
  return { name, type, labels, unit, source, collector: owner, help: `${help} Source: ${source}.${note}` };
}

/**
 * Rows of one owner: `metric('vega_peers', T, 'peers').source(...).help(...)` is
 * `defineMetric(owner, 'vega_peers', T, 'peers', source, help, note)`, spelt so that prettier
 * keeps each row to a line per part instead of a line per argument.
 */
export function metricsOf(owner: string, note: string = POLLED) {
  return (name: string, labels: readonly string[], unit: string) => ({
    source: (source: string) => ({
      help: (help: string): MetricDef => defineMetric(owner, name, labels, unit, source, help, note),
    }),
  });
}
