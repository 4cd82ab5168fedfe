/**
 * The single metric catalogue: every series the exporter writes is defined here once, with the
 * facts the reference in docs/metrics.md is generated from (type, labels, unit, source field).
 */

export type MetricType = 'gauge' | 'counter';
export type CollectorName = 'statistics' | 'network_history' | 'key_rotations' | 'exporter';

export interface MetricDef {
  name: string;
  type: MetricType;
  help: string;
  labels: readonly string[];
  unit: string;
  /** Endpoint and field the value comes from. */
  source: string;
  collector: CollectorName;
}

const STATS = 'GET /statistics';
const cached = ' Polled and cached by the exporter.';

function def(collector: CollectorName, name: string, type: MetricType, labels: readonly string[], unit: string, source: string, help: string): MetricDef {
  return { name, type, labels, unit, source, collector, help: `${help} Source: ${source}.${collector === 'exporter' ? '' : cached}` };
}

const T = ['target'] as const;

export const M = {
  // ---- statistics ------------------------------------------------------------------------------
  up: def('statistics', 'vega_up', 'gauge', T, '', `${STATS} (1 when the last poll succeeded)`, 'Whether the data node answered its last statistics poll (1) or not (0).'),
  blockHeight: def('statistics', 'vega_block_height', 'gauge', T, 'blocks', `${STATS} statistics.blockHeight`, 'Core block height.'),
  datanodeBlockHeight: def('statistics', 'vega_datanode_block_height', 'gauge', T, 'blocks', `${STATS} header X-Block-Height`, 'Last block the data node itself has processed; absent when the header is missing or 0.'),
  datanodeBlockTimestamp: def('statistics', 'vega_datanode_block_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} header X-Block-Timestamp (unix ns)`, "Time of the data node's last processed block; absent when the header is missing or 0."),
  datanodeLag: def('statistics', 'vega_datanode_lag_blocks', 'gauge', T, 'blocks', `${STATS} statistics.blockHeight minus header X-Block-Height`, 'How many blocks the data node trails core; absent when the header is missing.'),
  blockTimestamp: def('statistics', 'vega_block_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.vegaTime`, 'Time of the current block.'),
  currentTimestamp: def('statistics', 'vega_current_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.currentTime`, "Core's wall clock when it answered; minus vega_block_timestamp_seconds gives block-time staleness."),
  genesisTimestamp: def('statistics', 'vega_genesis_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.genesisTime`, 'Genesis time of the chain; absent while the chain replays.'),
  coreStartTimestamp: def('statistics', 'vega_core_start_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.uptime`, 'When the core process started (the uptime field is a start time, not a duration).'),
  blockDuration: def('statistics', 'vega_block_duration_seconds', 'gauge', T, 'seconds', `${STATS} statistics.blockDuration (ns)`, 'Time between the last two blocks.'),
  peers: def('statistics', 'vega_peers', 'gauge', T, 'peers', `${STATS} statistics.totalPeers`, 'Consensus peers connected to the node.'),
  backlog: def('statistics', 'vega_backlog_transactions', 'gauge', T, 'transactions', `${STATS} statistics.backlogLength`, 'Transactions waiting in the mempool.'),
  txPerBlock: def('statistics', 'vega_block_transactions', 'gauge', T, 'transactions', `${STATS} statistics.txPerBlock`, 'Transactions in the last block.'),
  avgTxBytes: def('statistics', 'vega_block_average_transaction_size_bytes', 'gauge', T, 'bytes', `${STATS} statistics.averageTxBytes`, 'Average transaction size in the last block.'),
  avgOrdersPerBlock: def('statistics', 'vega_block_orders', 'gauge', T, 'orders', `${STATS} statistics.averageOrdersPerBlock`, 'Orders in the last block.'),
  eventCount: def('statistics', 'vega_block_events', 'gauge', T, 'events', `${STATS} statistics.eventCount`, 'Events emitted in the last block.'),
  tradesPerSecond: def('statistics', 'vega_trades_per_second', 'gauge', T, 'trades per second', `${STATS} statistics.tradesPerSecond`, "Trades per second over the last block's duration."),
  ordersPerSecond: def('statistics', 'vega_chain_orders_per_second', 'gauge', T, 'orders per second', `${STATS} statistics.ordersPerSecond`, "Orders per second over the last block's duration."),
  eventsPerSecond: def('statistics', 'vega_events_per_second', 'gauge', T, 'events per second', `${STATS} statistics.eventsPerSecond`, "Events per second over the last block's duration."),
  ordersCreated: def('statistics', 'vega_chain_orders_created_total', 'counter', T, 'orders', `${STATS} statistics.totalCreateOrder`, 'Orders created since the core started (resets when core restarts).'),
  ordersAmended: def('statistics', 'vega_chain_orders_amended_total', 'counter', T, 'orders', `${STATS} statistics.totalAmendOrder`, 'Order amendments since the core started (resets when core restarts).'),
  ordersCancelled: def('statistics', 'vega_chain_orders_cancelled_total', 'counter', T, 'orders', `${STATS} statistics.totalCancelOrder`, 'Order cancellations since the core started (resets when core restarts).'),
  ordersTotal: def('statistics', 'vega_chain_orders_total', 'counter', T, 'orders', `${STATS} statistics.totalOrders`, 'Orders processed since the core started (resets when core restarts).'),
  tradesTotal: def('statistics', 'vega_chain_trades_total', 'counter', T, 'trades', `${STATS} statistics.totalTrades`, 'Trades since the core started (resets when core restarts).'),
  markets: def('statistics', 'vega_statistics_markets', 'gauge', T, 'markets', `${STATS} statistics.totalMarkets`, 'Market count as statistics reports it (real cores always report 0; use the markets collector).'),
  subscriptions: def('statistics', 'vega_subscriptions', 'gauge', [...T, 'kind'], 'subscriptions', `${STATS} statistics.*Subscriptions`, 'Open API subscriptions by kind (0 on real nodes).'),
  epoch: def('statistics', 'vega_epoch', 'gauge', T, 'epoch number', `${STATS} statistics.epochSeq`, 'Current epoch number.'),
  epochStart: def('statistics', 'vega_epoch_start_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.epochStartTime`, 'When the current epoch started.'),
  epochExpiry: def('statistics', 'vega_epoch_expiry_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.epochExpiryTime`, 'When the current epoch is due to end.'),
  chainStatus: def('statistics', 'vega_chain_status', 'gauge', [...T, 'status'], '', `${STATS} statistics.status`, 'Chain status: 1 for the current state, 0 for the others (unknown states are exported as sent).'),
  buildInfo: def('statistics', 'vega_build_info', 'gauge', [...T, 'app_version', 'app_version_hash', 'chain_version', 'chain_id'], '', `${STATS} statistics.appVersion, appVersionHash, chainVersion, chainId`, 'Versions and chain id of the node; value always 1.'),

  // ---- network history ---------------------------------------------------------------------------
  nhUp: def('network_history', 'vega_network_history_up', 'gauge', T, '', 'GET /api/v2/networkhistory', 'Whether network history is serving (1) or disabled/unreachable (0).'),
  nhPeers: def('network_history', 'vega_network_history_connected_peers', 'gauge', T, 'peers', 'GET /api/v2/networkhistory connectedPeers (distinct)', 'Distinct network-history peers connected.'),
  nhConnections: def('network_history', 'vega_network_history_connections', 'gauge', T, 'connections', 'GET /api/v2/networkhistory connectedPeers (entries)', 'Network-history connections, one per entry (a peer may hold several).'),

  // ---- key rotations -----------------------------------------------------------------------------
  rotations: def('key_rotations', 'vega_key_rotations_total', 'counter', [...T, 'node_id'], 'rotations', 'GET /api/v2/vega/keys/rotations (all pages)', 'Key rotations per validator node over the whole history.'),
  rotationLastHeight: def('key_rotations', 'vega_key_rotation_last_block_height', 'gauge', [...T, 'node_id'], 'blocks', 'GET /api/v2/vega/keys/rotations rotations.blockHeight', "Block height of the validator's last key rotation."),

  // ---- the exporter itself -----------------------------------------------------------------------
  collectorSuccess: def('exporter', 'vega_collector_success', 'gauge', [...T, 'collector'], '', 'the exporter', 'Whether the collector\'s last poll succeeded (1) or failed (0).'),
  collectorDuration: def('exporter', 'vega_collector_duration_seconds', 'gauge', [...T, 'collector'], 'seconds', 'the exporter', "Duration of the collector's last poll."),
  collectorLastSuccess: def('exporter', 'vega_collector_last_success_timestamp_seconds', 'gauge', [...T, 'collector'], 'seconds since epoch', 'the exporter', "When the collector's last successful poll finished."),
  upstreamRequests: def('exporter', 'vega_upstream_requests_total', 'counter', [...T, 'endpoint', 'status'], 'requests', 'the exporter', 'Requests to the data node by endpoint and HTTP status ("error" when no status came back).'),
  upstreamPages: def('exporter', 'vega_upstream_pages_total', 'counter', [...T, 'collector'], 'pages', 'the exporter', 'Pages of paginated lists fetched.'),
  paginationTruncated: def('exporter', 'vega_pagination_truncated', 'gauge', [...T, 'collector'], '', 'the exporter', 'Whether the last walk of a paginated list stopped early (page cap or cursor loop): 1 means the series are incomplete.'),
} as const satisfies Record<string, MetricDef>;

export type MetricKey = keyof typeof M;
export const CATALOGUE: readonly MetricDef[] = Object.values(M);

/** Metric name prefixes the node software (and the old vega-exporter) already use. */
export const RESERVED_PREFIXES = [
  'datanode_', 'vega_engine_', 'vega_orders', 'vega_request_', 'vega_snapshot_', 'vega_unconfirmedtx',
  'vega_withdrawals_', 'vega_market_best_bid_price', 'vega_party_count_total', 'vega_validator_',
] as const;
