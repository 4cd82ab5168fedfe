import type { CollectorName, MetricDef } from '../exposition/catalogue.js';
import type { DatanodeClient } from '../upstream/client.js';
import type { Truncation } from '../upstream/paginate.js';
import type { Sample } from '../exposition/render.js';

/**
 * Node-scoped collectors describe one data node and run per target. Network-scoped collectors
 * describe the network (the same answer from any healthy node) and run once per network, against
 * the freshest healthy target; their series carry `network` instead of `target`.
 */
export type Scope = 'node' | 'network';

export interface CollectContext {
  /** The value of the series' first label: the target name, or the network for network scope. */
  target: string;
  client: DatanodeClient;
  signal: AbortSignal;
  pageSize: number;
  maxPages: number;
}

/** What the fleet logic learns about a node from a poll. */
export interface NodeFacts {
  chainId?: string;
  appVersion?: string;
  height?: bigint;
  datanodeHeight?: bigint;
  /** A digest of the node's view of network data, and the data-node height it was taken at. */
  fingerprint?: string;
  fingerprintHeight?: bigint;
}

export interface CollectResult {
  samples: Sample[];
  /** Value of the collector's up metric, when the collector has one and decides it itself. */
  up?: number;
  pages?: number;
  truncated?: Truncation;
  facts?: NodeFacts;
}

export interface Collector {
  readonly name: Exclude<CollectorName, 'exporter' | 'fleet'>;
  readonly scope: Scope;
  /** An up-style gauge the runner writes on every poll (0 on failure), if any. */
  readonly upMetric?: MetricDef;
  collect(ctx: CollectContext): Promise<CollectResult>;
}
