/**
 * What the data node's API gives its clients, as the exporter (one of them) sees it: every request's
 * outcome and duration per target and endpoint class, in one histogram with few buckets. The
 * service-level objectives on it are recording rules (prometheus/slos.yml, docs/metrics.md).
 */
import { Histogram } from 'prom-client';
import { isList } from '../vega/endpoints.js';

export const API_SLI_NAME = 'datanode_exporter_upstream_request_duration_seconds';
/** Few buckets: each costs a series per target, class and outcome; an SLO's latency threshold must be one. */
export const API_SLI_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5] as const;
export const API_SLI_CLASSES = ['single', 'list'] as const;
export const API_SLI_OUTCOMES = ['success', 'error'] as const;
export const API_SLI_HELP =
  "Requests to the data node's API, from sending to the whole body, by endpoint class (single: one message; list: a paginated list) and outcome (error: no answer, a body that did not arrive, 429 or 5xx; success: any other answer). Source: the exporter.";

export type ApiSli = Histogram<'target' | 'class' | 'outcome'>;

/** A histogram of this exporter's own (each exporter in a process keeps its own). */
export function apiSli(): ApiSli {
  return new Histogram({ name: API_SLI_NAME, help: API_SLI_HELP, labelNames: ['target', 'class', 'outcome'], buckets: [...API_SLI_BUCKETS], registers: [] });
}

export function observeResponse(h: ApiSli, target: string, endpoint: string, failed: boolean, seconds: number): void {
  h.observe({ target, class: isList(endpoint) ? 'list' : 'single', outcome: failed ? 'error' : 'success' }, seconds);
}

/** A removed target's series go with it. */
export function forgetTarget(h: ApiSli, target: string): void {
  for (const c of API_SLI_CLASSES) for (const outcome of API_SLI_OUTCOMES) h.remove({ target, class: c, outcome });
}
