/**
 * What the data node's API gives its clients, as the exporter (one of them) sees it: every request's
 * outcome and duration per target and endpoint class, in one histogram with few buckets. The
 * service-level objectives on it are recording rules (prometheus/slos.yml, docs/metrics.md).
 */
import { Histogram } from 'prom-client';
import type { PartedFamily } from '../engine/registry.js';
import { isList } from '../vega/endpoints.js';

export const API_SLI_NAME = 'datanode_exporter_upstream_request_duration_seconds';
/** Few buckets: each costs a series per target, class and outcome; an SLO's latency threshold must be one. */
export const API_SLI_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5] as const;
export const API_SLI_CLASSES = ['single', 'list'] as const;
export const API_SLI_OUTCOMES = ['success', 'error'] as const;
export const API_SLI_HELP =
  "Requests to the data node's API, from sending to the whole body, by endpoint class (single: one message; list: a paginated list) and outcome (error: no answer, a body that did not arrive, 429 or 5xx; success: any other answer). Source: the exporter.";

const histogram = (): Histogram<'target' | 'class' | 'outcome'> =>
  new Histogram({ name: API_SLI_NAME, help: API_SLI_HELP, labelNames: ['target', 'class', 'outcome'], buckets: [...API_SLI_BUCKETS], registers: [] });

/**
 * The histogram, one prom-client Histogram per target (each exporter in a process keeps its own):
 * a render takes again only the targets asked since the last one, rather than every target's
 * series (18 a target) each second.
 */
export class ApiSli implements PartedFamily {
  readonly empty = histogram();
  private readonly targets = new Map<string, { metric: Histogram<'target' | 'class' | 'outcome'>; version: number }>();
  private order: string[] | undefined;

  observe(target: string, endpoint: string, failed: boolean, seconds: number): void {
    let t = this.targets.get(target);
    if (!t) {
      t = { metric: histogram(), version: 0 };
      this.targets.set(target, t);
      this.order = undefined;
    }
    t.metric.observe({ target, class: isList(endpoint) ? 'list' : 'single', outcome: failed ? 'error' : 'success' }, seconds);
    t.version += 1;
  }

  /** A removed target's series go with it. */
  forget(target: string): void {
    if (this.targets.delete(target)) this.order = undefined;
  }

  /** By target name. */
  parts(): { metric: Histogram; version: number }[] {
    this.order ??= [...this.targets.keys()].sort();
    return this.order.map((name) => this.targets.get(name)!);
  }
}
