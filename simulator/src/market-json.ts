/**
 * vega.Market as the data node's REST gateway sends it (v0.79): unset optional fields omitted,
 * unset messages null, doubles as numbers (or "NaN"/"Infinity" strings, when asked for), amounts
 * and decimals as strings.
 */
import type { MarketRec } from './model.js';

type Json = Record<string, unknown>;
const u = (v: number | bigint): string => v.toString();

/** A data source spec (vega.DataSourceSpec): id, createdAt, updatedAt, data, status. */
function spec(m: MarketRec, id: string, data: Json): Json {
  return { id, createdAt: u(m.createdNs), updatedAt: '0', data, status: 'STATUS_ACTIVE' };
}

function oracleSpec(m: MarketRec, id: string, property: string, decimals: number): Json {
  const filter = {
    key: { name: property, type: 'TYPE_INTEGER', numberDecimalPlaces: u(decimals) },
    conditions: [{ operator: 'OPERATOR_GREATER_THAN', value: '0' }],
  };
  return spec(m, id, { external: { oracle: { signers: [{ ethAddress: { address: m.oracleSigner } }], filters: [filter] } } });
}

function timeTriggerSpec(m: MarketRec, id: string): Json {
  const trigger = {
    conditions: [{ operator: 'OPERATOR_GREATER_THAN_OR_EQUAL', value: '0' }],
    triggers: [{ initial: u(m.timestamps.proposed / 1_000_000_000n), every: '28800' }],
  };
  return spec(m, id, { internal: { timeTrigger: trigger } });
}

function productJson(m: MarketRec): Json {
  if (m.product === 'spot') return { spot: { baseAsset: m.baseAsset, quoteAsset: m.settlementAsset } };
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
      },
    };
  }
  return {
    future: {
      settlementAsset: m.settlementAsset,
      quoteName: m.quoteName,
      dataSourceSpecForSettlementData: oracleSpec(m, m.specIds[0], 'prices.value', m.decimalPlaces),
      dataSourceSpecForTradingTermination: oracleSpec(m, m.specIds[1], 'trading.terminated', 0),
      dataSourceSpecBinding: { settlementDataProperty: 'prices.value', tradingTerminationProperty: 'vegaprotocol.builtin.timestamp' },
    },
  };
}

/** The risk model oneof; `nonFinite` sends some parameters as protobuf JSON's "NaN"/"Infinity". */
function riskJson(m: MarketRec, nonFinite: boolean): Json {
  const r = m.risk;
  if (r.kind === 'logNormal') {
    return {
      logNormalRiskModel: {
        riskAversionParameter: r.riskAversionParameter,
        tau: nonFinite ? 'NaN' : r.tau,
        params: { mu: r.mu, r: r.r, sigma: nonFinite ? 'Infinity' : r.sigma },
      },
    };
  }
  const params = {
    factorLong: r.factorLong,
    factorShort: r.factorShort,
    maxMoveUp: nonFinite ? 'Infinity' : r.maxMoveUp,
    minMoveDown: nonFinite ? '-Infinity' : r.minMoveDown,
    probabilityOfTrading: r.probabilityOfTrading,
  };
  return { simpleRiskModel: { params } };
}

/** Parameters a real market carries with fixed values here (liquidation, mark price, monitoring). */
const FIXED = {
  liquidationStrategy: { disposalTimeStep: '10', disposalFraction: '0.1', fullDisposalSize: '50', maxFractionConsumed: '0.05', disposalSlippageRange: '0.03' },
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
};

/** `nonFiniteDoubles` (a fault) applies to every other market, so the others stay finite. */
export function marketJson(m: MarketRec, nonFiniteDoubles = false): Json {
  return {
    id: m.id,
    tradableInstrument: {
      instrument: { id: '', code: m.code, name: m.name, metadata: { tags: m.tags }, ...productJson(m) },
      marginCalculator: { scalingFactors: { ...m.scaling } },
      ...riskJson(m, nonFiniteDoubles && m.seq % 2 === 0),
    },
    decimalPlaces: u(m.decimalPlaces),
    fees: { factors: { ...m.fees, treasuryFee: '0', buyBackFee: '0' }, liquidityFeeSettings: { method: 'METHOD_MARGINAL_COST' } },
    openingAuction: { duration: u(m.openingAuction.duration), volume: u(m.openingAuction.volume) },
    priceMonitoringSettings: {
      parameters: { triggers: m.triggers.map((t) => ({ horizon: u(t.horizon), probability: t.probability, auctionExtension: u(t.auctionExtension) })) },
    },
    liquidityMonitoringParameters: {
      targetStakeParameters: { timeWindow: u(m.targetStake.timeWindow), scalingFactor: m.targetStake.scalingFactor },
      triggeringRatio: '0',
      auctionExtension: '1',
    },
    tradingMode: m.tradingMode,
    state: m.state,
    marketTimestamps: { proposed: u(m.timestamps.proposed), pending: u(m.timestamps.pending), open: u(m.timestamps.open), close: u(m.timestamps.close) },
    positionDecimalPlaces: u(m.positionDecimalPlaces),
    lpPriceRange: '', // nothing sets it on current nodes: the range is the SLA's
    linearSlippageFactor: m.linearSlippageFactor,
    quadraticSlippageFactor: m.quadraticSlippageFactor,
    liquiditySlaParams: { priceRange: m.lpPriceRange, commitmentMinTimeFraction: '0.5', performanceHysteresisEpochs: '1', slaCompetitionFactor: '0.8' },
    ...FIXED,
    tickSize: '1',
    enableTransactionReordering: true,
    allowedSellers: [],
  };
}
