/**
 * The simulated network: a seeded model that advances one block at a time with the clock.
 * It holds plain records (model.ts); generate.ts makes the initial data, movement.ts moves it, and
 * `records.ts` / `market-json.ts` turn it into the JSON real nodes send.
 *
 * Determinism: the initial state depends only on the options (seed included) and the clock at
 * construction; block h's events depend only on the seed and h. So the same seed and the same clock
 * give the same data, whatever the request pattern.
 */
import { Rng, mix } from './rng.js';
import { NS_PER_MS } from '../../src/shared/time.js';
import {
  ASSETS,
  DEFAULT_OPTIONS,
  type AssetRec,
  type BlockStats,
  type MarketRec,
  type NetworkFaults,
  type OrderRec,
  type PartyRec,
  type PositionRec,
  type RotationRec,
  type SignatureRec,
  type SimOptions,
  type StatsCounters,
} from './model.js';
import { ageOrder, generatePositions, generateRotationHistory, generateSignatures, makeMarket, makeOrder } from './generate.js';
import { addSignature, moveMarkets, moveOrders, movePositions } from './movement.js';

export * from './model.js';

const BLOCK_TIME_HISTORY = 8192;
const MAX_CATCH_UP_BLOCKS = 200_000;
/** Orders that live long and are amended often: the first few, with this many amendments. */
const LONG_LIVED_ORDERS = 3;
const LONG_LIVED_VERSIONS = 60;

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
  readonly faults: NetworkFaults = { halted: false, datanodeLagBlocks: 0, peersZero: false, fixedPeers: null, replaying: false, nonFiniteDoubles: false };

  private seqNo = 1;
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
    generateRotationHistory(this, rng.fork(1));
    for (let i = 0; i < o.parties; i++) this.parties.push({ seq: this.nextSeq(), id: rng.hex(32) });
    for (let i = 0; i < o.markets; i++) this.markets.push(makeMarket(this, rng.fork(2, i), i));
    generatePositions(this, rng.fork(3));
    for (let i = 0; i < o.orders; i++) {
      const order = makeOrder(this, rng.fork(4, i), this.blockTimeNs - BigInt(i) * 1_000_000_000n);
      if (i < LONG_LIVED_ORDERS) ageOrder(order, rng.fork(6, i), LONG_LIVED_VERSIONS, this.blockTimeNs);
      this.orders.push(order);
      this.ordersById.set(order.id, order);
    }
    generateSignatures(this, rng.fork(5));
    for (let i = 0; i < o.networkHistoryPeers * 2; i++) {
      this.nhPeerPool.push(`/ip4/10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}/tcp/4001/p2p/12D3KooW${peerIdChars(rng, 44)}`);
    }
    this.nhConnected = this.nhPeerPool.slice(0, o.networkHistoryPeers);
    this.blockTimes.set(this.height, this.blockTimeNs);
  }

  /** The next row sequence number (cursor order across every list). */
  nextSeq(): number {
    return this.seqNo++;
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
    moveMarkets(this, rng);
    movePositions(this, rng);
    moveOrders(this, rng);
    if (rng.chance(0.02)) addSignature(this, rng);
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

  rotate(validatorIndex: number, height: number, rng: Rng): RotationRec {
    const v = this.validators[validatorIndex]!;
    const rec: RotationRec = { seq: this.nextSeq(), nodeId: v.nodeId, oldPubKey: v.pubKey, newPubKey: rng.hex(32), blockHeight: height };
    v.pubKey = rec.newPubKey;
    this.rotations.push(rec);
    return rec;
  }

  // ---- markets -------------------------------------------------------------------------------

  /** Add a market now (soak tests and the admin endpoint make markets appear and vanish). */
  addMarket(): MarketRec {
    const m = makeMarket(this, new Rng(mix(this.opts.seed, 0x3a7, this.seqNo)), this.markets.length);
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

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function peerIdChars(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += B58[rng.int(0, B58.length - 1)];
  return s;
}
