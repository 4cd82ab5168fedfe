/**
 * The simulated network: a seeded model that advances one block at a time with the clock.
 * It holds plain records; `records.ts` turns them into the JSON real nodes send.
 *
 * Determinism: the initial state depends only on the options (seed included) and the clock at
 * construction; block h's events depend only on the seed and h. So the same seed and the same clock
 * give the same data, whatever the request pattern.
 */
import { Rng, mix } from './rng.js';
import { NS_PER_MS } from '../shared/time.js';
import {
  MARKET_STATE, NODE_SIGNATURE_KIND, ORDER_REJECT_REASONS, PEGGED_REFERENCE, POSITION_STATUS, SIDE, TIME_IN_FORCE,
  TRADING_MODE,
} from '../shared/enums.js';

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
  largeCounters: false,
  oddLabels: false,
  swarmKey: 'sim-swarm-key-7f3a9c1e5b2d4f6a8c0e2b4d6f8a0c2e',
  swarmKeySeed: 'sim-swarm-seed-3c5e7a9b1d2f4a6c',
  chainId: 'vega-mainnet-0011',
  appVersion: 'v0.79.0',
};

export interface AssetRec { id: string; symbol: string; decimals: number }
export interface RotationRec { seq: number; nodeId: string; oldPubKey: string; newPubKey: string; blockHeight: number }
export interface PartyRec { seq: number; id: string }
export interface SignatureRec { seq: number; id: string; sig: string; kind: string }

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

const BLOCK_TIME_HISTORY = 8192;
/** What the oddLabels option appends to market names: everything a label value must escape or carry. */
export const ODD = ' "quoted" back\\slash\nnew line é 市場 😀';
const MAX_CATCH_UP_BLOCKS = 200_000;
const ASSETS: readonly { symbol: string; decimals: number }[] = [
  { symbol: 'USDT', decimals: 6 },
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'VEGA', decimals: 18 },
  { symbol: 'WETH', decimals: 18 },
];
const BASES = ['BTC', 'ETH', 'SOL', 'LINK', 'AVAX', 'DOGE', 'ARB', 'OP', 'INJ', 'TIA'];

/** Runtime switches that change the network itself (transport faults live in faults.ts). */
export interface NetworkFaults {
  halted: boolean;
  datanodeLagBlocks: number;
  peersZero: boolean;
  fixedPeers: number | null;
  replaying: boolean;
}

export class SimNetwork {
  readonly opts: SimOptions;
  readonly intervalNs: bigint;
  readonly genesisNs: bigint;
  readonly startedNs: bigint;
  readonly chainVersion = '0.38.7';
  readonly appVersionHash: string;

  height: number;
  blockTimeNs: bigint;
  epochSeq: number;
  epochStartNs: bigint;
  totalPeers: number;
  counters: StatsCounters;
  block: BlockStats;

  readonly validators: { nodeId: string; pubKey: string }[] = [];
  readonly assets: AssetRec[] = [];
  readonly rotations: RotationRec[] = [];
  readonly markets: MarketRec[] = [];
  readonly parties: PartyRec[] = [];
  readonly positions: PositionRec[] = [];
  readonly orders: OrderRec[] = [];
  readonly ordersById = new Map<string, OrderRec>();
  readonly signatures = new Map<string, SignatureRec[]>();
  readonly nhPeerPool: string[] = [];
  nhConnected: string[] = [];
  readonly faults: NetworkFaults = { halted: false, datanodeLagBlocks: 0, peersZero: false, fixedPeers: null, replaying: false };

  private nextSeq = 1;
  private lastTickMs: number;
  private readonly blockTimes = new Map<number, bigint>();
  private requestCounter = 0;

  constructor(options: Partial<SimOptions> = {}) {
    this.opts = { ...DEFAULT_OPTIONS, now: () => Date.now(), ...options };
    const o = this.opts;
    const rng = new Rng(mix(o.seed, 0xabc));
    this.intervalNs = BigInt(o.blockIntervalMs) * NS_PER_MS;
    const nowMs = o.now();
    this.lastTickMs = nowMs;
    // Sub-millisecond digits so times carry all nine fractional digits.
    this.startedNs = BigInt(nowMs) * NS_PER_MS + BigInt(rng.int(1, 999_999));
    this.blockTimeNs = this.startedNs - BigInt(rng.int(0, o.blockIntervalMs - 1)) * NS_PER_MS;
    this.genesisNs = this.blockTimeNs - BigInt(o.startHeight) * this.intervalNs - 123_456_789n;
    this.height = o.startHeight;
    this.appVersionHash = rng.hex(20);
    this.epochSeq = Math.floor(o.startHeight / o.epochBlocks);
    this.epochStartNs = this.blockTimeNs - BigInt(o.startHeight % o.epochBlocks) * this.intervalNs;
    this.totalPeers = this.basePeers();
    const big = o.largeCounters ? 9_007_199_254_740_993n : 0n; // 2^53 + 1: not representable as a double
    const h = BigInt(o.startHeight);
    this.counters = {
      totalCreateOrder: big + h * 3n,
      totalAmendOrder: big + h,
      totalCancelOrder: big + h * 2n,
      totalOrders: big + h * 3n + 7n,
      totalTrades: big + h * 5n + 3n,
    };
    this.block = this.blockStats(new Rng(mix(o.seed, o.startHeight)));

    for (let i = 0; i < o.validators; i++) this.validators.push({ nodeId: rng.hex(32), pubKey: rng.hex(32) });
    for (const a of ASSETS) this.assets.push({ id: rng.hex(32), symbol: a.symbol, decimals: a.decimals });
    this.generateRotationHistory(rng.fork(1));
    for (let i = 0; i < o.parties; i++) this.parties.push({ seq: this.seq(), id: rng.hex(32) });
    for (let i = 0; i < o.markets; i++) this.markets.push(this.makeMarket(rng.fork(2, i), i));
    this.generatePositions(rng.fork(3));
    for (let i = 0; i < o.orders; i++) this.addOrder(rng.fork(4, i), this.blockTimeNs - BigInt(i) * 1_000_000_000n);
    this.generateSignatures(rng.fork(5));
    for (let i = 0; i < o.networkHistoryPeers * 2; i++) {
      this.nhPeerPool.push(`/ip4/10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}/tcp/4001/p2p/12D3KooW${peerIdChars(rng, 44)}`);
    }
    this.nhConnected = this.nhPeerPool.slice(0, o.networkHistoryPeers);
    this.blockTimes.set(this.height, this.blockTimeNs);
  }

  private seq(): number {
    return this.nextSeq++;
  }

  private basePeers(): number {
    return Math.max(0, this.opts.validators - 1) + 4;
  }

  /** Advance to the block the clock says we should be at. Call before serving anything. */
  sync(): void {
    const now = this.opts.now();
    const due = Math.floor((now - this.lastTickMs) / this.opts.blockIntervalMs);
    if (due <= 0) return;
    this.lastTickMs += due * this.opts.blockIntervalMs;
    if (this.faults.halted) return; // a halted chain makes no blocks; time keeps moving
    const steps = Math.min(due, MAX_CATCH_UP_BLOCKS);
    for (let i = 0; i < steps; i++) this.step();
  }

  /** Produce exactly one block. */
  step(): void {
    const h = this.height + 1;
    const rng = new Rng(mix(this.opts.seed, h));
    this.height = h;
    const jitter = BigInt(rng.int(-20_000_000, 20_000_000)); // ±20 ms of block-time noise, in ns
    const duration = this.intervalNs + jitter;
    this.blockTimeNs += duration;
    this.blockTimes.set(h, this.blockTimeNs);
    this.blockTimes.delete(h - BLOCK_TIME_HISTORY);
    this.block = this.blockStats(rng);
    this.block.blockDurationNs = duration;

    if (h % this.opts.epochBlocks === 0) {
      this.epochSeq += 1;
      this.epochStartNs = this.blockTimeNs;
    }
    const orders = BigInt(this.block.averageOrdersPerBlock);
    this.counters.totalCreateOrder += orders;
    this.counters.totalOrders += orders;
    this.counters.totalAmendOrder += BigInt(rng.int(0, 3));
    this.counters.totalCancelOrder += BigInt(rng.int(0, 2));
    this.counters.totalTrades += BigInt(rng.int(0, 6));

    // Consensus peers wander around their base.
    const base = this.basePeers();
    this.totalPeers = Math.max(0, Math.min(base + 2, Math.max(base - 2, this.totalPeers + rng.int(-1, 1))));

    // Network-history peers come and go.
    if (rng.chance(0.05) && this.nhPeerPool.length > 0) {
      const candidate = rng.pick(this.nhPeerPool);
      const idx = this.nhConnected.indexOf(candidate);
      if (idx >= 0 && this.nhConnected.length > 1) this.nhConnected.splice(idx, 1);
      else if (idx < 0) this.nhConnected.push(candidate);
    }

    if (this.opts.rotationEveryBlocks > 0 && this.validators.length > 0 && rng.int(1, this.opts.rotationEveryBlocks) === 1) {
      this.rotate(rng.int(0, this.validators.length - 1), h, rng);
    }
    this.moveMarkets(rng);
    this.movePositions(rng);
    this.moveOrders(rng);
    if (rng.chance(0.02)) this.addSignature(rng);
  }

  private blockStats(rng: Rng): BlockStats {
    const tx = rng.int(5, 60);
    const orders = rng.int(1, tx);
    const events = tx * rng.int(8, 20);
    const secs = Math.max(1, Math.round(this.opts.blockIntervalMs / 1000));
    return {
      backlogLength: rng.int(0, 40),
      txPerBlock: tx,
      averageTxBytes: rng.int(180, 900),
      averageOrdersPerBlock: orders,
      tradesPerSecond: Math.floor(rng.int(0, 12) / secs),
      ordersPerSecond: Math.floor(orders / secs),
      eventsPerSecond: Math.floor(events / secs),
      eventCount: events,
      blockDurationNs: this.intervalNs,
      blockHash: rng.hex(32),
    };
  }

  // ---- key rotations -------------------------------------------------------------------------

  private generateRotationHistory(rng: Rng): void {
    const n = this.opts.rotations;
    if (n === 0 || this.validators.length === 0) return;
    const span = Math.max(n, Math.floor(this.opts.startHeight * 0.9));
    const gap = span / n;
    const first = this.opts.startHeight - span;
    // Walk forward so each rotation's old key is the previous new key of that node.
    const keys = this.validators.map(() => rng.hex(32));
    for (let i = 0; i < n; i++) {
      const v = rng.int(0, this.validators.length - 1);
      const height = Math.max(1, first + Math.floor(i * gap));
      const newKey = rng.hex(32);
      this.rotations.push({ seq: 0, nodeId: this.validators[v]!.nodeId, oldPubKey: keys[v]!, newPubKey: newKey, blockHeight: height });
      keys[v] = newKey;
    }
    this.validators.forEach((val, i) => (val.pubKey = keys[i]!));
    // Real nodes sort by time, node and keys; rows of one height are ordered by node id then key.
    this.rotations.sort((a, b) => a.blockHeight - b.blockHeight || cmp(a.nodeId, b.nodeId) || cmp(a.newPubKey, b.newPubKey));
    for (const r of this.rotations) r.seq = this.seq();
  }

  rotate(validatorIndex: number, height: number, rng: Rng): RotationRec {
    const v = this.validators[validatorIndex]!;
    const rec: RotationRec = { seq: this.seq(), nodeId: v.nodeId, oldPubKey: v.pubKey, newPubKey: rng.hex(32), blockHeight: height };
    v.pubKey = rec.newPubKey;
    this.rotations.push(rec);
    return rec;
  }

  // ---- markets -------------------------------------------------------------------------------

  private makeMarket(rng: Rng, i: number): MarketRec {
    const base = BASES[i % BASES.length]!;
    const asset = rng.pick(this.assets);
    const product = (['future', 'perpetual', 'spot'] as const)[i % 3]!;
    const suffix = i >= BASES.length ? `-${Math.floor(i / BASES.length)}` : '';
    const q = asset.symbol;
    const code = product === 'perpetual' ? `${base}/${q}-PERP${suffix}` : product === 'spot' ? `${base}/${q}${suffix}` : `${base}/${q}-Q4${suffix}`;
    const proposed = this.blockTimeNs - BigInt(rng.int(10, 400)) * 86_400n * 1_000_000_000n;
    const pending = proposed + BigInt(rng.int(1, 5)) * 86_400n * 1_000_000_000n;
    const open = pending + BigInt(rng.int(600, 7200)) * 1_000_000_000n;
    const state = i % 7 === 6 ? 'STATE_SUSPENDED' : i % 11 === 10 ? 'STATE_PENDING' : 'STATE_ACTIVE';
    const logNormal = i % 4 !== 3;
    return {
      seq: this.seq(),
      id: rng.hex(32),
      code,
      name: `${base} / ${q} ${product === 'future' ? 'Quarterly Future' : product === 'perpetual' ? 'Perpetual' : 'Spot'}${suffix}${this.opts.oddLabels ? ODD : ''}`,
      product,
      settlementAsset: asset.id,
      quoteName: q,
      baseAsset: rng.hex(32),
      tags: [`base:${base}`, `quote:${q}`, `class:fx/crypto`, product === 'future' ? 'quarterly' : product, ...(this.opts.oddLabels ? [`note:${ODD}`] : [])],
      state,
      tradingMode: state === 'STATE_PENDING' ? 'TRADING_MODE_OPENING_AUCTION' : state === 'STATE_SUSPENDED' ? 'TRADING_MODE_MONITORING_AUCTION' : 'TRADING_MODE_CONTINUOUS',
      decimalPlaces: rng.int(0, 6),
      positionDecimalPlaces: rng.int(-2, 4),
      fees: { makerFee: '0.0002', infrastructureFee: '0.0005', liquidityFee: (rng.int(1, 40) / 10000).toString() },
      linearSlippageFactor: '0.001',
      quadraticSlippageFactor: '0',
      lpPriceRange: (rng.int(1, 20) / 100).toString(),
      openingAuction: { duration: rng.int(60, 7200), volume: rng.int(0, 5) },
      triggers: Array.from({ length: rng.int(1, 4) }, () => ({
        horizon: rng.pick([3600, 14400, 43200, 86400]),
        probability: rng.pick(['0.9999', '0.99999', '0.999999']),
        auctionExtension: rng.pick([60, 300, 600]),
      })),
      targetStake: { timeWindow: rng.pick([3600, 604800]), scalingFactor: rng.pick([1, 0.5, 2.5]) },
      risk: logNormal
        ? { kind: 'logNormal', riskAversionParameter: 0.0001, tau: 0.0000190129, mu: 0, r: 0, sigma: rng.pick([0.8, 1.5, 2]) }
        : { kind: 'simple', factorLong: 0.15, factorShort: 0.25, maxMoveUp: 10, minMoveDown: -5, probabilityOfTrading: 0.1 },
      scaling: { searchLevel: 1.1, initialMargin: 1.5, collateralRelease: 1.7 },
      timestamps: { proposed, pending, open: state === 'STATE_PENDING' ? 0n : open, close: 0n },
      oracleSigner: `0x${rng.hex(20)}`,
      specIds: [rng.hex(32), rng.hex(32)],
      createdNs: proposed,
    };
  }

  private moveMarkets(rng: Rng): void {
    if (this.markets.length === 0 || !rng.chance(0.01)) return;
    const m = rng.pick(this.markets);
    if (m.state === 'STATE_ACTIVE') {
      m.tradingMode = m.tradingMode === 'TRADING_MODE_CONTINUOUS' ? 'TRADING_MODE_MONITORING_AUCTION' : 'TRADING_MODE_CONTINUOUS';
    } else if (m.state === 'STATE_SUSPENDED' && rng.chance(0.3)) {
      m.state = 'STATE_ACTIVE';
      m.tradingMode = 'TRADING_MODE_CONTINUOUS';
    } else if (m.state === 'STATE_PENDING' && rng.chance(0.3)) {
      m.state = 'STATE_ACTIVE';
      m.tradingMode = 'TRADING_MODE_CONTINUOUS';
      m.timestamps.open = this.blockTimeNs;
    }
  }

  /** Add a market now (soak tests and the admin endpoint make markets appear and vanish). */
  addMarket(): MarketRec {
    const m = this.makeMarket(new Rng(mix(this.opts.seed, 0x3a7, this.nextSeq)), this.markets.length);
    this.markets.push(m);
    return m;
  }

  removeMarket(id: string): boolean {
    const i = this.markets.findIndex((m) => m.id === id);
    if (i < 0) return false;
    this.markets.splice(i, 1);
    for (let p = this.positions.length - 1; p >= 0; p--) if (this.positions[p]!.marketId === id) this.positions.splice(p, 1);
    return true;
  }

  // ---- positions -----------------------------------------------------------------------------

  private generatePositions(rng: Rng): void {
    if (this.parties.length === 0 || this.markets.length === 0) return;
    const max = Math.min(this.opts.positions, this.parties.length * this.markets.length);
    // Round r gives party p the market (p + r) mod M: every pair once, every party early on.
    for (let k = 0; this.positions.length < max; k++) {
      const party = this.parties[k % this.parties.length]!;
      const market = this.markets[(k % this.parties.length + Math.floor(k / this.parties.length)) % this.markets.length]!;
      const volume = BigInt(rng.int(-50_000, 50_000));
      this.positions.push({
        seq: this.seq(),
        partyId: party.id,
        marketId: market.id,
        openVolume: volume,
        averageEntryPrice: BigInt(rng.int(1_000, 9_000_000)),
        realisedPnl: BigInt(rng.int(-2_000_000_000, 2_000_000_000)) * 1000n,
        unrealisedPnl: BigInt(rng.int(-2_000_000_000, 2_000_000_000)),
        lossSocialisationAmount: rng.chance(0.1) ? BigInt(-rng.int(1, 100_000)) : 0n,
        status: rng.chance(0.05) ? 'POSITION_STATUS_CLOSED_OUT' : 'POSITION_STATUS_UNSPECIFIED',
        updatedAt: this.blockTimeNs - BigInt(rng.int(0, 86_400)) * 1_000_000_000n,
        feesPaid: `${rng.int(0, 99999)}.${rng.int(0, 999)}`,
      });
    }
  }

  private movePositions(rng: Rng): void {
    if (this.positions.length === 0) return;
    for (let k = 0; k < 2; k++) {
      const p = rng.pick(this.positions);
      p.openVolume += BigInt(rng.int(-100, 100));
      p.unrealisedPnl += BigInt(rng.int(-500_000, 500_000));
      if (rng.chance(0.2)) p.realisedPnl += BigInt(rng.int(-100_000, 100_000));
      p.status = rng.chance(0.01) ? rng.pick(POSITION_STATUS) : p.status;
      p.updatedAt = this.blockTimeNs;
    }
  }

  // ---- orders --------------------------------------------------------------------------------

  private addOrder(rng: Rng, createdAt: bigint): OrderRec {
    const market = this.markets.length > 0 ? rng.pick(this.markets) : undefined;
    const party = this.parties.length > 0 ? rng.pick(this.parties) : undefined;
    const tif = rng.pick(TIME_IN_FORCE.slice(1));
    const rejected = rng.chance(0.05);
    const size = BigInt(rng.int(1, 10_000));
    const createdUs = (createdAt / 1000n) * 1000n; // order times are truncated to microseconds
    const order: OrderRec = {
      seq: this.seq(),
      id: rng.hex(32),
      marketId: market?.id ?? '',
      partyId: party?.id ?? '',
      side: rng.pick(SIDE.slice(1)),
      type: rng.chance(0.9) ? 'TYPE_LIMIT' : 'TYPE_MARKET',
      timeInForce: tif,
      reference: rng.chance(0.5) ? `client-${rng.hex(4)}` : '',
      batchId: BigInt(rng.int(1, 100_000)),
      pegged: rng.chance(0.2) ? { reference: rng.pick(PEGGED_REFERENCE.slice(1)), offset: String(rng.int(1, 500)) } : null,
      postOnly: rng.chance(0.1),
      reduceOnly: false,
      versions: [
        {
          version: 1,
          price: BigInt(rng.int(1, 5_000_000)),
          size,
          remaining: rejected ? 0n : size,
          status: rejected ? 'STATUS_REJECTED' : 'STATUS_ACTIVE',
          ...(rejected ? { reason: rng.pick(ORDER_REJECT_REASONS) } : {}),
          createdAt: createdUs,
          updatedAt: 0n,
          expiresAt: tif === 'TIME_IN_FORCE_GTT' ? createdUs + 86_400_000_000_000n : 0n,
        },
      ],
    };
    this.orders.push(order);
    this.ordersById.set(order.id, order);
    return order;
  }

  private moveOrders(rng: Rng): void {
    if (this.orders.length === 0 || !rng.chance(0.3)) return;
    const order = rng.pick(this.orders);
    const cur = order.versions[order.versions.length - 1]!;
    if (cur.status !== 'STATUS_ACTIVE' && cur.status !== 'STATUS_PARTIALLY_FILLED') return;
    const at = (this.blockTimeNs / 1000n) * 1000n;
    const roll = rng.int(1, 10);
    if (roll <= 5) {
      // Amend: a new version with a new price and size.
      const size = cur.size + BigInt(rng.int(-Number(cur.size < 1000n ? cur.size - 1n : 1000n), 1000));
      order.versions.push({ ...cur, version: cur.version + 1, price: BigInt(rng.int(1, 5_000_000)), size, remaining: size - (cur.size - cur.remaining) > 0n ? size - (cur.size - cur.remaining) : size, updatedAt: at });
    } else {
      // Fills and cancels change the order in place, as the data node's latest version does.
      const next: OrderVersion = { ...cur, updatedAt: at };
      if (roll <= 7) {
        next.remaining = cur.remaining / 2n;
        next.status = next.remaining === 0n ? 'STATUS_FILLED' : 'STATUS_PARTIALLY_FILLED';
      } else if (roll <= 9) {
        next.remaining = 0n;
        next.status = 'STATUS_FILLED';
      } else {
        next.status = 'STATUS_CANCELLED';
      }
      order.versions[order.versions.length - 1] = next;
    }
  }

  // ---- signatures ----------------------------------------------------------------------------

  private generateSignatures(rng: Rng): void {
    for (let i = 0; i < this.opts.signatureResources; i++) {
      const resource = rng.hex(32);
      this.signatures.set(resource, []);
      const count = rng.int(0, this.opts.validators);
      for (let k = 0; k < count; k++) this.pushSignature(resource, rng, i % 2 === 0 ? 'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL' : rng.pick(NODE_SIGNATURE_KIND.slice(1)));
    }
  }

  private pushSignature(resource: string, rng: Rng, kind: string): void {
    this.signatures.get(resource)!.push({ seq: this.seq(), id: resource, sig: rng.bytes(65).toString('base64'), kind });
  }

  private addSignature(rng: Rng): void {
    const ids = [...this.signatures.keys()];
    if (ids.length === 0) return;
    const id = rng.pick(ids);
    const list = this.signatures.get(id)!;
    if (list.length < this.opts.validators) this.pushSignature(id, rng, list[0]?.kind ?? 'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL');
  }

  // ---- views used by the server --------------------------------------------------------------

  /** The height the data node itself has processed (behind core under the lag fault). */
  datanodeHeight(): number {
    return Math.max(0, this.height - this.faults.datanodeLagBlocks);
  }

  datanodeBlockTimeNs(): bigint {
    const h = this.datanodeHeight();
    return this.blockTimes.get(h) ?? this.blockTimeNs - BigInt(this.height - h) * this.intervalNs;
  }

  /** Wall-clock now, with deterministic sub-millisecond digits. */
  currentTimeNs(): bigint {
    const ms = this.opts.now();
    return BigInt(ms) * NS_PER_MS + BigInt(mix(this.opts.seed, ms) % 1_000_000);
  }

  peers(): number {
    return this.faults.peersZero ? 0 : (this.faults.fixedPeers ?? this.totalPeers);
  }

  /** Connected network-history peers as a node reports them: duplicates included, shuffled per call. */
  networkHistoryPeers(): string[] {
    const rng = new Rng(mix(this.opts.seed, 0x5eed, this.requestCounter++));
    const list = [...this.nhConnected];
    for (const p of this.nhConnected) if (rng.chance(0.25)) list.push(p);
    for (let i = list.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function peerIdChars(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += B58[rng.int(0, B58.length - 1)];
  return s;
}
