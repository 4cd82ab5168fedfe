/**
 * The collector registry: every collector the exporter can run, in the order their series and
 * documentation appear. A new collector is one module (see engine/define.ts), its metric families
 * declared in it, and one line here.
 */
import { familiesOf, type AnyCollectorModule } from '../../engine/define.js';
import type { MetricDef } from '../../engine/metric.js';
import consistency from './consistency.js';
import datanodeInfo from './datanode-info.js';
import historySegments from './history-segments.js';
import keyRotations from './key-rotations.js';
import marketData from './market-data.js';
import markets from './markets.js';
import networkData from './network-data.js';
import networkHistory from './network-history.js';
import nodeSignatures from './node-signatures.js';
import orders from './orders.js';
import parties from './parties.js';
import positions from './positions.js';
import statistics from './statistics.js';

export const COLLECTORS = [
  statistics,
  networkHistory,
  datanodeInfo,
  historySegments,
  consistency,
  keyRotations,
  markets,
  marketData,
  networkData,
  positions,
  parties,
  nodeSignatures,
  orders,
] as const satisfies readonly AnyCollectorModule[];

/** Every collector's families, in exposition order (the fleet's and the exporter's own follow them). */
export const COLLECTOR_METRICS: readonly MetricDef[] = COLLECTORS.flatMap(familiesOf);

/** Metric name prefixes the node software (and the old vega-exporter) already use; the exporter's own `datanode_exporter_` excepted. */
export const RESERVED_PREFIXES = [
  'datanode_',
  'vega_engine_',
  'vega_orders',
  'vega_request_',
  'vega_snapshot_',
  'vega_unconfirmedtx',
  'vega_withdrawals_',
  'vega_market_best_bid_price',
  'vega_party_count_total',
  'vega_validator_',
] as const;
