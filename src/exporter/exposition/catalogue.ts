/**
 * The single metric catalogue: every series the exporter writes is defined here once, with the
 * facts the reference in docs/metrics.md is generated from (type, labels, unit, source field).
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

const STATS = 'GET /statistics';
const cached = ' Polled and cached by the exporter.';

export function defineMetric(collector: string, name: string, type: MetricType, labels: readonly string[], unit: string, source: string, help: string): MetricDef {
  const note = collector === 'exporter' ? '' : collector === 'fleet' ? ' Computed by the exporter from polled values.' : cached;
  return { name, type, labels, unit, source, collector, help: `${help} Source: ${source}.${note}` };
}

const T = ['target'] as const;
const N = ['network'] as const;
const MK = 'GET /markets (or /api/v2/markets)';
const POS = 'GET /api/v2/positions';
const ORD = 'GET /api/v2/order/{id}';
const SEG = 'GET /api/v2/networkhistory/segments';
const MD = 'GET /api/v2/markets/data';
const ND = 'GET /api/v2/network/data';
/** Help of the positions' fee and funding series: what the period label means. */
const POSITION_FEES = (what: string): string =>
  `${what}, in whole settlement-asset units: period="all" over the position's whole history, period="since_open" since it last opened from zero or flipped side. Absent for nodes before v0.79 (which do not send them) and while the asset decimals are unknown. Exact up to float64 rounding.`;

export const M = {
  // ---- statistics ------------------------------------------------------------------------------
  up: defineMetric('statistics', 'vega_up', 'gauge', T, '', `${STATS} (1 when the last poll succeeded)`, 'Whether the data node answered its last statistics poll (1) or not (0).'),
  blockHeight: defineMetric('statistics', 'vega_block_height', 'gauge', T, 'blocks', `${STATS} statistics.blockHeight`, 'Core block height.'),
  datanodeBlockHeight: defineMetric('statistics', 'vega_datanode_block_height', 'gauge', T, 'blocks', `${STATS} header X-Block-Height`, 'Last block the data node itself has processed; absent when the header is missing or 0.'),
  datanodeBlockTimestamp: defineMetric('statistics', 'vega_datanode_block_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} header X-Block-Timestamp (unix ns)`, "Time of the data node's last processed block; absent when the header is missing or 0."),
  datanodeLag: defineMetric('statistics', 'vega_datanode_lag_blocks', 'gauge', T, 'blocks', `${STATS} statistics.blockHeight minus header X-Block-Height`, 'How many blocks the data node trails core; absent when the header is missing.'),
  blockTimestamp: defineMetric('statistics', 'vega_block_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.vegaTime`, 'Time of the current block.'),
  currentTimestamp: defineMetric('statistics', 'vega_current_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.currentTime`, "Core's wall clock when it answered; minus vega_block_timestamp_seconds gives block-time staleness."),
  genesisTimestamp: defineMetric('statistics', 'vega_genesis_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.genesisTime`, 'Genesis time of the chain; absent while the chain replays.'),
  coreStartTimestamp: defineMetric('statistics', 'vega_core_start_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.uptime`, 'When the core process started (the uptime field is a start time, not a duration).'),
  blockStaleness: defineMetric('statistics', 'vega_block_time_staleness_seconds', 'gauge', T, 'seconds', `${STATS} statistics.currentTime minus statistics.vegaTime`, 'How far the current block\'s time trails core\'s clock: grows when the chain halts.'),
  blockDuration: defineMetric('statistics', 'vega_block_duration_seconds', 'gauge', T, 'seconds', `${STATS} statistics.blockDuration (ns)`, 'Time between the last two blocks.'),
  peers: defineMetric('statistics', 'vega_peers', 'gauge', T, 'peers', `${STATS} statistics.totalPeers`, 'Consensus peers connected to the node.'),
  backlog: defineMetric('statistics', 'vega_backlog_transactions', 'gauge', T, 'transactions', `${STATS} statistics.backlogLength`, 'Transactions waiting in the mempool.'),
  txPerBlock: defineMetric('statistics', 'vega_block_transactions', 'gauge', T, 'transactions', `${STATS} statistics.txPerBlock`, 'Transactions in the last block.'),
  avgTxBytes: defineMetric('statistics', 'vega_block_average_transaction_size_bytes', 'gauge', T, 'bytes', `${STATS} statistics.averageTxBytes`, 'Average transaction size in the last block.'),
  avgOrdersPerBlock: defineMetric('statistics', 'vega_block_orders', 'gauge', T, 'orders', `${STATS} statistics.averageOrdersPerBlock`, 'Orders in the last block.'),
  eventCount: defineMetric('statistics', 'vega_block_events', 'gauge', T, 'events', `${STATS} statistics.eventCount`, 'Events emitted in the last block.'),
  tradesPerSecond: defineMetric('statistics', 'vega_trades_per_second', 'gauge', T, 'trades per second', `${STATS} statistics.tradesPerSecond`, "Trades per second over the last block's duration."),
  ordersPerSecond: defineMetric('statistics', 'vega_chain_orders_per_second', 'gauge', T, 'orders per second', `${STATS} statistics.ordersPerSecond`, "Orders per second over the last block's duration."),
  eventsPerSecond: defineMetric('statistics', 'vega_events_per_second', 'gauge', T, 'events per second', `${STATS} statistics.eventsPerSecond`, "Events per second over the last block's duration."),
  ordersCreated: defineMetric('statistics', 'vega_chain_orders_created_total', 'counter', T, 'orders', `${STATS} statistics.totalCreateOrder`, 'Orders created since the core started (resets when core restarts).'),
  ordersAmended: defineMetric('statistics', 'vega_chain_orders_amended_total', 'counter', T, 'orders', `${STATS} statistics.totalAmendOrder`, 'Order amendments since the core started (resets when core restarts).'),
  ordersCancelled: defineMetric('statistics', 'vega_chain_orders_cancelled_total', 'counter', T, 'orders', `${STATS} statistics.totalCancelOrder`, 'Order cancellations since the core started (resets when core restarts).'),
  ordersTotal: defineMetric('statistics', 'vega_chain_orders_total', 'counter', T, 'orders', `${STATS} statistics.totalOrders`, 'Orders processed since the core started (resets when core restarts).'),
  tradesTotal: defineMetric('statistics', 'vega_chain_trades_total', 'counter', T, 'trades', `${STATS} statistics.totalTrades`, 'Trades since the core started (resets when core restarts).'),
  markets: defineMetric('statistics', 'vega_statistics_markets', 'gauge', T, 'markets', `${STATS} statistics.totalMarkets`, 'Market count as statistics reports it (real cores always report 0; use the markets collector).'),
  subscriptions: defineMetric('statistics', 'vega_subscriptions', 'gauge', [...T, 'kind'], 'subscriptions', `${STATS} statistics.*Subscriptions`, 'Open API subscriptions by kind (0 on real nodes).'),
  epoch: defineMetric('statistics', 'vega_epoch', 'gauge', T, 'epoch number', `${STATS} statistics.epochSeq`, 'Current epoch number.'),
  epochStart: defineMetric('statistics', 'vega_epoch_start_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.epochStartTime`, 'When the current epoch started.'),
  epochExpiry: defineMetric('statistics', 'vega_epoch_expiry_timestamp_seconds', 'gauge', T, 'seconds since epoch', `${STATS} statistics.epochExpiryTime`, 'When the current epoch is due to end.'),
  chainStatus: defineMetric('statistics', 'vega_chain_status', 'gauge', [...T, 'status'], '', `${STATS} statistics.status`, 'Chain status: 1 for the current state, 0 for the others (unknown states are exported as sent).'),
  buildInfo: defineMetric('statistics', 'vega_build_info', 'gauge', [...T, 'app_version', 'app_version_hash', 'chain_version', 'chain_id'], '', `${STATS} statistics.appVersion, appVersionHash, chainVersion, chainId`, 'Versions and chain id of the node; value always 1.'),

  // ---- network history ---------------------------------------------------------------------------
  nhUp: defineMetric('network_history', 'vega_network_history_up', 'gauge', T, '', 'GET /api/v2/networkhistory', 'Whether network history is serving (1) or disabled/unreachable (0).'),
  nhPeers: defineMetric('network_history', 'vega_network_history_connected_peers', 'gauge', T, 'peers', 'GET /api/v2/networkhistory connectedPeers (distinct)', 'Distinct network-history peers connected.'),
  nhConnections: defineMetric('network_history', 'vega_network_history_connections', 'gauge', T, 'connections', 'GET /api/v2/networkhistory connectedPeers (entries)', 'Network-history connections, one per entry (a peer may hold several).'),

  // ---- key rotations -----------------------------------------------------------------------------
  rotations: defineMetric('key_rotations', 'vega_key_rotations_total', 'counter', [...N, 'node_id'], 'rotations', 'GET /api/v2/vega/keys/rotations (all pages)', 'Key rotations per validator node over the whole history.'),
  rotationLastHeight: defineMetric('key_rotations', 'vega_key_rotation_last_block_height', 'gauge', [...N, 'node_id'], 'blocks', 'GET /api/v2/vega/keys/rotations rotations.blockHeight', "Block height of the validator's last key rotation."),

  // ---- markets -----------------------------------------------------------------------------------
  marketsByState: defineMetric('markets', 'vega_markets', 'gauge', [...N, 'state'], 'markets', `${MK} state`, 'Markets by state; 0 for known states that have none.'),
  marketsByMode: defineMetric('markets', 'vega_markets_by_trading_mode', 'gauge', [...N, 'trading_mode'], 'markets', `${MK} tradingMode`, 'Markets by trading mode; 0 for known modes that have none.'),
  marketsOverLimit: defineMetric('markets', 'vega_markets_over_limit', 'gauge', N, '', `${MK} (count versus collectors.markets.max_markets)`, 'Whether there are more markets than max_markets (1), in which case per-market series are not exported.'),
  marketInfo: defineMetric('markets', 'vega_market_info', 'gauge', [...N, 'market_id', 'code', 'name', 'product', 'settlement_asset', 'quote_name', 'tags'], '', `${MK} id, tradableInstrument.instrument.{code,name,metadata.tags}, product`, 'Market identity; value always 1. settlement_asset is the asset id money is settled in (the quote asset for spot, whose quote_name is empty), tags are comma-joined.'),
  marketState: defineMetric('markets', 'vega_market_state', 'gauge', [...N, 'market_id', 'state'], '', `${MK} state`, 'Market state: 1 for the current state, 0 for the other known states.'),
  marketMode: defineMetric('markets', 'vega_market_trading_mode', 'gauge', [...N, 'market_id', 'trading_mode'], '', `${MK} tradingMode`, 'Trading mode: 1 for the current mode, 0 for the other known modes.'),
  marketDecimals: defineMetric('markets', 'vega_market_decimal_places', 'gauge', [...N, 'market_id'], 'digits', `${MK} decimalPlaces`, 'Price decimal places: real price = price / 10^decimal_places.'),
  marketPositionDecimals: defineMetric('markets', 'vega_market_position_decimal_places', 'gauge', [...N, 'market_id'], 'digits', `${MK} positionDecimalPlaces`, 'Position decimal places (may be negative): real size = size / 10^position_decimal_places.'),
  marketFee: defineMetric('markets', 'vega_market_fee_factor', 'gauge', [...N, 'market_id', 'fee'], 'ratio', `${MK} fees.factors.{makerFee,infrastructureFee,liquidityFee,treasuryFee,buyBackFee}`, 'Fee factors as fractions of trade value: fee maker, infrastructure, liquidity, and (since v0.78) treasury and buy_back, which are absent for nodes that do not send them.'),
  marketSlippage: defineMetric('markets', 'vega_market_slippage_factor', 'gauge', [...N, 'market_id', 'kind'], 'ratio', `${MK} linearSlippageFactor, quadraticSlippageFactor`, 'Slippage factors used in margin.'),
  marketLpPriceRange: defineMetric('markets', 'vega_market_lp_price_range', 'gauge', [...N, 'market_id'], 'ratio', `${MK} lpPriceRange (liquiditySlaParams.priceRange when "" or absent, as on current nodes)`, 'Liquidity provision price range.'),
  marketTimestamp: defineMetric('markets', 'vega_market_timestamp_seconds', 'gauge', [...N, 'market_id', 'event'], 'seconds since epoch', `${MK} marketTimestamps.{proposed,pending,open,close}`, 'Market lifecycle times that are set (unset ones are absent).'),
  marketAuctionDuration: defineMetric('markets', 'vega_market_opening_auction_duration_seconds', 'gauge', [...N, 'market_id'], 'seconds', `${MK} openingAuction.duration`, 'Opening auction duration.'),
  marketAuctionVolume: defineMetric('markets', 'vega_market_opening_auction_volume', 'gauge', [...N, 'market_id'], 'contracts (raw)', `${MK} openingAuction.volume`, 'Minimum opening auction volume, in raw position units.'),
  marketTriggers: defineMetric('markets', 'vega_market_price_monitoring_triggers', 'gauge', [...N, 'market_id'], 'triggers', `${MK} priceMonitoringSettings.parameters.triggers`, 'Number of price-monitoring triggers.'),
  marketTriggerHorizon: defineMetric('markets', 'vega_market_price_monitoring_trigger_horizon_seconds', 'gauge', [...N, 'market_id', 'trigger'], 'seconds', `${MK} priceMonitoringSettings.parameters.triggers[].horizon`, 'Per price-monitoring trigger: the horizon the price move is projected over. trigger is the index in the market\'s list ("0" first; the first 16 only).'),
  marketTriggerProbability: defineMetric('markets', 'vega_market_price_monitoring_trigger_probability', 'gauge', [...N, 'market_id', 'trigger'], 'ratio', `${MK} priceMonitoringSettings.parameters.triggers[].probability`, 'Per price-monitoring trigger: the probability level its bounds are drawn at (0 to 1). trigger as for the horizon.'),
  marketTriggerExtension: defineMetric('markets', 'vega_market_price_monitoring_trigger_auction_extension_seconds', 'gauge', [...N, 'market_id', 'trigger'], 'seconds', `${MK} priceMonitoringSettings.parameters.triggers[].auctionExtension`, 'Per price-monitoring trigger: how long a price auction it starts lasts (or is extended by). trigger as for the horizon.'),
  marketTargetStakeWindow: defineMetric('markets', 'vega_market_target_stake_time_window_seconds', 'gauge', [...N, 'market_id'], 'seconds', `${MK} liquidityMonitoringParameters.targetStakeParameters.timeWindow`, 'Target-stake time window.'),
  marketLiquidityTriggeringRatio: defineMetric('markets', 'vega_market_liquidity_triggering_ratio', 'gauge', [...N, 'market_id'], 'ratio', `${MK} liquidityMonitoringParameters.triggeringRatio`, 'Liquidity monitoring\'s triggering ratio: the fraction of the target stake below which supplied stake starts a liquidity auction; absent when unset ("").'),
  marketLiquidityAuctionExtension: defineMetric('markets', 'vega_market_liquidity_auction_extension_seconds', 'gauge', [...N, 'market_id'], 'seconds', `${MK} liquidityMonitoringParameters.auctionExtension`, 'Liquidity monitoring\'s auction extension: how long a liquidity auction lasts (or is extended by).'),
  marketTargetStakeScaling: defineMetric('markets', 'vega_market_target_stake_scaling_factor', 'gauge', [...N, 'market_id'], 'ratio', `${MK} liquidityMonitoringParameters.targetStakeParameters.scalingFactor`, 'Target-stake scaling factor.'),
  marketRisk: defineMetric('markets', 'vega_market_risk_parameter', 'gauge', [...N, 'market_id', 'model', 'parameter'], '', `${MK} tradableInstrument.{logNormalRiskModel,simpleRiskModel}`, 'Risk-model parameters: model log_normal (tau, risk_aversion, mu, r, sigma) or simple (factor_long, factor_short, max_move_up, min_move_down, probability_of_trading).'),
  marketMarginScaling: defineMetric('markets', 'vega_market_margin_scaling_factor', 'gauge', [...N, 'market_id', 'level'], 'ratio', `${MK} tradableInstrument.marginCalculator.scalingFactors`, 'Margin scaling factors: search, initial, collateral_release.'),

  // ---- positions ---------------------------------------------------------------------------------
  positionVolume: defineMetric('positions', 'vega_position_open_volume', 'gauge', [...N, 'market_id', 'party_id'], 'contracts', `${POS} openVolume / 10^positionDecimalPlaces`, 'Open volume, signed (negative is short), in contracts. Exact up to float64 rounding (scaled by 10^positionDecimalPlaces exactly, which may be negative).'),
  positionEntryPrice: defineMetric('positions', 'vega_position_average_entry_price', 'gauge', [...N, 'market_id', 'party_id'], 'quote units', `${POS} averageEntryPrice / 10^decimalPlaces`, 'Average entry price in the market\'s price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.'),
  positionRealised: defineMetric('positions', 'vega_position_realised_pnl', 'gauge', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units', `${POS} realisedPnl / 10^asset decimals`, 'Realised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.'),
  positionUnrealised: defineMetric('positions', 'vega_position_unrealised_pnl', 'gauge', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units', `${POS} unrealisedPnl / 10^asset decimals`, 'Unrealised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.'),
  positionLossSoc: defineMetric('positions', 'vega_position_loss_socialisation', 'gauge', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units', `${POS} lossSocialisationAmount / 10^asset decimals`, 'Loss socialisation amount in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.'),
  positionTakerFees: defineMetric('positions', 'vega_position_taker_fees_paid', 'gauge', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units', `${POS} takerFeesPaid, takerFeesPaidSince / 10^asset decimals (v0.79)`, POSITION_FEES('Taker fees the party paid on its trades in the market')),
  positionMakerFees: defineMetric('positions', 'vega_position_maker_fees_received', 'gauge', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units', `${POS} makerFeesReceived, makerFeesReceivedSince / 10^asset decimals (v0.79)`, POSITION_FEES('Maker fees the party received on its trades in the market')),
  positionOtherFees: defineMetric('positions', 'vega_position_other_fees_paid', 'gauge', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units', `${POS} feesPaid, feesPaidSince / 10^asset decimals (v0.79)`, POSITION_FEES('The other fees the party paid on its trades in the market (infrastructure, liquidity and the like)')),
  positionFunding: defineMetric('positions', 'vega_position_funding_payments', 'gauge', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units', `${POS} fundingPaymentAmount, fundingPaymentAmountSince / 10^asset decimals (v0.79)`, POSITION_FEES('Perpetual markets: the net of the funding payments of the position, signed as the node sends it')),
  positionStatus: defineMetric('positions', 'vega_position_status', 'gauge', [...N, 'market_id', 'party_id', 'status'], '', `${POS} positionStatus`, 'Position status: 1 for the current status, 0 for the other known ones.'),
  positionUpdated: defineMetric('positions', 'vega_position_updated_timestamp_seconds', 'gauge', [...N, 'market_id', 'party_id'], 'seconds since epoch', `${POS} updatedAt (unix ns; "0" is absent)`, 'When the position last changed.'),

  // ---- datanode_info, history_segments ------------------------------------------------------------
  datanodeBuildInfo: defineMetric('datanode_info', 'vega_datanode_build_info', 'gauge', [...T, 'version', 'commit_hash'], '', 'GET /api/v2/info version, commitHash', "The data node's own software version and commit (vega_build_info carries the core's); value always 1."),
  segments: defineMetric('history_segments', 'vega_history_segments', 'gauge', T, 'segments', `${SEG} segments (rows)`, 'Network-history segments the data node lists.'),
  segmentLatestTo: defineMetric('history_segments', 'vega_history_segment_latest_to_height', 'gauge', T, 'blocks', `${SEG} segments[].toHeight (highest)`, 'Last block of the newest segment; absent when the node lists none.'),
  segmentLatestFrom: defineMetric('history_segments', 'vega_history_segment_latest_from_height', 'gauge', T, 'blocks', `${SEG} fromHeight of the segment with the highest toHeight`, 'First block of the newest segment; absent when the node lists none.'),

  // ---- market_data -------------------------------------------------------------------------------
  mdMode: defineMetric('market_data', 'vega_market_data_trading_mode', 'gauge', [...N, 'market_id', 'trading_mode'], '', `${MD} marketTradingMode`, 'Live trading mode: 1 for the current mode, 0 for the other known modes.'),
  mdState: defineMetric('market_data', 'vega_market_data_state', 'gauge', [...N, 'market_id', 'state'], '', `${MD} marketState`, 'Live market state: 1 for the current state, 0 for the other known states.'),
  mdAuction: defineMetric('market_data', 'vega_market_auction_timestamp_seconds', 'gauge', [...N, 'market_id', 'event'], 'seconds since epoch', `${MD} auctionStart, auctionEnd (unix ns; "0" is absent)`, 'Start and (expected) end of the current auction; absent outside auctions.'),
  mdTrigger: defineMetric('market_data', 'vega_market_auction_trigger_info', 'gauge', [...N, 'market_id', 'trigger', 'extension_trigger'], '', `${MD} trigger, extensionTrigger`, 'What started the current auction and what extended it; present (1) only while a trigger is set.'),
  mdPrice: defineMetric('market_data', 'vega_market_data_price', 'gauge', [...N, 'market_id', 'kind'], 'quote units', `${MD} markPrice, lastTradedPrice, midPrice, indicativePrice, bestBidPrice, bestOfferPrice / 10^decimalPlaces`, "Live prices in the market's price units; absent while the market's decimals are unknown. Exact up to float64 rounding."),
  mdVolume: defineMetric('market_data', 'vega_market_data_volume', 'gauge', [...N, 'market_id', 'kind'], 'contracts', `${MD} bestBidVolume, bestOfferVolume, indicativeVolume / 10^positionDecimalPlaces`, 'Volume at the best bid and offer and the indicative uncrossing volume, in contracts; absent while decimals are unknown.'),
  mdOpenInterest: defineMetric('market_data', 'vega_market_open_interest', 'gauge', [...N, 'market_id'], 'contracts', `${MD} openInterest / 10^positionDecimalPlaces`, 'Open interest in contracts; absent while decimals are unknown.'),
  mdStake: defineMetric('market_data', 'vega_market_stake', 'gauge', [...N, 'market_id', 'kind'], 'settlement-asset units', `${MD} targetStake, suppliedStake / 10^settlement-asset decimals`, 'Target and supplied liquidity stake in whole settlement-asset units; absent while the asset decimals are unknown.'),
  mdBound: defineMetric('market_data', 'vega_market_price_monitoring_bound', 'gauge', [...N, 'market_id', 'horizon', 'bound'], 'quote units', `${MD} priceMonitoringBounds[].minValidPrice, maxValidPrice / 10^decimalPlaces (active bounds only; per trigger horizon, the range all of them allow)`, 'Price-monitoring bounds: trading outside [min, max] starts a price auction. Only active bounds count (those without `active`, from nodes before v0.77, are taken as active); when several active bounds share a horizon, min is the highest of their minimums and max the lowest of their maximums. A horizon whose bounds are all inactive has no min and max: see vega_market_price_monitoring_bound_active.'),
  mdBoundActive: defineMetric('market_data', 'vega_market_price_monitoring_bound_active', 'gauge', [...N, 'market_id', 'horizon'], '', `${MD} priceMonitoringBounds[].active (v0.77; absent is active)`, 'Whether a price-monitoring bound of this horizon is active (1), or all of them are inactive (0): an inactive bound has already started its auction and limits nothing until the network resets it, so its range is not exported.'),
  mdNextMtm: defineMetric('market_data', 'vega_market_next_mark_to_market_timestamp_seconds', 'gauge', [...N, 'market_id'], 'seconds since epoch', `${MD} nextMarkToMarket (unix ns; "0" is absent)`, 'When the next mark-to-market settlement is due.'),
  mdFundingRate: defineMetric('market_data', 'vega_market_funding_rate', 'gauge', [...N, 'market_id'], 'ratio', `${MD} productData.perpetualData.fundingRate`, 'Perpetual markets: the current funding rate; absent for other products.'),
  mdTimestamp: defineMetric('market_data', 'vega_market_data_timestamp_seconds', 'gauge', [...N, 'market_id'], 'seconds since epoch', `${MD} timestamp (unix ns)`, 'When the node computed this market data.'),
  mdOverLimit: defineMetric('market_data', 'vega_market_data_over_limit', 'gauge', N, '', `${MD} (rows after collectors.market_data.allow)`, 'Whether more markets than collectors.market_data.max_markets were listed (1): per-market series are then not exported.'),

  // ---- network_data ------------------------------------------------------------------------------
  ndValidators: defineMetric('network_data', 'vega_network_validators', 'gauge', [...N, 'set'], 'validators', `${ND} nodeData.totalNodes and {tendermint,ersatz,pending}Nodes.total`, 'Validators in the network (set="all") and in each set: tendermint (consensus), ersatz (standby), pending.'),
  ndInactive: defineMetric('network_data', 'vega_network_validators_inactive', 'gauge', [...N, 'set'], 'validators', `${ND} nodeData.inactiveNodes and {tendermint,ersatz,pending}Nodes.inactive`, 'Inactive validators, in all and per set.'),
  ndMaximum: defineMetric('network_data', 'vega_network_validators_maximum', 'gauge', [...N, 'set'], 'validators', `${ND} nodeData.{tendermint,ersatz,pending}Nodes.maximum`, 'The most validators a set may hold; absent when the node does not say.'),
  ndStaked: defineMetric('network_data', 'vega_network_stake', 'gauge', N, 'tokens', `${ND} nodeData.stakedTotal / 10^18`, "Stake on all validators in whole governance tokens (the network's own token has 18 decimals). Exact up to float64 rounding."),
  ndEpoch: defineMetric('network_data', 'vega_network_epoch', 'gauge', N, 'epoch', 'GET /api/v2/epoch epoch.seq', 'Current epoch of the network.'),
  ndEpochTimestamp: defineMetric('network_data', 'vega_network_epoch_timestamp_seconds', 'gauge', [...N, 'event'], 'seconds since epoch', 'GET /api/v2/epoch epoch.timestamps.startTime, expiryTime, endTime (unix ns; "0" is absent)', 'Start, expected expiry and (once over) end of the current epoch.'),
  ndEpochFirstBlock: defineMetric('network_data', 'vega_network_epoch_first_block', 'gauge', N, 'blocks', 'GET /api/v2/epoch epoch.timestamps.firstBlock', 'First block of the current epoch.'),

  // ---- parties -----------------------------------------------------------------------------------
  parties: defineMetric('parties', 'vega_parties', 'gauge', N, 'parties', 'GET /api/v2/parties (all pages)', 'Parties known to the data node.'),
  partyExists: defineMetric('parties', 'vega_party_exists', 'gauge', [...N, 'party_id'], '', 'GET /api/v2/parties?partyId= (404 is 0)', 'Whether a listed party exists (1) or not (0).'),

  // ---- node signatures ---------------------------------------------------------------------------
  signatures: defineMetric('node_signatures', 'vega_node_signatures', 'gauge', [...N, 'resource_id', 'kind'], 'signatures', 'GET /api/v2/node/signatures?id= (all pages)', 'Validator signatures collected for a listed resource, by kind.'),
  signaturesCollected: defineMetric('node_signatures', 'vega_node_signatures_collected', 'gauge', [...N, 'resource_id'], 'signatures', 'GET /api/v2/node/signatures?id= (all pages)', 'Validator signatures collected for a listed resource, all kinds (0 when none).'),

  // ---- orders ------------------------------------------------------------------------------------
  orderFound: defineMetric('orders', 'vega_order_found', 'gauge', [...N, 'order_id'], '', `${ORD} (404 is 0)`, 'Whether a listed order exists (1) or not (0).'),
  orderInfo: defineMetric('orders', 'vega_order_info', 'gauge', [...N, 'order_id', 'market_id', 'party_id', 'side', 'type', 'time_in_force'], '', `${ORD} marketId, partyId, side, type, timeInForce`, 'Order identity; value always 1.'),
  orderStatus: defineMetric('orders', 'vega_order_status', 'gauge', [...N, 'order_id', 'status'], '', `${ORD} status`, 'Order status: 1 for the current status, 0 for the other known ones.'),
  orderSize: defineMetric('orders', 'vega_order_size', 'gauge', [...N, 'order_id'], 'contracts', `${ORD} size / 10^positionDecimalPlaces`, 'Order size in contracts. Exact up to float64 rounding.'),
  orderRemaining: defineMetric('orders', 'vega_order_remaining', 'gauge', [...N, 'order_id'], 'contracts', `${ORD} remaining / 10^positionDecimalPlaces`, 'Unfilled size in contracts. Exact up to float64 rounding.'),
  orderPrice: defineMetric('orders', 'vega_order_price', 'gauge', [...N, 'order_id'], 'quote units', `${ORD} price / 10^decimalPlaces`, "Limit price in the market's price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once."),
  orderVersion: defineMetric('orders', 'vega_order_version', 'gauge', [...N, 'order_id'], 'version', `${ORD} version (latest)`, 'Latest version of the order: 1 plus the number of amendments.'),
  orderPeggedOffset: defineMetric('orders', 'vega_order_pegged_offset', 'gauge', [...N, 'order_id', 'reference'], 'quote units', `${ORD} peggedOrder.offset / 10^decimalPlaces, peggedOrder.reference`, "Pegged orders: the offset from the reference price (reference: PEGGED_REFERENCE_MID, _BEST_BID, _BEST_ASK) in the market's price units; absent for other orders and while the market's decimals are unknown. Exact up to float64 rounding."),
  orderReason: defineMetric('orders', 'vega_order_reason_info', 'gauge', [...N, 'order_id', 'reason'], '', `${ORD} reason`, 'Why the order was rejected (an ORDER_ERROR_* name); present (1) only while the order carries a reason.'),
  orderTimestamp: defineMetric('orders', 'vega_order_timestamp_seconds', 'gauge', [...N, 'order_id', 'event'], 'seconds since epoch', `${ORD} createdAt, updatedAt, expiresAt (unix ns; "0" is absent)`, 'Order times that are set: created, updated, expires.'),

  // ---- fleet signals (computed across targets) ----------------------------------------------------
  targetNetwork: defineMetric('fleet', 'vega_target_network', 'gauge', [...T, 'network'], '', 'the exporter (chain id from GET /statistics, or the target\'s configured network)', 'Which network a target belongs to; value always 1.'),
  networkHealthyTargets: defineMetric('fleet', 'vega_network_healthy_targets', 'gauge', N, 'targets', 'the exporter (targets whose last statistics poll succeeded)', 'Healthy targets per network.'),
  fleetHeightLag: defineMetric('fleet', 'vega_fleet_block_height_lag_blocks', 'gauge', [...T, 'network'], 'blocks', 'GET /statistics statistics.blockHeight, vegaTime, currentTime and blockDuration across the network\'s targets', 'How far this target\'s core height trails the highest among its network\'s healthy targets, each carried to the network\'s newest poll (docs/fleet.md).'),
  fleetChainIdMismatch: defineMetric('fleet', 'vega_fleet_chain_id_mismatch', 'gauge', [...T, 'group'], '', 'GET /statistics statistics.chainId across targets', 'Whether the target\'s chain id differs from the majority of its group (the configured network, or all targets without one).'),
  fleetVersionMismatch: defineMetric('fleet', 'vega_fleet_version_mismatch', 'gauge', [...T, 'network'], '', 'GET /statistics statistics.appVersion across the network\'s targets', 'Whether the target\'s app version differs from the majority of its network.'),
  fleetDatanodeVersionMismatch: defineMetric('fleet', 'vega_fleet_datanode_version_mismatch', 'gauge', [...T, 'network'], '', 'GET /api/v2/info version across the network\'s targets', 'Whether the target\'s data-node version differs from the majority of its network (the core\'s version is vega_fleet_version_mismatch).'),
  historySegmentLag: defineMetric('fleet', 'vega_history_segment_lag_blocks', 'gauge', [...T, 'network'], 'blocks', 'the data node\'s height (GET /statistics header X-Block-Height, else statistics.blockHeight) minus the highest toHeight of GET /api/v2/networkhistory/segments', 'How many blocks the node\'s newest network-history segment trails its own height (0 when ahead); absent when either is unknown.'),
  fleetDataAgreement: defineMetric('fleet', 'vega_fleet_data_agreement', 'gauge', [...T, 'network'], '', 'the consistency collector (market set and latest key rotation) across the network\'s targets', 'Whether the target\'s view of network data matches the majority of its network at about the same height (1) or not (0); absent when not comparable.'),

  // ---- the exporter itself -----------------------------------------------------------------------
  collectorSuccess: defineMetric('exporter', 'vega_collector_success', 'gauge', [...T, 'collector'], '', 'the exporter', 'Whether the collector\'s last poll succeeded (1) or failed (0).'),
  collectorDuration: defineMetric('exporter', 'vega_collector_duration_seconds', 'gauge', [...T, 'collector'], 'seconds', 'the exporter', "Duration of the collector's last poll."),
  collectorLastSuccess: defineMetric('exporter', 'vega_collector_last_success_timestamp_seconds', 'gauge', [...T, 'collector'], 'seconds since epoch', 'the exporter', "When the collector's last successful poll finished."),
  netCollectorSuccess: defineMetric('exporter', 'vega_network_collector_success', 'gauge', [...N, 'collector'], '', 'the exporter', 'Whether the network-scoped collector\'s last poll succeeded on some target (1) or on none (0).'),
  collectorSeriesLimited: defineMetric('exporter', 'vega_collector_series_limited', 'gauge', [...T, 'collector'], '', 'the exporter (limits.series_per_target)', 'Whether the collector\'s last poll was cut at the target\'s series limit (1): its further series are not exported.'),
  netCollectorSeriesLimited: defineMetric('exporter', 'vega_network_collector_series_limited', 'gauge', [...N, 'collector'], '', 'the exporter (limits.series_per_network)', 'Whether the network-scoped collector\'s last poll was cut at the network\'s series limit (1): its further series are not exported.'),
  metricsTruncated: defineMetric('exporter', 'datanode_exporter_metrics_truncated', 'gauge', [], '', 'the exporter (limits.metrics_body_bytes)', 'Present (1) when the polled part of /metrics reached limits.metrics_body_bytes and the families after that point were left out.'),
  configReloadSuccessful: defineMetric('exporter', 'datanode_exporter_config_last_reload_successful', 'gauge', [], '', 'the exporter (start, SIGHUP, POST /-/reload)', 'Whether the last configuration load succeeded (1) or was refused, the running configuration kept (0).'),
  configReloadSuccessTimestamp: defineMetric('exporter', 'datanode_exporter_config_last_reload_success_timestamp_seconds', 'gauge', [], 'seconds since epoch', 'the exporter (start, SIGHUP, POST /-/reload)', 'When the running configuration was loaded.'),
  netCollectorDuration: defineMetric('exporter', 'vega_network_collector_duration_seconds', 'gauge', [...N, 'collector'], 'seconds', 'the exporter', "Duration of the network-scoped collector's last poll, fail-overs included."),
  netCollectorLastSuccess: defineMetric('exporter', 'vega_network_collector_last_success_timestamp_seconds', 'gauge', [...N, 'collector'], 'seconds since epoch', 'the exporter', "When the network-scoped collector's last successful poll finished."),
  networkSource: defineMetric('exporter', 'vega_network_collector_source', 'gauge', [...N, 'collector', 'target'], '', 'the exporter', 'The target that answered the network-scoped collector\'s last successful poll; value always 1.'),
  netUpstreamPages: defineMetric('exporter', 'vega_network_upstream_pages_total', 'counter', [...N, 'collector'], 'pages', 'the exporter', 'Pages of paginated lists fetched by network-scoped collectors.'),
  netPaginationTruncated: defineMetric('exporter', 'vega_network_pagination_truncated', 'gauge', [...N, 'collector'], '', 'the exporter', 'Whether the last walk of a network-scoped list stopped early: 1 means the series are incomplete.'),
  rowsSkipped: defineMetric('exporter', 'vega_collector_rows_skipped_total', 'counter', [...T, 'collector', 'reason'], 'rows', 'the exporter', 'Rows of node-scoped answers left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.'),
  netRowsSkipped: defineMetric('exporter', 'vega_network_collector_rows_skipped_total', 'counter', [...N, 'collector', 'reason'], 'rows', 'the exporter', 'Rows of network-scoped answers (markets, positions, orders, parties, rotations, signatures) left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.'),
  probeSuccess: defineMetric('exporter', 'vega_probe_success', 'gauge', T, '', 'the exporter (/probe)', 'Whether every collector the probe ran succeeded.'),
  probeDuration: defineMetric('exporter', 'vega_probe_duration_seconds', 'gauge', T, 'seconds', 'the exporter (/probe)', 'How long the probe took.'),
  upstreamRequests: defineMetric('exporter', 'vega_upstream_requests_total', 'counter', [...T, 'endpoint', 'status'], 'requests', 'the exporter', 'Requests to the data node by endpoint and HTTP status: the statuses the exporter handles apart (200, 400, 403, 404, 429, 500-504) by code, the others by class (2xx to 5xx); "error" when no status came back.'),
  upstreamBackoffUntil: defineMetric('exporter', 'vega_upstream_backoff_until_timestamp_seconds', 'gauge', T, 'seconds since epoch', 'the exporter (RateLimit-Reset, Retry-After, RateLimit-Retry-After, capped by http.max_backoff)', 'While the node has asked the exporter to back off: when the back-off ends. Absent otherwise; a reload lifts it.'),
  upstreamPages: defineMetric('exporter', 'vega_upstream_pages_total', 'counter', [...T, 'collector'], 'pages', 'the exporter', 'Pages of paginated lists fetched.'),
  paginationTruncated: defineMetric('exporter', 'vega_pagination_truncated', 'gauge', [...T, 'collector'], '', 'the exporter', 'Whether the last walk of a paginated list stopped early (page cap or cursor loop): 1 means the series are incomplete.'),
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
  'datanode_', 'vega_engine_', 'vega_orders', 'vega_request_', 'vega_snapshot_', 'vega_unconfirmedtx',
  'vega_withdrawals_', 'vega_market_best_bid_price', 'vega_party_count_total', 'vega_validator_',
] as const;
