/**
 * The simulated network's data model: options, the plain records the network holds, and the
 * constants its generators draw from. `records.ts` and `market-json.ts` turn records into JSON.
 */

export interface SimOptions {
  seed: number;
  blockIntervalMs: number;
  startHeight: number;
  validators: number;
  /** Historical key rotations generated at start (before startHeight). */
  rotations: number;
  markets: number;
  parties: number;
  positions: number;
  orders: number;
  signatureResources: number;
  epochBlocks: number;
  /** On average one validator rotates its key every this many blocks (0: never). */
  rotationEveryBlocks: number;
  networkHistoryPeers: number;
  /** A network-history segment every this many blocks (real networks: their snapshot interval, often 1000). */
  segmentBlocks: number;
  /** Start the order/trade totals above 2^53, to exercise exact uint64 handling. */
  largeCounters: boolean;
  /** Market names and tags with quotes, backslashes, newlines and non-ASCII, to exercise label escaping. */
  oddLabels: boolean;
  swarmKey: string;
  swarmKeySeed: string;
  chainId: string;
  appVersion: string;
  /** Milliseconds since the epoch; injectable so tests control time. */
  now: () => number;
}

export const DEFAULT_OPTIONS: Omit<SimOptions, 'now'> = {
  seed: 1,
  blockIntervalMs: 1000,
  startHeight: 18_591_101,
  validators: 5,
  rotations: 200,
  markets: 10,
  parties: 100,
  positions: 200,
  orders: 50,
  signatureResources: 5,
  epochBlocks: 600,
  rotationEveryBlocks: 300,
  networkHistoryPeers: 8,
  segmentBlocks: 300,
  largeCounters: false,
  oddLabels: false,
  swarmKey: 'sim-swarm-key-7f3a9c1e5b2d4f6a8c0e2b4d6f8a0c2e',
  swarmKeySeed: 'sim-swarm-seed-3c5e7a9b1d2f4a6c',
  chainId: 'vega-mainnet-0011',
  appVersion: 'v0.79.0',
};

export interface AssetRec {
  id: string;
  symbol: string;
  decimals: number;
}
export interface RotationRec {
  seq: number;
  nodeId: string;
  oldPubKey: string;
  newPubKey: string;
  blockHeight: number;
}
export interface PartyRec {
  seq: number;
  id: string;
}
export interface SignatureRec {
  seq: number;
  id: string;
  sig: string;
  kind: string;
}

export interface MarketRec {
  seq: number;
  id: string;
  code: string;
  name: string;
  product: 'future' | 'perpetual' | 'spot';
  settlementAsset: string;
  quoteName: string;
  baseAsset: string;
  tags: string[];
  state: string;
  tradingMode: string;
  decimalPlaces: number;
  positionDecimalPlaces: number;
  fees: { makerFee: string; infrastructureFee: string; liquidityFee: string };
  linearSlippageFactor: string;
  quadraticSlippageFactor: string;
  /** The SLA price range (liquiditySlaParams.priceRange); lpPriceRange itself is "" on current nodes. */
  lpPriceRange: string;
  openingAuction: { duration: number; volume: number };
  triggers: { horizon: number; probability: string; auctionExtension: number }[];
  targetStake: { timeWindow: number; scalingFactor: number };
  risk:
    | { kind: 'logNormal'; riskAversionParameter: number; tau: number; mu: number; r: number; sigma: number }
    | { kind: 'simple'; factorLong: number; factorShort: number; maxMoveUp: number; minMoveDown: number; probabilityOfTrading: number };
  scaling: { searchLevel: number; initialMargin: number; collateralRelease: number };
  timestamps: { proposed: bigint; pending: bigint; open: bigint; close: bigint };
  oracleSigner: string;
  specIds: [string, string];
  createdNs: bigint;
}

export interface PositionRec {
  seq: number;
  partyId: string;
  marketId: string;
  openVolume: bigint;
  averageEntryPrice: bigint;
  /** In settlement-asset units: beyond 2^64 for 18-decimal assets, as on real networks. */
  realisedPnl: bigint;
  unrealisedPnl: bigint;
  lossSocialisationAmount: bigint;
  status: string;
  updatedAt: bigint;
  feesPaid: string;
}

export interface OrderVersion {
  version: number;
  price: bigint;
  size: bigint;
  remaining: bigint;
  status: string;
  reason?: string;
  createdAt: bigint;
  updatedAt: bigint;
  expiresAt: bigint;
}

export interface OrderRec {
  seq: number;
  id: string;
  marketId: string;
  partyId: string;
  side: string;
  type: string;
  timeInForce: string;
  reference: string;
  batchId: bigint;
  pegged: { reference: string; offset: string } | null;
  postOnly: boolean;
  reduceOnly: boolean;
  versions: OrderVersion[];
}

export interface StatsCounters {
  totalCreateOrder: bigint;
  totalAmendOrder: bigint;
  totalCancelOrder: bigint;
  totalOrders: bigint;
  totalTrades: bigint;
}

export interface BlockStats {
  backlogLength: number;
  txPerBlock: number;
  averageTxBytes: number;
  averageOrdersPerBlock: number;
  tradesPerSecond: number;
  ordersPerSecond: number;
  eventsPerSecond: number;
  eventCount: number;
  blockDurationNs: bigint;
  blockHash: string;
}

/** What the oddLabels option appends to market names: everything a label value must escape or carry. */
export const ODD = ' "quoted" back\\slash\nnew line é 市場 😀';
export const ASSETS: readonly { symbol: string; decimals: number }[] = [
  { symbol: 'USDT', decimals: 6 },
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'VEGA', decimals: 18 },
  { symbol: 'WETH', decimals: 18 },
];
export const BASES = ['BTC', 'ETH', 'SOL', 'LINK', 'AVAX', 'DOGE', 'ARB', 'OP', 'INJ', 'TIA'];

/** Runtime switches that change the network itself (transport faults live in faults.ts). */
export interface NetworkFaults {
  halted: boolean;
  datanodeLagBlocks: number;
  peersZero: boolean;
  fixedPeers: number | null;
  replaying: boolean;
  /** Risk parameters "NaN"/"Infinity" on some markets (protobuf JSON for non-finite doubles). */
  nonFiniteDoubles: boolean;
}
