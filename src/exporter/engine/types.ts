import type { MetricDef } from './metric.js';
import type { Sample } from './labels.js';
import type { DatanodeClient } from '../http/client.js';
import type { RowSkip } from './rows.js';

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
  /** Core's block time (vegaTime), its clock at the answer (currentTime), and the last block interval, in ns. */
  blockTimeNs?: bigint;
  currentTimeNs?: bigint;
  blockDurationNs?: bigint;
  /** A digest of the node's view of network data, and the data-node height it was taken at. */
  fingerprint?: string;
  fingerprintHeight?: bigint;
  /** The data node's own version (GET /api/v2/info), apart from the core's appVersion. */
  datanodeVersion?: string;
  /** The toHeight of the node's newest network-history segment. */
  segmentHeight?: bigint;
}

export interface CollectResult {
  samples: Sample[];
  /** Value of the collector's up metric, when the collector has one and decides it itself. */
  up?: number;
  pages?: number;
  truncated?: Truncation;
  facts?: NodeFacts;
  /** The collector left series out to stay within a byte budget of its own: flagged and logged as the series limit is. */
  limited?: boolean;
  /** Rows left out because a field was bad; the runner counts and logs them. */
  skipped?: RowSkip[];
}

/** Why a walk of a paginated list stopped early (undefined: it did not). */
export type Truncation = 'page_cap' | 'cursor_loop' | 'row_cap' | undefined;

/** One running instance of a collector: JSON from the node in, samples out. */
export interface Collector {
  collect(ctx: CollectContext): Promise<CollectResult>;
}

/** How a collector shows in the runner's own series. */
export interface CollectorIdentity {
  readonly name: string;
  readonly scope: Scope;
  /** An up-style gauge the runner writes on every poll (0 on failure), if any. */
  readonly upMetric?: MetricDef | undefined;
  /** Walks paginated lists: its page count and truncation flag are exported from the first poll. */
  readonly paginated?: boolean | undefined;
}
