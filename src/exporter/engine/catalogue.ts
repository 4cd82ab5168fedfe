/**
 * The single metric catalogue: every series the exporter writes is defined here once, with the
 * facts the reference in docs/metrics.md is generated from (type, labels, unit, source field).
 *
 * Each entry reads as a row: `collector(name, labels, unit).source(where from).help(what it means)`,
 * where `collector` is the helper of the collector that writes it (see `metricsOf`). The type
 * follows from the name: counters end in `_total`, gauges do not.
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
  /** The collector that writes it, or 'fleet' (cross-target signals) or 'exporter' (its own). */
  collector: string;
}

const cached = ' Polled and cached by the exporter.';

/** A metric of `collector`: a counter when its name ends in `_total` (Prometheus' rule), else a gauge. */
export function defineMetric(collector: string, name: string, labels: readonly string[], unit: string, source: string, help: string): MetricDef {
  const type: MetricType = name.endsWith('_total') ? 'counter' : 'gauge';
  const note = collector === 'exporter' ? '' : collector === 'fleet' ? ' Computed by the exporter from polled values.' : cached;
  return { name, type, labels, unit, source, collector, help: `${help} Source: ${source}.${note}` };
}

/**
 * The catalogue's rows for one collector: `statistics('vega_peers', T, 'peers').source(...).help(...)`
 * is `defineMetric('statistics', 'vega_peers', T, 'peers', source, help)`, spelt so that prettier
 * keeps each row to a line per part instead of a line per argument.
 */
function metricsOf(collector: string) {
  return (name: string, labels: readonly string[], unit: string) => ({
    source: (source: string) => ({
      help: (help: string): MetricDef => defineMetric(collector, name, labels, unit, source, help),
    }),
  });
}

const T = ['target'] as const;
const N = ['network'] as const;
const STATS = 'GET /statistics';
const MK = 'GET /markets (or /api/v2/markets)';
const POS = 'GET /api/v2/positions';
const ORD = 'GET /api/v2/order/{id}';
const SEG = 'GET /api/v2/networkhistory/segments';
const MD = 'GET /api/v2/markets/data';
const ND = 'GET /api/v2/network/data';
/** Help of the positions' fee and funding series: what the period label means. */
const POSITION_FEES = (what: string): string =>
  `${what}, in whole settlement-asset units: period="all" over the position's whole history, period="since_open" since it last opened from zero or flipped side. Absent for nodes before v0.79 (which do not send them) and while the asset decimals are unknown. Exact up to float64 rounding.`;

// One helper per owner, in the order of the sections below.
const statistics = metricsOf('statistics');
const networkHistory = metricsOf('network_history');
const keyRotations = metricsOf('key_rotations');
const markets = metricsOf('markets');
const positions = metricsOf('positions');
const datanodeInfo = metricsOf('datanode_info');
const historySegments = metricsOf('history_segments');
const marketData = metricsOf('market_data');
const networkData = metricsOf('network_data');
const parties = metricsOf('parties');
const nodeSignatures = metricsOf('node_signatures');
const orders = metricsOf('orders');
const fleet = metricsOf('fleet');
const exporter = metricsOf('exporter');

export const M = {
  // ---- statistics ------------------------------------------------------------------------------
  up: statistics('vega_up', T, '')
    .source(`${STATS} (1 when the last poll succeeded)`)
    .help('Whether the data node answered its last statistics poll (1) or not (0).'),
  blockHeight: statistics('vega_block_height', T, 'blocks').source(`${STATS} statistics.blockHeight`).help('Core block height.'),
  datanodeBlockHeight: statistics('vega_datanode_block_height', T, 'blocks')
    .source(`${STATS} header X-Block-Height`)
    .help('Last block the data node itself has processed; absent when the header is missing or 0.'),
  datanodeBlockTimestamp: statistics('vega_datanode_block_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} header X-Block-Timestamp (unix ns)`)
    .help("Time of the data node's last processed block; absent when the header is missing or 0."),
  datanodeLag: statistics('vega_datanode_lag_blocks', T, 'blocks')
    .source(`${STATS} statistics.blockHeight minus header X-Block-Height`)
    .help('How many blocks the data node trails core; absent when the header is missing.'),
  blockTimestamp: statistics('vega_block_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.vegaTime`)
    .help('Time of the current block.'),
  currentTimestamp: statistics('vega_current_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.currentTime`)
    .help("Core's wall clock when it answered; minus vega_block_timestamp_seconds gives block-time staleness."),
  genesisTimestamp: statistics('vega_genesis_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.genesisTime`)
    .help('Genesis time of the chain; absent while the chain replays.'),
  coreStartTimestamp: statistics('vega_core_start_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.uptime`)
    .help('When the core process started (the uptime field is a start time, not a duration).'),
  blockStaleness: statistics('vega_block_time_staleness_seconds', T, 'seconds')
    .source(`${STATS} statistics.currentTime minus statistics.vegaTime`)
    .help("How far the current block's time trails core's clock: grows when the chain halts."),
  blockDuration: statistics('vega_block_duration_seconds', T, 'seconds')
    .source(`${STATS} statistics.blockDuration (ns)`)
    .help('Time between the last two blocks.'),
  peers: statistics('vega_peers', T, 'peers').source(`${STATS} statistics.totalPeers`).help('Consensus peers connected to the node.'),
  backlog: statistics('vega_backlog_transactions', T, 'transactions').source(`${STATS} statistics.backlogLength`).help('Transactions waiting in the mempool.'),
  txPerBlock: statistics('vega_block_transactions', T, 'transactions').source(`${STATS} statistics.txPerBlock`).help('Transactions in the last block.'),
  avgTxBytes: statistics('vega_block_average_transaction_size_bytes', T, 'bytes')
    .source(`${STATS} statistics.averageTxBytes`)
    .help('Average transaction size in the last block.'),
  avgOrdersPerBlock: statistics('vega_block_orders', T, 'orders').source(`${STATS} statistics.averageOrdersPerBlock`).help('Orders in the last block.'),
  eventCount: statistics('vega_block_events', T, 'events').source(`${STATS} statistics.eventCount`).help('Events emitted in the last block.'),
  tradesPerSecond: statistics('vega_trades_per_second', T, 'trades per second')
    .source(`${STATS} statistics.tradesPerSecond`)
    .help("Trades per second over the last block's duration."),
  ordersPerSecond: statistics('vega_chain_orders_per_second', T, 'orders per second')
    .source(`${STATS} statistics.ordersPerSecond`)
    .help("Orders per second over the last block's duration."),
  eventsPerSecond: statistics('vega_events_per_second', T, 'events per second')
    .source(`${STATS} statistics.eventsPerSecond`)
    .help("Events per second over the last block's duration."),
  ordersCreated: statistics('vega_chain_orders_submitted_total', T, 'orders')
    .source(`${STATS} statistics.totalCreateOrder`)
    .help('Orders created since the core started (resets when core restarts).'),
  ordersAmended: statistics('vega_chain_orders_amended_total', T, 'orders')
    .source(`${STATS} statistics.totalAmendOrder`)
    .help('Order amendments since the core started (resets when core restarts).'),
  ordersCancelled: statistics('vega_chain_orders_cancelled_total', T, 'orders')
    .source(`${STATS} statistics.totalCancelOrder`)
    .help('Order cancellations since the core started (resets when core restarts).'),
  ordersTotal: statistics('vega_chain_orders_total', T, 'orders')
    .source(`${STATS} statistics.totalOrders`)
    .help('Orders processed since the core started (resets when core restarts).'),
  tradesTotal: statistics('vega_chain_trades_total', T, 'trades')
    .source(`${STATS} statistics.totalTrades`)
    .help('Trades since the core started (resets when core restarts).'),
  markets: statistics('vega_statistics_markets', T, 'markets')
    .source(`${STATS} statistics.totalMarkets`)
    .help('Market count as statistics reports it (real cores always report 0; use the markets collector).'),
  subscriptions: statistics('vega_subscriptions', [...T, 'kind'], 'subscriptions')
    .source(`${STATS} statistics.*Subscriptions`)
    .help('Open API subscriptions by kind (0 on real nodes).'),
  epoch: statistics('vega_epoch', T, 'epoch number').source(`${STATS} statistics.epochSeq`).help('Current epoch number.'),
  epochStart: statistics('vega_epoch_start_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.epochStartTime`)
    .help('When the current epoch started.'),
  epochExpiry: statistics('vega_epoch_expiry_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.epochExpiryTime`)
    .help('When the current epoch is due to end.'),
  chainStatus: statistics('vega_chain_status', [...T, 'status'], '')
    .source(`${STATS} statistics.status`)
    .help('Chain status: 1 for the current state, 0 for the others (unknown states are exported as sent).'),
  buildInfo: statistics('vega_build_info', [...T, 'app_version', 'app_version_hash', 'chain_version', 'chain_id'], '')
    .source(`${STATS} statistics.appVersion, appVersionHash, chainVersion, chainId`)
    .help('Versions and chain id of the node; value always 1.'),

  // ---- network history ---------------------------------------------------------------------------
  nhUp: networkHistory('vega_network_history_up', T, '')
    .source('GET /api/v2/networkhistory')
    .help('Whether network history is serving (1) or disabled/unreachable (0).'),
  nhPeers: networkHistory('vega_network_history_connected_peers', T, 'peers')
    .source('GET /api/v2/networkhistory connectedPeers (distinct)')
    .help('Distinct network-history peers connected.'),
  nhConnections: networkHistory('vega_network_history_connections', T, 'connections')
    .source('GET /api/v2/networkhistory connectedPeers (entries)')
    .help('Network-history connections, one per entry (a peer may hold several).'),

  // ---- key rotations -----------------------------------------------------------------------------
  rotations: keyRotations('vega_key_rotations_total', [...N, 'node_id'], 'rotations')
    .source('GET /api/v2/vega/keys/rotations (all pages)')
    .help('Key rotations per validator node over the whole history.'),
  rotationLastHeight: keyRotations('vega_key_rotation_last_block_height', [...N, 'node_id'], 'blocks')
    .source('GET /api/v2/vega/keys/rotations rotations.blockHeight')
    .help("Block height of the validator's last key rotation."),

  // ---- markets -----------------------------------------------------------------------------------
  marketsByState: markets('vega_markets', [...N, 'state'], 'markets')
    .source(`${MK} state`)
    .help('Markets by state; 0 for known states that have none.'),
  marketsByMode: markets('vega_markets_by_trading_mode', [...N, 'trading_mode'], 'markets')
    .source(`${MK} tradingMode`)
    .help('Markets by trading mode; 0 for known modes that have none.'),
  marketsOverLimit: markets('datanode_exporter_markets_over_limit', N, '')
    .source(`${MK} (count versus collectors.markets.max_markets)`)
    .help('Whether there are more markets than max_markets (1), in which case per-market series are not exported.'),
  marketInfo: markets('vega_market_info', [...N, 'market_id', 'code', 'name', 'product', 'settlement_asset', 'quote_name', 'tags'], '')
    .source(`${MK} id, tradableInstrument.instrument.{code,name,metadata.tags}, product`)
    .help(
      'Market identity; value always 1. settlement_asset is the asset id money is settled in (the quote asset for spot, whose quote_name is empty), tags are comma-joined.',
    ),
  marketState: markets('vega_market_state', [...N, 'market_id', 'state'], '')
    .source(`${MK} state`)
    .help('Market state: 1 for the current state, 0 for the other known states.'),
  marketMode: markets('vega_market_trading_mode', [...N, 'market_id', 'trading_mode'], '')
    .source(`${MK} tradingMode`)
    .help('Trading mode: 1 for the current mode, 0 for the other known modes.'),
  marketDecimals: markets('vega_market_decimal_places', [...N, 'market_id'], 'digits')
    .source(`${MK} decimalPlaces`)
    .help('Price decimal places: real price = price / 10^decimal_places.'),
  marketPositionDecimals: markets('vega_market_position_decimal_places', [...N, 'market_id'], 'digits')
    .source(`${MK} positionDecimalPlaces`)
    .help('Position decimal places (may be negative): real size = size / 10^position_decimal_places.'),
  marketFee: markets('vega_market_fee_factor', [...N, 'market_id', 'fee'], 'ratio')
    .source(`${MK} fees.factors.{makerFee,infrastructureFee,liquidityFee,treasuryFee,buyBackFee}`)
    .help(
      'Fee factors as fractions of trade value: fee maker, infrastructure, liquidity, and (since v0.78) treasury and buy_back, which are absent for nodes that do not send them.',
    ),
  marketSlippage: markets('vega_market_slippage_factor', [...N, 'market_id', 'kind'], 'ratio')
    .source(`${MK} linearSlippageFactor, quadraticSlippageFactor`)
    .help('Slippage factors used in margin.'),
  marketLpPriceRange: markets('vega_market_lp_price_range', [...N, 'market_id'], 'ratio')
    .source(`${MK} lpPriceRange (liquiditySlaParams.priceRange when "" or absent, as on current nodes)`)
    .help('Liquidity provision price range.'),
  marketTimestamp: markets('vega_market_timestamp_seconds', [...N, 'market_id', 'event'], 'seconds since epoch')
    .source(`${MK} marketTimestamps.{proposed,pending,open,close}`)
    .help('Market lifecycle times that are set (unset ones are absent).'),
  marketAuctionDuration: markets('vega_market_opening_auction_duration_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} openingAuction.duration`)
    .help('Opening auction duration.'),
  marketAuctionVolume: markets('vega_market_opening_auction_volume', [...N, 'market_id'], 'contracts (raw)')
    .source(`${MK} openingAuction.volume`)
    .help('Minimum opening auction volume, in raw position units.'),
  marketTriggers: markets('vega_market_price_monitoring_triggers', [...N, 'market_id'], 'triggers')
    .source(`${MK} priceMonitoringSettings.parameters.triggers`)
    .help('Number of price-monitoring triggers.'),
  marketTriggerHorizon: markets('vega_market_price_monitoring_trigger_horizon_seconds', [...N, 'market_id', 'trigger'], 'seconds')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].horizon`)
    .help(
      'Per price-monitoring trigger: the horizon the price move is projected over. trigger is the index in the market\'s list ("0" first; the first 16 only).',
    ),
  marketTriggerProbability: markets('vega_market_price_monitoring_trigger_probability', [...N, 'market_id', 'trigger'], 'ratio')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].probability`)
    .help('Per price-monitoring trigger: the probability level its bounds are drawn at (0 to 1). trigger as for the horizon.'),
  marketTriggerExtension: markets('vega_market_price_monitoring_trigger_auction_extension_seconds', [...N, 'market_id', 'trigger'], 'seconds')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].auctionExtension`)
    .help('Per price-monitoring trigger: how long a price auction it starts lasts (or is extended by). trigger as for the horizon.'),
  marketTargetStakeWindow: markets('vega_market_target_stake_time_window_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} liquidityMonitoringParameters.targetStakeParameters.timeWindow`)
    .help('Target-stake time window.'),
  marketLiquidityTriggeringRatio: markets('vega_market_liquidity_triggering_ratio', [...N, 'market_id'], 'ratio')
    .source(`${MK} liquidityMonitoringParameters.triggeringRatio`)
    .help(
      'Liquidity monitoring\'s triggering ratio: the fraction of the target stake below which supplied stake starts a liquidity auction; absent when unset ("").',
    ),
  marketLiquidityAuctionExtension: markets('vega_market_liquidity_auction_extension_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} liquidityMonitoringParameters.auctionExtension`)
    .help("Liquidity monitoring's auction extension: how long a liquidity auction lasts (or is extended by)."),
  marketTargetStakeScaling: markets('vega_market_target_stake_scaling_factor', [...N, 'market_id'], 'ratio')
    .source(`${MK} liquidityMonitoringParameters.targetStakeParameters.scalingFactor`)
    .help('Target-stake scaling factor.'),
  marketRisk: markets('vega_market_risk_parameter', [...N, 'market_id', 'model', 'parameter'], '')
    .source(`${MK} tradableInstrument.{logNormalRiskModel,simpleRiskModel}`)
    .help(
      'Risk-model parameters: model log_normal (tau, risk_aversion, mu, r, sigma) or simple (factor_long, factor_short, max_move_up, min_move_down, probability_of_trading).',
    ),
  marketMarginScaling: markets('vega_market_margin_scaling_factor', [...N, 'market_id', 'level'], 'ratio')
    .source(`${MK} tradableInstrument.marginCalculator.scalingFactors`)
    .help('Margin scaling factors: search, initial, collateral_release.'),

  // ---- positions ---------------------------------------------------------------------------------
  positionVolume: positions('vega_position_open_volume', [...N, 'market_id', 'party_id'], 'contracts')
    .source(`${POS} openVolume / 10^positionDecimalPlaces`)
    .help(
      'Open volume, signed (negative is short), in contracts. Exact up to float64 rounding (scaled by 10^positionDecimalPlaces exactly, which may be negative).',
    ),
  positionEntryPrice: positions('vega_position_average_entry_price', [...N, 'market_id', 'party_id'], 'quote units')
    .source(`${POS} averageEntryPrice / 10^decimalPlaces`)
    .help(
      "Average entry price in the market's price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.",
    ),
  positionRealised: positions('vega_position_realised_pnl', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} realisedPnl / 10^asset decimals`)
    .help(
      'Realised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionUnrealised: positions('vega_position_unrealised_pnl', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} unrealisedPnl / 10^asset decimals`)
    .help(
      'Unrealised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionLossSoc: positions('vega_position_loss_socialisation', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} lossSocialisationAmount / 10^asset decimals`)
    .help(
      'Loss socialisation amount in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionTakerFees: positions('vega_position_taker_fees_paid', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} takerFeesPaid, takerFeesPaidSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Taker fees the party paid on its trades in the market')),
  positionMakerFees: positions('vega_position_maker_fees_received', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} makerFeesReceived, makerFeesReceivedSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Maker fees the party received on its trades in the market')),
  positionOtherFees: positions('vega_position_other_fees_paid', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} feesPaid, feesPaidSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('The other fees the party paid on its trades in the market (infrastructure, liquidity and the like)')),
  positionFunding: positions('vega_position_funding_payments', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} fundingPaymentAmount, fundingPaymentAmountSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Perpetual markets: the net of the funding payments of the position, signed as the node sends it')),
  positionStatus: positions('vega_position_status', [...N, 'market_id', 'party_id', 'status'], '')
    .source(`${POS} positionStatus`)
    .help('Position status: 1 for the current status, 0 for the other known ones.'),
  positionUpdated: positions('vega_position_updated_timestamp_seconds', [...N, 'market_id', 'party_id'], 'seconds since epoch')
    .source(`${POS} updatedAt (unix ns; "0" is absent)`)
    .help('When the position last changed.'),

  // ---- datanode_info, history_segments ------------------------------------------------------------
  datanodeBuildInfo: datanodeInfo('vega_datanode_build_info', [...T, 'version', 'commit_hash'], '')
    .source('GET /api/v2/info version, commitHash')
    .help("The data node's own software version and commit (vega_build_info carries the core's); value always 1."),
  segments: historySegments('vega_history_segments', T, 'segments').source(`${SEG} segments (rows)`).help('Network-history segments the data node lists.'),
  segmentLatestTo: historySegments('vega_history_segment_latest_to_height', T, 'blocks')
    .source(`${SEG} segments[].toHeight (highest)`)
    .help('Last block of the newest segment; absent when the node lists none.'),
  segmentLatestFrom: historySegments('vega_history_segment_latest_from_height', T, 'blocks')
    .source(`${SEG} fromHeight of the segment with the highest toHeight`)
    .help('First block of the newest segment; absent when the node lists none.'),

  // ---- market_data -------------------------------------------------------------------------------
  mdMode: marketData('vega_market_data_trading_mode', [...N, 'market_id', 'trading_mode'], '')
    .source(`${MD} marketTradingMode`)
    .help('Live trading mode: 1 for the current mode, 0 for the other known modes.'),
  mdState: marketData('vega_market_data_state', [...N, 'market_id', 'state'], '')
    .source(`${MD} marketState`)
    .help('Live market state: 1 for the current state, 0 for the other known states.'),
  mdAuction: marketData('vega_market_auction_timestamp_seconds', [...N, 'market_id', 'event'], 'seconds since epoch')
    .source(`${MD} auctionStart, auctionEnd (unix ns; "0" is absent)`)
    .help('Start and (expected) end of the current auction; absent outside auctions.'),
  mdTrigger: marketData('vega_market_auction_trigger_info', [...N, 'market_id', 'trigger', 'extension_trigger'], '')
    .source(`${MD} trigger, extensionTrigger`)
    .help('What started the current auction and what extended it; present (1) only while a trigger is set.'),
  mdPrice: marketData('vega_market_data_price', [...N, 'market_id', 'kind'], 'quote units')
    .source(`${MD} markPrice, lastTradedPrice, midPrice, indicativePrice, bestBidPrice, bestOfferPrice / 10^decimalPlaces`)
    .help("Live prices in the market's price units; absent while the market's decimals are unknown. Exact up to float64 rounding."),
  mdVolume: marketData('vega_market_data_volume', [...N, 'market_id', 'kind'], 'contracts')
    .source(`${MD} bestBidVolume, bestOfferVolume, indicativeVolume / 10^positionDecimalPlaces`)
    .help('Volume at the best bid and offer and the indicative uncrossing volume, in contracts; absent while decimals are unknown.'),
  mdOpenInterest: marketData('vega_market_open_interest', [...N, 'market_id'], 'contracts')
    .source(`${MD} openInterest / 10^positionDecimalPlaces`)
    .help('Open interest in contracts; absent while decimals are unknown.'),
  mdStake: marketData('vega_market_stake', [...N, 'market_id', 'kind'], 'settlement-asset units')
    .source(`${MD} targetStake, suppliedStake / 10^settlement-asset decimals`)
    .help('Target and supplied liquidity stake in whole settlement-asset units; absent while the asset decimals are unknown.'),
  mdBound: marketData('vega_market_price_monitoring_bound', [...N, 'market_id', 'horizon', 'bound'], 'quote units')
    .source(
      `${MD} priceMonitoringBounds[].minValidPrice, maxValidPrice / 10^decimalPlaces (active bounds only; per trigger horizon, the range all of them allow)`,
    )
    .help(
      'Price-monitoring bounds: trading outside [min, max] starts a price auction. Only active bounds count (those without `active`, from nodes before v0.77, are taken as active); when several active bounds share a horizon, min is the highest of their minimums and max the lowest of their maximums. A horizon whose bounds are all inactive has no min and max: see vega_market_price_monitoring_bound_active.',
    ),
  mdBoundActive: marketData('vega_market_price_monitoring_bound_active', [...N, 'market_id', 'horizon'], '')
    .source(`${MD} priceMonitoringBounds[].active (v0.77; absent is active)`)
    .help(
      'Whether a price-monitoring bound of this horizon is active (1), or all of them are inactive (0): an inactive bound has already started its auction and limits nothing until the network resets it, so its range is not exported.',
    ),
  mdNextMtm: marketData('vega_market_next_mark_to_market_timestamp_seconds', [...N, 'market_id'], 'seconds since epoch')
    .source(`${MD} nextMarkToMarket (unix ns; "0" is absent)`)
    .help('When the next mark-to-market settlement is due.'),
  mdFundingRate: marketData('vega_market_funding_rate', [...N, 'market_id'], 'ratio')
    .source(`${MD} productData.perpetualData.fundingRate`)
    .help('Perpetual markets: the current funding rate; absent for other products.'),
  mdTimestamp: marketData('vega_market_data_timestamp_seconds', [...N, 'market_id'], 'seconds since epoch')
    .source(`${MD} timestamp (unix ns)`)
    .help('When the node computed this market data.'),
  mdOverLimit: marketData('datanode_exporter_market_data_over_limit', N, '')
    .source(`${MD} (rows after collectors.market_data.allow)`)
    .help('Whether more markets than collectors.market_data.max_markets were listed (1): per-market series are then not exported.'),

  // ---- network_data ------------------------------------------------------------------------------
  ndValidators: networkData('vega_network_validators', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.totalNodes and {tendermint,ersatz,pending}Nodes.total`)
    .help('Validators in the network (set="all") and in each set: tendermint (consensus), ersatz (standby), pending.'),
  ndInactive: networkData('vega_network_validators_inactive', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.inactiveNodes and {tendermint,ersatz,pending}Nodes.inactive`)
    .help('Inactive validators, in all and per set.'),
  ndMaximum: networkData('vega_network_validators_maximum', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.{tendermint,ersatz,pending}Nodes.maximum`)
    .help('The most validators a set may hold; absent when the node does not say.'),
  ndStaked: networkData('vega_network_stake', N, 'tokens')
    .source(`${ND} nodeData.stakedTotal / 10^18`)
    .help("Stake on all validators in whole governance tokens (the network's own token has 18 decimals). Exact up to float64 rounding."),
  ndEpochTimestamp: networkData('vega_network_epoch_timestamp_seconds', [...N, 'event'], 'seconds since epoch')
    .source('GET /api/v2/epoch epoch.timestamps.startTime, expiryTime, endTime (unix ns; "0" is absent)')
    .help('Start, expected expiry and (once over) end of the current epoch.'),
  ndEpochFirstBlock: networkData('vega_network_epoch_first_block', N, 'blocks')
    .source('GET /api/v2/epoch epoch.timestamps.firstBlock')
    .help('First block of the current epoch.'),

  // ---- parties -----------------------------------------------------------------------------------
  parties: parties('vega_parties', N, 'parties').source('GET /api/v2/parties (all pages)').help('Parties known to the data node.'),
  partyExists: parties('vega_party_exists', [...N, 'party_id'], '')
    .source('GET /api/v2/parties?partyId= (404 is 0)')
    .help('Whether a listed party exists (1) or not (0).'),

  // ---- node signatures ---------------------------------------------------------------------------
  signatures: nodeSignatures('vega_node_signatures', [...N, 'resource_id', 'kind'], 'signatures')
    .source('GET /api/v2/node/signatures?id= (all pages)')
    .help('Validator signatures collected for a listed resource, by kind.'),
  signaturesCollected: nodeSignatures('vega_node_signatures_collected', [...N, 'resource_id'], 'signatures')
    .source('GET /api/v2/node/signatures?id= (all pages)')
    .help('Validator signatures collected for a listed resource, all kinds (0 when none).'),

  // ---- orders ------------------------------------------------------------------------------------
  orderFound: orders('vega_order_found', [...N, 'order_id'], '')
    .source(`${ORD} (404 is 0)`)
    .help('Whether a listed order exists (1) or not (0).'),
  orderInfo: orders('vega_order_info', [...N, 'order_id', 'market_id', 'party_id', 'side', 'type', 'time_in_force'], '')
    .source(`${ORD} marketId, partyId, side, type, timeInForce`)
    .help('Order identity; value always 1.'),
  orderStatus: orders('vega_order_status', [...N, 'order_id', 'status'], '')
    .source(`${ORD} status`)
    .help('Order status: 1 for the current status, 0 for the other known ones.'),
  orderSize: orders('vega_order_size', [...N, 'order_id'], 'contracts')
    .source(`${ORD} size / 10^positionDecimalPlaces`)
    .help('Order size in contracts. Exact up to float64 rounding.'),
  orderRemaining: orders('vega_order_remaining', [...N, 'order_id'], 'contracts')
    .source(`${ORD} remaining / 10^positionDecimalPlaces`)
    .help('Unfilled size in contracts. Exact up to float64 rounding.'),
  orderPrice: orders('vega_order_price', [...N, 'order_id'], 'quote units')
    .source(`${ORD} price / 10^decimalPlaces`)
    .help(
      "Limit price in the market's price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.",
    ),
  orderVersion: orders('vega_order_version', [...N, 'order_id'], 'version')
    .source(`${ORD} version (latest)`)
    .help('Latest version of the order: 1 plus the number of amendments.'),
  orderPeggedOffset: orders('vega_order_pegged_offset', [...N, 'order_id', 'reference'], 'quote units')
    .source(`${ORD} peggedOrder.offset / 10^decimalPlaces, peggedOrder.reference`)
    .help(
      "Pegged orders: the offset from the reference price (reference: PEGGED_REFERENCE_MID, _BEST_BID, _BEST_ASK) in the market's price units; absent for other orders and while the market's decimals are unknown. Exact up to float64 rounding.",
    ),
  orderReason: orders('vega_order_reason_info', [...N, 'order_id', 'reason'], '')
    .source(`${ORD} reason`)
    .help('Why the order was rejected (an ORDER_ERROR_* name); present (1) only while the order carries a reason.'),
  orderTimestamp: orders('vega_order_timestamp_seconds', [...N, 'order_id', 'event'], 'seconds since epoch')
    .source(`${ORD} createdAt, updatedAt, expiresAt (unix ns; "0" is absent)`)
    .help('Order times that are set: created, updated, expires.'),

  // ---- fleet signals (computed across targets) ----------------------------------------------------
  targetNetwork: fleet('vega_target_network_info', [...T, 'network'], '')
    .source("the exporter (chain id from GET /statistics, or the target's configured network)")
    .help(
      'Which network a target belongs to; value always 1. Join a per-target series to its network with `* on (target) group_left (network) vega_target_network_info`.',
    ),
  networkHealthyTargets: fleet('vega_network_healthy_targets', N, 'targets')
    .source('the exporter (targets whose last statistics poll succeeded)')
    .help('Healthy targets per network.'),
  fleetHeightLag: fleet('vega_fleet_block_height_lag_blocks', [...T, 'network'], 'blocks')
    .source("GET /statistics statistics.blockHeight, vegaTime, currentTime and blockDuration across the network's targets")
    .help(
      "How far this target's core height trails the highest among its network's healthy targets, each carried to the network's newest poll (docs/fleet.md).",
    ),
  fleetChainIdMismatch: fleet('vega_fleet_chain_id_mismatch', [...T, 'group'], '')
    .source('GET /statistics statistics.chainId across targets')
    .help("Whether the target's chain id differs from the majority of its group (the configured network, or all targets without one)."),
  fleetVersionMismatch: fleet('vega_fleet_version_mismatch', [...T, 'network'], '')
    .source("GET /statistics statistics.appVersion across the network's targets")
    .help("Whether the target's app version differs from the majority of its network."),
  fleetDatanodeVersionMismatch: fleet('vega_fleet_datanode_version_mismatch', [...T, 'network'], '')
    .source("GET /api/v2/info version across the network's targets")
    .help("Whether the target's data-node version differs from the majority of its network (the core's version is vega_fleet_version_mismatch)."),
  historySegmentLag: fleet('vega_history_segment_lag_blocks', [...T, 'network'], 'blocks')
    .source(
      "the data node's height (GET /statistics header X-Block-Height, else statistics.blockHeight) minus the highest toHeight of GET /api/v2/networkhistory/segments",
    )
    .help("How many blocks the node's newest network-history segment trails its own height (0 when ahead); absent when either is unknown."),
  fleetDataAgreement: fleet('vega_fleet_data_agreement', [...T, 'network'], '')
    .source("the consistency collector (market set and latest key rotation) across the network's targets")
    .help("Whether the target's view of network data matches the majority of its network at about the same height (1) or not (0); absent when not comparable."),

  // ---- the exporter itself -----------------------------------------------------------------------
  collectorSuccess: exporter('datanode_exporter_collector_success', [...T, 'collector'], '')
    .source('the exporter')
    .help("Whether the collector's last poll succeeded (1) or failed (0)."),
  collectorDuration: exporter('datanode_exporter_collector_duration_seconds', [...T, 'collector'], 'seconds')
    .source('the exporter')
    .help("Duration of the collector's last poll."),
  collectorLastSuccess: exporter('datanode_exporter_collector_last_success_timestamp_seconds', [...T, 'collector'], 'seconds since epoch')
    .source('the exporter')
    .help("When the collector's last successful poll finished."),
  netCollectorSuccess: exporter('datanode_exporter_network_collector_success', [...N, 'collector'], '')
    .source('the exporter')
    .help("Whether the network-scoped collector's last poll succeeded on some target (1) or on none (0)."),
  collectorSeriesLimited: exporter('datanode_exporter_collector_series_limited', [...T, 'collector'], '')
    .source('the exporter (limits.series_per_target)')
    .help("Whether the collector's last poll was cut at its share of the target's series limit (1): its further series are not exported."),
  netCollectorSeriesLimited: exporter('datanode_exporter_network_collector_series_limited', [...N, 'collector'], '')
    .source('the exporter (limits.series_per_network)')
    .help("Whether the network-scoped collector's last poll was cut at its share of the network's series limit (1): its further series are not exported."),
  metricsTruncated: exporter('datanode_exporter_metrics_truncated', [], '')
    .source('the exporter (limits.metrics_body_bytes)')
    .help('Present (1) when the polled part of /metrics reached limits.metrics_body_bytes and the families after that point were left out.'),
  configReloadSuccessful: exporter('datanode_exporter_config_last_reload_successful', [], '')
    .source('the exporter (start, SIGHUP, POST /-/reload)')
    .help('Whether the last configuration load succeeded (1) or was refused, the running configuration kept (0).'),
  configReloadSuccessTimestamp: exporter('datanode_exporter_config_last_reload_success_timestamp_seconds', [], 'seconds since epoch')
    .source('the exporter (start, SIGHUP, POST /-/reload)')
    .help('When the running configuration was loaded.'),
  netCollectorDuration: exporter('datanode_exporter_network_collector_duration_seconds', [...N, 'collector'], 'seconds')
    .source('the exporter')
    .help("Duration of the network-scoped collector's last poll, fail-overs included."),
  netCollectorLastSuccess: exporter('datanode_exporter_network_collector_last_success_timestamp_seconds', [...N, 'collector'], 'seconds since epoch')
    .source('the exporter')
    .help("When the network-scoped collector's last successful poll finished."),
  networkSource: exporter('datanode_exporter_network_collector_source_info', [...N, 'collector', 'target'], '')
    .source('the exporter')
    .help("The target that answered the network-scoped collector's last successful poll; value always 1."),
  netUpstreamPages: exporter('datanode_exporter_network_upstream_pages_total', [...N, 'collector'], 'pages')
    .source('the exporter')
    .help('Pages of paginated lists fetched by network-scoped collectors.'),
  netPaginationTruncated: exporter('datanode_exporter_network_pagination_truncated', [...N, 'collector'], '')
    .source('the exporter')
    .help('Whether the last walk of a network-scoped list stopped early: 1 means the series are incomplete.'),
  rowsSkipped: exporter('datanode_exporter_collector_rows_skipped_total', [...T, 'collector', 'reason'], 'rows')
    .source('the exporter')
    .help(
      'Rows of node-scoped answers left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.',
    ),
  netRowsSkipped: exporter('datanode_exporter_network_collector_rows_skipped_total', [...N, 'collector', 'reason'], 'rows')
    .source('the exporter')
    .help(
      'Rows of network-scoped answers (markets, positions, orders, parties, rotations, signatures) left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.',
    ),
  probeSuccess: exporter('datanode_exporter_probe_success', T, '').source('the exporter (/probe)').help('Whether every collector the probe ran succeeded.'),
  probeDuration: exporter('datanode_exporter_probe_duration_seconds', T, 'seconds').source('the exporter (/probe)').help('How long the probe took.'),
  upstreamRequests: exporter('datanode_exporter_upstream_requests_total', [...T, 'endpoint', 'status'], 'requests')
    .source('the exporter')
    .help(
      'Requests to the data node by endpoint and HTTP status: the statuses the exporter handles apart (200, 400, 403, 404, 429, 500-504) by code, the others by class (2xx to 5xx); "error" when no status came back.',
    ),
  upstreamBackoffUntil: exporter('datanode_exporter_upstream_backoff_until_timestamp_seconds', T, 'seconds since epoch')
    .source('the exporter (RateLimit-Reset, Retry-After, RateLimit-Retry-After, capped by http.max_backoff)')
    .help('While the node has asked the exporter to back off: when the back-off ends. Absent otherwise; a reload lifts it.'),
  upstreamPages: exporter('datanode_exporter_upstream_pages_total', [...T, 'collector'], 'pages')
    .source('the exporter')
    .help('Pages of paginated lists fetched.'),
  paginationTruncated: exporter('datanode_exporter_pagination_truncated', [...T, 'collector'], '')
    .source('the exporter')
    .help('Whether the last walk of a paginated list stopped early (page cap or cursor loop): 1 means the series are incomplete.'),
} as const satisfies Record<string, MetricDef>;

export type MetricKey = keyof typeof M;
/** Every metric defined here; the running catalogue adds those of registered collectors (collectors/index.ts). */
export const BUILTIN_METRICS: readonly MetricDef[] = Object.values(M);

/** The metrics one collector (or 'fleet', or 'exporter') owns, in catalogue order. */
export function ownedBy(owner: string): MetricDef[] {
  return BUILTIN_METRICS.filter((m) => m.collector === owner);
}

/** The catalogue of a set of collectors: theirs in registry order, then the fleet's and the exporter's. */
export function catalogueOf(collectors: readonly { metrics: readonly MetricDef[] }[]): MetricDef[] {
  return [...new Set([...collectors.flatMap((c) => c.metrics), ...ownedBy('fleet'), ...ownedBy('exporter')])];
}

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
