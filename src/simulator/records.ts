/**
 * Records to JSON, encoded the way the data node's REST gateway encodes protobuf:
 * 64-bit integers as decimal strings, 32-bit integers and doubles as numbers, enums by name,
 * unset messages as null, unset optional fields omitted.
 */
import { ZERO_TIME, formatRfc3339Nano } from '../shared/time.js';
import type { MarketRec, OrderRec, OrderVersion, PositionRec, RotationRec, SignatureRec, PartyRec, SimNetwork } from './network.js';

const u = (v: number | bigint): string => v.toString();

export function statisticsJson(net: SimNetwork): Record<string, unknown> {
  const replaying = net.faults.replaying;
  const epochExpiry = net.epochStartNs + BigInt(net.opts.epochBlocks) * net.intervalNs;
  const b = net.block;
  return {
    blockHeight: u(net.height),
    backlogLength: u(b.backlogLength),
    totalPeers: u(net.peers()),
    genesisTime: replaying ? '' : formatRfc3339Nano(net.genesisNs),
    currentTime: formatRfc3339Nano(net.currentTimeNs()),
    vegaTime: formatRfc3339Nano(net.blockTimeNs),
    status: replaying ? 'CHAIN_STATUS_REPLAYING' : 'CHAIN_STATUS_CONNECTED',
    txPerBlock: u(b.txPerBlock),
    averageTxBytes: u(b.averageTxBytes),
    averageOrdersPerBlock: u(b.averageOrdersPerBlock),
    tradesPerSecond: u(b.tradesPerSecond),
    ordersPerSecond: u(b.ordersPerSecond),
    totalMarkets: '0', // real cores always report 0 here
    totalAmendOrder: u(net.counters.totalAmendOrder),
    totalCancelOrder: u(net.counters.totalCancelOrder),
    totalCreateOrder: u(net.counters.totalCreateOrder),
    totalOrders: u(net.counters.totalOrders),
    totalTrades: u(net.counters.totalTrades),
    orderSubscriptions: 0,
    tradeSubscriptions: 0,
    candleSubscriptions: 0,
    marketDepthSubscriptions: 0,
    positionsSubscriptions: 0,
    accountSubscriptions: 0,
    marketDataSubscriptions: 0,
    appVersionHash: net.appVersionHash,
    appVersion: net.opts.appVersion,
    chainVersion: net.chainVersion,
    blockDuration: u(b.blockDurationNs),
    uptime: formatRfc3339Nano(net.startedNs),
    chainId: replaying ? '' : net.opts.chainId,
    marketDepthUpdatesSubscriptions: 0,
    blockHash: b.blockHash,
    epochSeq: u(net.epochSeq),
    epochStartTime: formatRfc3339Nano(net.epochStartNs),
    epochExpiryTime: replaying ? ZERO_TIME : formatRfc3339Nano(epochExpiry),
    eventCount: u(b.eventCount),
    eventsPerSecond: u(b.eventsPerSecond),
  };
}

export function networkHistoryJson(net: SimNetwork): Record<string, unknown> {
  return {
    ipfsAddress: `/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWSim${net.opts.seed}`,
    swarmKey: net.opts.swarmKey,
    swarmKeySeed: net.opts.swarmKeySeed,
    connectedPeers: net.networkHistoryPeers(),
  };
}

export const rotationJson = (r: RotationRec): Record<string, unknown> => ({
  nodeId: r.nodeId,
  oldPubKey: r.oldPubKey,
  newPubKey: r.newPubKey,
  blockHeight: u(r.blockHeight),
});

export const partyJson = (p: PartyRec): Record<string, unknown> => ({ id: p.id, alias: '', metadata: [] });

export const signatureJson = (s: SignatureRec): Record<string, unknown> => ({ id: s.id, sig: s.sig, kind: s.kind });

export function positionJson(p: PositionRec): Record<string, unknown> {
  return {
    marketId: p.marketId,
    partyId: p.partyId,
    openVolume: u(p.openVolume),
    realisedPnl: u(p.realisedPnl),
    unrealisedPnl: u(p.unrealisedPnl),
    averageEntryPrice: u(p.averageEntryPrice),
    updatedAt: u(p.updatedAt),
    lossSocialisationAmount: u(p.lossSocialisationAmount),
    positionStatus: p.status,
    takerFeesPaid: p.feesPaid,
    makerFeesReceived: '0',
    feesPaid: p.feesPaid,
    takerFeesPaidSince: '0',
    makerFeesReceivedSince: '0',
    feesPaidSince: '0',
    fundingPaymentAmount: '0',
    fundingPaymentAmountSince: '0',
  };
}

export function orderJson(o: OrderRec, v: OrderVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: o.id,
    marketId: o.marketId,
    partyId: o.partyId,
    side: o.side,
    price: u(v.price),
    size: u(v.size),
    remaining: u(v.remaining),
    timeInForce: o.timeInForce,
    type: o.type,
    createdAt: u(v.createdAt),
    status: v.status,
    expiresAt: u(v.expiresAt),
    reference: o.reference,
    updatedAt: u(v.updatedAt),
    version: u(v.version),
    batchId: u(o.batchId),
    peggedOrder: o.pegged,
    liquidityProvisionId: '',
    postOnly: o.postOnly,
    reduceOnly: o.reduceOnly,
    icebergOrder: null,
  };
  if (v.reason !== undefined) out.reason = v.reason; // present only on rejected orders
  return out;
}

function oracleSpec(m: MarketRec, id: string, property: string, decimals: number): Record<string, unknown> {
  return {
    id,
    createdAt: u(m.createdNs),
    lastUpdated: '0',
    data: {
      external: {
        oracle: {
          signers: [{ ethAddress: { address: m.oracleSigner } }],
          filters: [
            {
              key: { name: property, type: 'PROPERTY_KEY_TYPE_INTEGER', numberDecimalPlaces: u(decimals) },
              conditions: [{ operator: 'OPERATOR_GREATER_THAN', value: '0' }],
            },
          ],
        },
      },
    },
    status: 'STATUS_ACTIVE',
  };
}

function timeTriggerSpec(m: MarketRec, id: string): Record<string, unknown> {
  return {
    id,
    createdAt: u(m.createdNs),
    lastUpdated: '0',
    data: {
      internal: {
        timeTrigger: {
          conditions: [{ operator: 'OPERATOR_GREATER_THAN_OR_EQUAL', value: '0' }],
          triggers: [{ initial: u(m.timestamps.proposed / 1_000_000_000n), every: '28800' }],
        },
      },
    },
    status: 'STATUS_ACTIVE',
  };
}

function productJson(m: MarketRec): Record<string, unknown> {
  if (m.product === 'spot') {
    return { spot: { baseAsset: m.baseAsset, quoteAsset: m.settlementAsset, name: m.name } };
  }
  const binding = { settlementDataProperty: 'prices.value', tradingTerminationProperty: 'vegaprotocol.builtin.timestamp' };
  if (m.product === 'perpetual') {
    return {
      perpetual: {
        settlementAsset: m.settlementAsset,
        quoteName: m.quoteName,
        marginFundingFactor: '0.9',
        interestRate: '0.1095',
        clampLowerBound: '-0.0005',
        clampUpperBound: '0.0005',
        dataSourceSpecForSettlementSchedule: timeTriggerSpec(m, m.specIds[1]),
        dataSourceSpecForSettlementData: oracleSpec(m, m.specIds[0], 'prices.value', m.decimalPlaces),
        dataSourceSpecBinding: { settlementDataProperty: 'prices.value', settlementScheduleProperty: 'vegaprotocol.builtin.timetrigger' },
        fundingRateScalingFactor: '1',
        fundingRateLowerBound: '-0.001',
        fundingRateUpperBound: '0.001',
        internalCompositePriceConfig: null,
      },
    };
  }
  return {
    future: {
      settlementAsset: m.settlementAsset,
      quoteName: m.quoteName,
      dataSourceSpecForSettlementData: oracleSpec(m, m.specIds[0], 'prices.value', m.decimalPlaces),
      dataSourceSpecForTradingTermination: oracleSpec(m, m.specIds[1], 'trading.terminated', 0),
      dataSourceSpecBinding: binding,
      cap: null,
    },
  };
}

export function marketJson(m: MarketRec): Record<string, unknown> {
  const risk =
    m.risk.kind === 'logNormal'
      ? {
          logNormalRiskModel: {
            riskAversionParameter: m.risk.riskAversionParameter,
            tau: m.risk.tau,
            params: { mu: m.risk.mu, r: m.risk.r, sigma: m.risk.sigma },
            riskFactorOverride: null,
          },
        }
      : {
          simpleRiskModel: {
            params: {
              factorLong: m.risk.factorLong,
              factorShort: m.risk.factorShort,
              maxMoveUp: m.risk.maxMoveUp,
              minMoveDown: m.risk.minMoveDown,
              probabilityOfTrading: m.risk.probabilityOfTrading,
            },
          },
        };
  return {
    id: m.id,
    tradableInstrument: {
      instrument: { id: '', code: m.code, name: m.name, metadata: { tags: m.tags }, ...productJson(m) },
      marginCalculator: { scalingFactors: { ...m.scaling }, fullyCollateralised: false },
      ...risk,
    },
    decimalPlaces: u(m.decimalPlaces),
    fees: {
      factors: { ...m.fees, treasuryFee: '0', buyBackFee: '0' },
      liquidityFeeSettings: { method: 'METHOD_MARGINAL_COST', feeConstant: null },
    },
    openingAuction: { duration: u(m.openingAuction.duration), volume: u(m.openingAuction.volume) },
    priceMonitoringSettings: {
      parameters: {
        triggers: m.triggers.map((t) => ({ horizon: u(t.horizon), probability: t.probability, auctionExtension: u(t.auctionExtension) })),
      },
    },
    liquidityMonitoringParameters: {
      targetStakeParameters: { timeWindow: u(m.targetStake.timeWindow), scalingFactor: m.targetStake.scalingFactor },
      triggeringRatio: '0',
      auctionExtension: '1',
    },
    tradingMode: m.tradingMode,
    state: m.state,
    marketTimestamps: {
      proposed: u(m.timestamps.proposed),
      pending: u(m.timestamps.pending),
      open: u(m.timestamps.open),
      close: u(m.timestamps.close),
    },
    positionDecimalPlaces: u(m.positionDecimalPlaces),
    lpPriceRange: m.lpPriceRange,
    linearSlippageFactor: m.linearSlippageFactor,
    quadraticSlippageFactor: m.quadraticSlippageFactor,
    parentMarketId: '',
    insurancePoolFraction: '',
    successorMarketId: '',
    liquiditySlaParams: {
      priceRange: m.lpPriceRange,
      commitmentMinTimeFraction: '0.5',
      performanceHysteresisEpochs: '1',
      slaCompetitionFactor: '0.8',
    },
    liquidationStrategy: {
      disposalTimeStep: '10',
      disposalFraction: '0.1',
      fullDisposalSize: '50',
      maxFractionConsumed: '0.05',
      disposalSlippageRange: '0.03',
    },
    markPriceConfiguration: {
      decayWeight: '0',
      decayPower: '0',
      cashAmount: '0',
      sourceWeights: [],
      sourceStalenessTolerance: [],
      compositePriceType: 'COMPOSITE_PRICE_TYPE_LAST_TRADE',
      dataSourcesSpec: [],
      dataSourcesSpecBinding: [],
    },
    tickSize: '1',
    enableTransactionReordering: true,
  };
}
