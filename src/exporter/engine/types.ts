import type { Facts, FactKey } from './facts.js';
import type { MetricDef } from './metric.js';
import type { Sample } from './labels.js';
import type { Response } from '../http/client.js';
import type { RowSkip } from './rows.js';

/**
 * Node-scoped collectors describe one data node and run per target. Network-scoped collectors
 * describe the network (the same answer from any healthy node) and run once per network, against
 * the freshest healthy target; their series carry `network` instead of `target`.
 */
export type Scope = 'node' | 'network';

/**
 * What a collector fetches with: a GET of a path with its query, under an endpoint label (the
 * transport's bounds and counters are kept by it), within the caller's signal. The transport's
 * client is one; a test passes a plain object.
 */
export interface Fetcher {
  get(path: string, query: readonly (readonly [string, string])[], endpoint: string, signal: AbortSignal, rows?: number): Promise<Response>;
}

export interface CollectContext {
  /** The value of the series' first label: the target name, or the network for network scope. */
  target: string;
  client: Fetcher;
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
  /** What the poll established beyond its series, under the keys the collector declares. */
  facts?: Facts;
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
  /** The facts its polls publish (engine/facts.ts), for readers that look the publisher up by fact. */
  readonly facts?: readonly FactKey<unknown>[] | undefined;
}
