/**
 * Every field of every resource in the query service's specification (query-service-spec.md in
 * the shared reference), with the series that carry it or why it is not exported. docs/metrics.md
 * ("Coverage of the query service") is generated from this list, and a test reads the field list
 * out of the specification itself and fails when one of its fields is missing here. Fields data
 * nodes send beyond the specification are listed too when the exporter reads them (`beyond`).
 */
import type { MetricDef } from '../src/exporter/engine/metric.js';
import { M } from './families.js';

/** Why a field is not exported. */
export const WHY = {
  secret: 'secret key material: never read into metrics, logs or errors',
  free_text: 'free text chosen by whoever submitted it: as a label it would be unbounded and could carry anything',
  id: "an id with nothing to measure: where it names what a series is about it is that series' label, never a value",
  unbounded: 'a new value per block or per key: as a label it would make a series each',
  pagination: 'the page envelope: the exporter walks every page (and counts them), nothing in it to measure',
  definition: 'part of how the market or order was defined when it was submitted, not a health signal',
} as const;
export type Why = keyof typeof WHY;

export interface FieldCoverage {
  /** The field's path inside its resource, as the specification writes it (arrays as `[]`). */
  field: string;
  /** The series that carry it: its value, or with `label` a label value. */
  metrics?: readonly MetricDef[];
  /** The label that carries it (`market_id`), or the label value that marks it (`fee="maker"`). */
  label?: string;
  /** Why it is not exported (with no `metrics`). */
  not?: Why;
  note?: string;
  /** Sent by data nodes but not in the specification: the release that added it. */
  beyond?: string;
}

export interface ResourceCoverage {
  /** The resource as the specification's heading names it. */
  resource: string;
  /** Where the exporter reads it. */
  source: string;
  fields: readonly FieldCoverage[];
}

const v = (field: string, metrics: MetricDef | readonly MetricDef[], label?: string, note?: string): FieldCoverage => ({
  field,
  metrics: Array.isArray(metrics) ? metrics : [metrics as MetricDef],
  ...(label !== undefined ? { label } : {}),
  ...(note !== undefined ? { note } : {}),
});
const no = (field: string, not: Why, note?: string): FieldCoverage => ({ field, not, ...(note !== undefined ? { note } : {}) });
const beyond = (release: string, f: FieldCoverage): FieldCoverage => ({ ...f, beyond: release });

const SUBSCRIPTIONS = [
  ['accountSubscriptions', 'accounts'],
  ['candleSubscriptions', 'candles'],
  ['marketDataSubscriptions', 'market_data'],
  ['marketDepthSubscriptions', 'market_depth'],
  ['marketDepthUpdatesSubscriptions', 'market_depth_updates'],
  ['orderSubscriptions', 'orders'],
  ['positionsSubscriptions', 'positions'],
  ['tradeSubscriptions', 'trades'],
] as const;

/** A market's data-source spec (settlement data, trading termination): its definition, not its health. */
function dataSourceSpec(path: string): FieldCoverage[] {
  const p = `tradableInstrument.instrument.future.${path}`;
  return [
    no(`${p}.id`, 'id'),
    no(`${p}.createdAt`, 'definition'),
    no(`${p}.updatedAt`, 'definition'),
    no(`${p}.status`, 'definition'),
    no(`${p}.data.external.oracle.filters[].key.name`, 'free_text', 'the oracle property the market reads'),
    no(`${p}.data.external.oracle.filters[].key.numberDecimalPlaces`, 'definition'),
    no(`${p}.data.external.oracle.filters[].key.type`, 'definition'),
    no(`${p}.data.external.oracle.filters[].conditions[].operator`, 'definition'),
    no(`${p}.data.external.oracle.filters[].conditions[].value`, 'definition'),
    no(`${p}.data.external.oracle.signers[].ethAddress.address`, 'id', "the oracle's signer"),
    no(`${p}.data.external.oracle.signers[].pubKey.key`, 'id', "the oracle's signer"),
    no(`${p}.data.internal.time.conditions[].operator`, 'definition'),
    no(`${p}.data.internal.time.conditions[].value`, 'definition'),
  ];
}

const POSITION_MONEY = [
  ['takerFeesPaid', M.positionTakerFees, 'all'],
  ['makerFeesReceived', M.positionMakerFees, 'all'],
  ['feesPaid', M.positionOtherFees, 'all'],
  ['takerFeesPaidSince', M.positionTakerFees, 'since_open'],
  ['makerFeesReceivedSince', M.positionMakerFees, 'since_open'],
  ['feesPaidSince', M.positionOtherFees, 'since_open'],
  ['fundingPaymentAmount', M.positionFunding, 'all'],
  ['fundingPaymentAmountSince', M.positionFunding, 'since_open'],
] as const;

const ASSET_UNITS = 'in whole settlement-asset units (/ 10^asset decimals); absent while the decimals are unknown';

export const COVERAGE: readonly ResourceCoverage[] = [
  {
    resource: 'Statistics',
    source: '`GET /statistics` (statistics collector)',
    fields: [
      v('status', M.chainStatus, 'status'),
      ...SUBSCRIPTIONS.map(([f, kind]) => v(f, M.subscriptions, `kind="${kind}"`)),
      v('appVersion', M.buildInfo, 'app_version', "compared across a network's targets by the recording rule network_target:vega_version_mismatch:bool"),
      v('appVersionHash', M.buildInfo, 'app_version_hash'),
      v('averageOrdersPerBlock', M.avgOrdersPerBlock),
      v('averageTxBytes', M.avgTxBytes),
      v('backlogLength', M.backlog),
      v('blockDuration', M.blockDuration, undefined, 'nanoseconds, exported in seconds'),
      no('blockHash', 'unbounded'),
      v('blockHeight', [M.blockHeight, M.datanodeLag]),
      v('chainId', M.buildInfo, 'chain_id', 'also names the network of a target without one configured (vega_target_network_info)'),
      v('chainVersion', M.buildInfo, 'chain_version'),
      v('currentTime', [M.currentTimestamp, M.blockStaleness], undefined, 'RFC3339, exported in seconds since epoch'),
      v('epochExpiryTime', M.epochExpiry),
      v('epochSeq', M.epoch),
      v('epochStartTime', M.epochStart),
      v('eventCount', M.eventCount),
      v('eventsPerSecond', M.eventsPerSecond),
      v('genesisTime', M.genesisTimestamp),
      v('ordersPerSecond', M.ordersPerSecond),
      v('totalAmendOrder', M.ordersAmended),
      v('totalCancelOrder', M.ordersCancelled),
      v('totalCreateOrder', M.ordersCreated),
      v('totalMarkets', M.markets),
      v('totalOrders', M.ordersTotal),
      v('totalPeers', M.peers),
      v('totalTrades', M.tradesTotal),
      v('tradesPerSecond', M.tradesPerSecond),
      v('txPerBlock', M.txPerBlock),
      v('uptime', M.coreStartTimestamp, undefined, 'a start time, not a duration'),
      v('vegaTime', [M.blockTimestamp, M.blockStaleness]),
    ],
  },
  {
    resource: 'Network history status',
    source: '`GET /api/v2/networkhistory` (network_history collector)',
    fields: [
      v('connectedPeers', [M.nhPeers, M.nhConnections], undefined, 'counted: distinct peers and entries; the addresses are not exported'),
      no('ipfsAddress', 'id', "the node's own peer address"),
      no('swarmKey', 'secret'),
      no('swarmKeySeed', 'secret'),
    ],
  },
  {
    resource: 'Market',
    source: '`GET /markets`, else `GET /api/v2/markets` (markets collector)',
    fields: [
      v('id', M.marketInfo, 'market_id', 'and on every per-market series (vega_market_*)'),
      v('decimalPlaces', M.marketDecimals, undefined, 'also scales every price of the market'),
      v('positionDecimalPlaces', M.marketPositionDecimals, undefined, 'also scales every size and volume of the market'),
      v('linearSlippageFactor', M.marketSlippage, 'kind="linear"'),
      v('quadraticSlippageFactor', M.marketSlippage, 'kind="quadratic"'),
      v('lpPriceRange', M.marketLpPriceRange),
      v('state', [M.marketState, M.marketsByState], 'state'),
      v('tradingMode', [M.marketMode, M.marketsByMode], 'trading_mode'),
      v('fees.factors.infrastructureFee', M.marketFee, 'fee="infrastructure"'),
      v('fees.factors.liquidityFee', M.marketFee, 'fee="liquidity"'),
      v('fees.factors.makerFee', M.marketFee, 'fee="maker"'),
      beyond('v0.78', v('fees.factors.treasuryFee', M.marketFee, 'fee="treasury"', 'absent (no series) from nodes before v0.78')),
      beyond('v0.78', v('fees.factors.buyBackFee', M.marketFee, 'fee="buy_back"', 'absent (no series) from nodes before v0.78')),
      v('liquidityMonitoringParameters.auctionExtension', M.marketLiquidityAuctionExtension),
      v('liquidityMonitoringParameters.triggeringRatio', M.marketLiquidityTriggeringRatio),
      v('liquidityMonitoringParameters.targetStakeParameters.scalingFactor', M.marketTargetStakeScaling),
      v('liquidityMonitoringParameters.targetStakeParameters.timeWindow', M.marketTargetStakeWindow),
      ...(['proposed', 'pending', 'open', 'close'] as const).map((e) => v(`marketTimestamps.${e}`, M.marketTimestamp, `event="${e}"`)),
      v('openingAuction.duration', M.marketAuctionDuration),
      v('openingAuction.volume', M.marketAuctionVolume),
      v(
        'priceMonitoringSettings.parameters.triggers[].auctionExtension',
        M.marketTriggerExtension,
        'trigger',
        'trigger is the index in the list (first 16); the count is vega_market_price_monitoring_triggers',
      ),
      v('priceMonitoringSettings.parameters.triggers[].horizon', M.marketTriggerHorizon, 'trigger'),
      v('priceMonitoringSettings.parameters.triggers[].probability', M.marketTriggerProbability, 'trigger'),
      no('tradableInstrument.instrument.id', 'id', 'the market id names the market'),
      v('tradableInstrument.instrument.code', M.marketInfo, 'code', 'also selects markets in collectors.markets.allow'),
      v('tradableInstrument.instrument.name', M.marketInfo, 'name'),
      v('tradableInstrument.instrument.metadata.tags', M.marketInfo, 'tags', 'comma-joined'),
      v('tradableInstrument.instrument.future.quoteName', M.marketInfo, 'quote_name'),
      v(
        'tradableInstrument.instrument.future.settlementAsset',
        M.marketInfo,
        'settlement_asset',
        "also the asset whose decimals scale the market's money series",
      ),
      no('tradableInstrument.instrument.future.dataSourceSpecBinding.settlementDataProperty', 'free_text'),
      no('tradableInstrument.instrument.future.dataSourceSpecBinding.tradingTerminationProperty', 'free_text'),
      ...dataSourceSpec('dataSourceSpecForSettlementData'),
      ...dataSourceSpec('dataSourceSpecForTradingTermination'),
      v('tradableInstrument.logNormalRiskModel.riskAversionParameter', M.marketRisk, 'parameter="risk_aversion"', 'model="log_normal"'),
      v('tradableInstrument.logNormalRiskModel.tau', M.marketRisk, 'parameter="tau"'),
      v('tradableInstrument.logNormalRiskModel.params.mu', M.marketRisk, 'parameter="mu"'),
      v('tradableInstrument.logNormalRiskModel.params.r', M.marketRisk, 'parameter="r"'),
      v('tradableInstrument.logNormalRiskModel.params.sigma', M.marketRisk, 'parameter="sigma"'),
      v('tradableInstrument.simpleRiskModel.params.factorLong', M.marketRisk, 'parameter="factor_long"', 'model="simple"'),
      v('tradableInstrument.simpleRiskModel.params.factorShort', M.marketRisk, 'parameter="factor_short"'),
      v('tradableInstrument.simpleRiskModel.params.maxMoveUp', M.marketRisk, 'parameter="max_move_up"'),
      v('tradableInstrument.simpleRiskModel.params.minMoveDown', M.marketRisk, 'parameter="min_move_down"'),
      v('tradableInstrument.simpleRiskModel.params.probabilityOfTrading', M.marketRisk, 'parameter="probability_of_trading"'),
      v('tradableInstrument.marginCalculator.scalingFactors.collateralRelease', M.marketMarginScaling, 'level="collateral_release"'),
      v('tradableInstrument.marginCalculator.scalingFactors.initialMargin', M.marketMarginScaling, 'level="initial"'),
      v('tradableInstrument.marginCalculator.scalingFactors.searchLevel', M.marketMarginScaling, 'level="search"'),
    ],
  },
  {
    resource: 'Order',
    source: '`GET /api/v2/order/{orderId}` for listed orders (orders collector)',
    fields: [
      v('id', [M.orderFound, M.orderInfo], 'order_id', 'and on every vega_order_* series'),
      no('batchId', 'id', 'the auction batch the order was submitted in'),
      v('marketId', M.orderInfo, 'market_id', 'also the market whose decimals scale the order'),
      v('partyId', M.orderInfo, 'party_id'),
      no('liquidityProvisionId', 'id'),
      v('side', M.orderInfo, 'side'),
      v('price', M.orderPrice, undefined, '/ 10^decimalPlaces: quote units'),
      v('size', M.orderSize, undefined, '/ 10^positionDecimalPlaces: contracts'),
      v('remaining', M.orderRemaining, undefined, '/ 10^positionDecimalPlaces: contracts'),
      v('timeInForce', M.orderInfo, 'time_in_force'),
      v('type', M.orderInfo, 'type'),
      v('status', M.orderStatus, 'status'),
      v('reason', M.orderReason, 'reason', 'only while set (rejected orders)'),
      no('reference', 'free_text', "the submitter's own reference"),
      v('createdAt', M.orderTimestamp, 'event="created"'),
      v('updatedAt', M.orderTimestamp, 'event="updated"'),
      v('expiresAt', M.orderTimestamp, 'event="expires"'),
      v('version', M.orderVersion, undefined, 'the latest version, also when a listed order pins an earlier one'),
      no('postOnly', 'definition'),
      no('reduceOnly', 'definition'),
      v('peggedOrder.offset', M.orderPeggedOffset, undefined, '/ 10^decimalPlaces: quote units; pegged orders only'),
      v('peggedOrder.reference', M.orderPeggedOffset, 'reference'),
    ],
  },
  {
    resource: 'Position',
    source: '`GET /api/v2/positions` for listed parties and markets (positions collector)',
    fields: [
      v('marketId', M.positionVolume, 'market_id', 'and on every vega_position_* series; also the market whose decimals scale the position'),
      v('partyId', M.positionVolume, 'party_id', 'and on every vega_position_* series'),
      v('openVolume', M.positionVolume, undefined, '/ 10^positionDecimalPlaces: contracts'),
      v('averageEntryPrice', M.positionEntryPrice, undefined, '/ 10^decimalPlaces: quote units'),
      v('realisedPnl', M.positionRealised, undefined, ASSET_UNITS),
      v('unrealisedPnl', M.positionUnrealised, undefined, ASSET_UNITS),
      v('lossSocialisationAmount', M.positionLossSoc, undefined, ASSET_UNITS),
      v('positionStatus', M.positionStatus, 'status'),
      v('updatedAt', M.positionUpdated, undefined, 'unix nanoseconds, exported in seconds'),
      ...POSITION_MONEY.map(([f, metric, period]) =>
        beyond('v0.79', v(f, metric, `period="${period}"`, `${ASSET_UNITS}; absent (no series) from nodes before v0.79`)),
      ),
    ],
  },
  {
    resource: 'Party',
    source: '`GET /api/v2/parties` (parties collector)',
    fields: [v('id', M.partyExists, 'party_id', 'for listed parties; every party is counted in vega_parties')],
  },
  {
    resource: 'Node signature',
    source: '`GET /api/v2/node/signatures?id=` for listed resources (node_signatures collector)',
    fields: [
      v('id', [M.signatures, M.signaturesCollected], 'resource_id', 'the listed id; a row without one is skipped'),
      v('kind', M.signatures, 'kind'),
      v('sig', M.signaturesCollected, undefined, 'counted (distinct); the signatures themselves are not exported'),
    ],
  },
  {
    resource: 'Key rotation',
    source: "`GET /api/v2/vega/keys/rotations`, else the specification's `/api/v2/chain/keys/rotations` (key_rotations collector)",
    fields: [
      v('nodeId', [M.rotations, M.rotationLastHeight], 'node_id'),
      no('oldPubKey', 'unbounded'),
      no('newPubKey', 'unbounded', 'tells rotations apart when pages overlap'),
      v('blockHeight', M.rotationLastHeight),
    ],
  },
  {
    resource: 'Common: page envelope',
    source: 'every list (markets, positions, parties, signatures, rotations): datanode_exporter_upstream_pages_total counts the pages',
    fields: ['edges[].cursor', 'edges[].node', 'pageInfo.startCursor', 'pageInfo.endCursor', 'pageInfo.hasNextPage', 'pageInfo.hasPreviousPage'].map((f) =>
      no(f, 'pagination', f === 'edges[].node' ? 'the record: the resources above' : undefined),
    ),
  },
];
