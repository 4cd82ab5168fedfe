/** The specification's records with each field's wire encoding (../shared/reference/datanode-api.md). */
import {
  CHAIN_STATUS,
  MARKET_STATE,
  NODE_SIGNATURE_KIND,
  ORDER_STATUS,
  ORDER_TYPE,
  POSITION_STATUS,
  SIDE,
  TIME_IN_FORCE,
  TRADING_MODE,
  PEGGED_REFERENCE,
} from '../../src/shared/enums.js';
import type { Shape } from '../helpers/shape.js';

export const STATISTICS: Shape = {
  blockHeight: 'u64',
  backlogLength: 'u64',
  totalPeers: 'u64',
  genesisTime: 'rfc3339',
  currentTime: 'rfc3339',
  vegaTime: 'rfc3339',
  status: { enum: CHAIN_STATUS },
  txPerBlock: 'u64',
  averageTxBytes: 'u64',
  averageOrdersPerBlock: 'u64',
  tradesPerSecond: 'u64',
  ordersPerSecond: 'u64',
  totalMarkets: 'u64',
  totalAmendOrder: 'u64',
  totalCancelOrder: 'u64',
  totalCreateOrder: 'u64',
  totalOrders: 'u64',
  totalTrades: 'u64',
  orderSubscriptions: 'u32',
  tradeSubscriptions: 'u32',
  candleSubscriptions: 'u32',
  marketDepthSubscriptions: 'u32',
  positionsSubscriptions: 'u32',
  accountSubscriptions: 'u32',
  marketDataSubscriptions: 'u32',
  appVersionHash: 'string',
  appVersion: 'string',
  chainVersion: 'string',
  blockDuration: 'u64',
  uptime: 'rfc3339',
  chainId: 'string',
  marketDepthUpdatesSubscriptions: 'u32',
  blockHash: 'hex64',
  epochSeq: 'u64',
  epochStartTime: 'rfc3339',
  epochExpiryTime: 'rfc3339',
  eventCount: 'u64',
  eventsPerSecond: 'u64',
};

export const NETWORK_HISTORY: Shape = { ipfsAddress: 'string', swarmKey: 'string', swarmKeySeed: 'string', connectedPeers: { array: 'string' } };

export const ROTATION: Shape = { nodeId: 'hex64', oldPubKey: 'hex64', newPubKey: 'hex64', blockHeight: 'u64' };
export const PARTY: Shape = { id: 'hex64', alias: 'string', metadata: { array: {} } };
export const SIGNATURE: Shape = { id: 'hex64', sig: 'base64', kind: { enum: NODE_SIGNATURE_KIND } };

export const POSITION: Shape = {
  // Money fields are integer strings of any length (no 64-bit format): 'i64'/'u64' here only check the digits.
  marketId: 'hex64',
  partyId: 'hex64',
  openVolume: 'i64',
  realisedPnl: 'i64',
  unrealisedPnl: 'i64',
  averageEntryPrice: 'u64',
  updatedAt: 'unixns',
  lossSocialisationAmount: 'i64',
  positionStatus: { enum: POSITION_STATUS },
  takerFeesPaid: 'decimal',
  makerFeesReceived: 'decimal',
  feesPaid: 'decimal',
  takerFeesPaidSince: 'decimal',
  makerFeesReceivedSince: 'decimal',
  feesPaidSince: 'decimal',
  fundingPaymentAmount: 'decimal',
  fundingPaymentAmountSince: 'decimal',
};

export const ORDER: Shape = {
  id: 'hex64',
  marketId: 'hex64',
  partyId: 'hex64',
  side: { enum: SIDE },
  price: 'u64',
  size: 'u64',
  remaining: 'u64',
  timeInForce: { enum: TIME_IN_FORCE },
  type: { enum: ORDER_TYPE },
  createdAt: 'unixns',
  status: { enum: ORDER_STATUS },
  expiresAt: 'unixns',
  reference: 'string',
  'reason?': 'string',
  updatedAt: 'unixns',
  version: 'u64',
  batchId: 'u64',
  peggedOrder: { nullable: { reference: { enum: PEGGED_REFERENCE }, offset: 'u64' } },
  liquidityProvisionId: 'string',
  postOnly: 'bool',
  reduceOnly: 'bool',
  'icebergOrder?': { nullable: {} },
};

const CONDITION: Shape = { operator: 'string', value: 'string' };
const DATA_SOURCE_SPEC: Shape = {
  id: 'hex64',
  createdAt: 'unixns',
  updatedAt: 'unixns',
  status: 'string',
  data: {
    'external?': {
      oracle: {
        signers: { array: { ethAddress: { address: 'string' } } },
        filters: { array: { key: { name: 'string', type: 'string', numberDecimalPlaces: 'u64' }, conditions: { array: CONDITION } } },
      },
    },
    'internal?': { timeTrigger: { conditions: { array: CONDITION }, triggers: { array: { initial: 'i64', every: 'i64' } } } },
  },
};

export const MARKET: Shape = {
  id: 'hex64',
  tradableInstrument: {
    instrument: {
      id: 'string',
      code: 'string',
      name: 'string',
      metadata: { tags: { array: 'string' } },
      'future?': {
        settlementAsset: 'hex64',
        quoteName: 'string',
        dataSourceSpecForSettlementData: DATA_SOURCE_SPEC,
        dataSourceSpecForTradingTermination: DATA_SOURCE_SPEC,
        dataSourceSpecBinding: { settlementDataProperty: 'string', tradingTerminationProperty: 'string' },
      },
      'perpetual?': {
        settlementAsset: 'hex64',
        quoteName: 'string',
        marginFundingFactor: 'decimal',
        interestRate: 'decimal',
        clampLowerBound: 'decimal',
        clampUpperBound: 'decimal',
        dataSourceSpecForSettlementSchedule: DATA_SOURCE_SPEC,
        dataSourceSpecForSettlementData: DATA_SOURCE_SPEC,
        dataSourceSpecBinding: { settlementDataProperty: 'string', settlementScheduleProperty: 'string' },
      },
      'spot?': { baseAsset: 'hex64', quoteAsset: 'hex64' },
    },
    marginCalculator: { scalingFactors: { searchLevel: 'double', initialMargin: 'double', collateralRelease: 'double' }, 'fullyCollateralised?': 'bool' },
    'logNormalRiskModel?': { riskAversionParameter: 'double', tau: 'double', params: { mu: 'double', r: 'double', sigma: 'double' } },
    'simpleRiskModel?': { params: { factorLong: 'double', factorShort: 'double', maxMoveUp: 'double', minMoveDown: 'double', probabilityOfTrading: 'double' } },
  },
  decimalPlaces: 'u64',
  fees: { factors: { makerFee: 'decimal', infrastructureFee: 'decimal', liquidityFee: 'decimal' }, liquidityFeeSettings: { method: 'string' } },
  openingAuction: { duration: 'i64', volume: 'u64' },
  priceMonitoringSettings: { parameters: { triggers: { array: { horizon: 'i64', probability: 'decimal', auctionExtension: 'i64' } } } },
  liquidityMonitoringParameters: { targetStakeParameters: { timeWindow: 'i64', scalingFactor: 'double' }, triggeringRatio: 'decimal', auctionExtension: 'i64' },
  tradingMode: { enum: TRADING_MODE },
  state: { enum: MARKET_STATE },
  marketTimestamps: { proposed: 'unixns', pending: 'unixns', open: 'unixns', close: 'unixns' },
  positionDecimalPlaces: 'i64',
  lpPriceRange: 'decimal',
  linearSlippageFactor: 'decimal',
  quadraticSlippageFactor: 'decimal',
  'parentMarketId?': 'string',
  'insurancePoolFraction?': 'decimal',
  'successorMarketId?': 'string',
  'liquiditySlaParams?': { priceRange: 'decimal', commitmentMinTimeFraction: 'decimal', performanceHysteresisEpochs: 'u64', slaCompetitionFactor: 'decimal' },
  tickSize: 'u64',
  enableTransactionReordering: 'bool',
  'allowedEmptyAmmLevels?': 'u64',
  allowedSellers: { array: 'string' },
};

export const PAGE_INFO: Shape = { hasNextPage: 'bool', hasPreviousPage: 'bool', startCursor: 'string', endCursor: 'string' };
