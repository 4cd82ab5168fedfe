import type { CollectorName, MetricDef } from '../catalogue.js';
import type { DatanodeClient } from '../http/client.js';
import type { Truncation } from '../http/paginate.js';
import type { Sample } from '../render.js';

export interface CollectContext {
  target: string;
  client: DatanodeClient;
  signal: AbortSignal;
  pageSize: number;
  maxPages: number;
}

export interface CollectResult {
  samples: Sample[];
  /** Value of the collector's up metric, when the collector has one and decides it itself. */
  up?: number;
  pages?: number;
  truncated?: Truncation;
}

export interface Collector {
  readonly name: Exclude<CollectorName, 'exporter'>;
  /** An up-style gauge the runner writes on every poll (0 on failure), if any. */
  readonly upMetric?: MetricDef;
  collect(ctx: CollectContext): Promise<CollectResult>;
}
