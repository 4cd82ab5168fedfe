/**
 * Generators of the simulated network's initial data: validators' key history, markets, positions,
 * orders (some long-lived, with many versions) and signatures. Magnitudes follow what real networks
 * send (datanode-api.md "Magnitudes"): 6- and 18-decimal assets, PnL and prices beyond 2^64,
 * negative position decimals.
 */
import type { Rng } from './rng.js';
import { NODE_SIGNATURE_KIND, ORDER_REJECT_REASONS, PEGGED_REFERENCE, SIDE, TIME_IN_FORCE } from '../../src/shared/enums.js';
import { BASES, ODD, type MarketRec, type OrderRec, type PositionRec, type RotationRec } from './model.js';
import type { SimNetwork } from './network.js';

const DAY_NS = 86_400n * 1_000_000_000n;

export function generateRotationHistory(net: SimNetwork, rng: Rng): void {
  const o = net.opts;
  const n = o.rotations;
  if (n === 0 || net.validators.length === 0) return;
  const span = Math.max(n, Math.floor(o.startHeight * 0.9));
  const gap = span / n;
  const first = o.startHeight - span;
  // Walk forward so each rotation's old key is the previous new key of that node.
  const keys = net.validators.map(() => rng.hex(32));
  const rows: RotationRec[] = [];
  for (let i = 0; i < n; i++) {
    const v = rng.int(0, net.validators.length - 1);
    const newKey = rng.hex(32);
    rows.push({ seq: 0, nodeId: net.validators[v]!.nodeId, oldPubKey: keys[v]!, newPubKey: newKey, blockHeight: Math.max(1, first + Math.floor(i * gap)) });
    keys[v] = newKey;
  }
  net.validators.forEach((val, i) => (val.pubKey = keys[i]!));
  // Real nodes sort by time, node and keys; rows of one height are ordered by node id then key.
  rows.sort((a, b) => a.blockHeight - b.blockHeight || cmp(a.nodeId, b.nodeId) || cmp(a.newPubKey, b.newPubKey));
  for (const r of rows) net.rotations.push({ ...r, seq: net.nextSeq() });
}

export function makeMarket(net: SimNetwork, rng: Rng, i: number): MarketRec {
  const base = BASES[i % BASES.length]!;
  const asset = rng.pick(net.assets);
  const product = (['future', 'perpetual', 'spot'] as const)[i % 3]!;
  const suffix = i >= BASES.length ? `-${Math.floor(i / BASES.length)}` : '';
  const q = asset.symbol;
  const code = product === 'perpetual' ? `${base}/${q}-PERP${suffix}` : product === 'spot' ? `${base}/${q}${suffix}` : `${base}/${q}-Q4${suffix}`;
  const proposed = net.blockTimeNs - BigInt(rng.int(10, 400)) * DAY_NS;
  const pending = proposed + BigInt(rng.int(1, 5)) * DAY_NS;
  const open = pending + BigInt(rng.int(600, 7200)) * 1_000_000_000n;
  const state = i % 7 === 6 ? 'STATE_SUSPENDED' : i % 11 === 10 ? 'STATE_PENDING' : 'STATE_ACTIVE';
  const odd = net.opts.oddLabels ? ODD : '';
  return {
    seq: net.nextSeq(),
    id: rng.hex(32),
    code,
    name: `${base} / ${q} ${product === 'future' ? 'Quarterly Future' : product === 'perpetual' ? 'Perpetual' : 'Spot'}${suffix}${odd}`,
    product,
    settlementAsset: asset.id,
    quoteName: q,
    baseAsset: rng.hex(32),
    tags: [`base:${base}`, `quote:${q}`, `class:fx/crypto`, product === 'future' ? 'quarterly' : product, ...(odd ? [`note:${ODD}`] : [])],
    state,
    tradingMode:
      state === 'STATE_PENDING' ? 'TRADING_MODE_OPENING_AUCTION' : state === 'STATE_SUSPENDED' ? 'TRADING_MODE_MONITORING_AUCTION' : 'TRADING_MODE_CONTINUOUS',
    decimalPlaces: rng.int(0, 6),
    // Negative on some markets: sizes in hundreds (real size = size * 10^2). Drawn always, so the
    // values drawn after it stay those of the same seed.
    positionDecimalPlaces: ((pdp) => (i % 5 === 1 ? -2 : pdp))(rng.int(-2, 4)),
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
    risk:
      i % 4 !== 3
        ? { kind: 'logNormal', riskAversionParameter: 0.0001, tau: 0.0000190129, mu: 0, r: 0, sigma: rng.pick([0.8, 1.5, 2]) }
        : { kind: 'simple', factorLong: 0.15, factorShort: 0.25, maxMoveUp: 10, minMoveDown: -5, probabilityOfTrading: 0.1 },
    scaling: { searchLevel: 1.1, initialMargin: 1.5, collateralRelease: 1.7 },
    timestamps: { proposed, pending, open: state === 'STATE_PENDING' ? 0n : open, close: 0n },
    oracleSigner: `0x${rng.hex(20)}`,
    specIds: [rng.hex(32), rng.hex(32)],
    createdNs: proposed,
  };
}

/** Money in settlement-asset units: an 18-decimal asset gets 10^12 more digits than a 6-decimal one. */
function assetScale(net: SimNetwork, m: MarketRec): bigint {
  const d = net.assets.find((a) => a.id === m.settlementAsset)?.decimals ?? 6;
  return 10n ** BigInt(Math.max(0, d - 6));
}

export function generatePositions(net: SimNetwork, rng: Rng): void {
  if (net.parties.length === 0 || net.markets.length === 0) return;
  const max = Math.min(net.opts.positions, net.parties.length * net.markets.length);
  // Round r gives party p the market (p + r) mod M: every pair once, every party early on.
  for (let k = 0; net.positions.length < max; k++) {
    const party = net.parties[k % net.parties.length]!;
    const market = net.markets[((k % net.parties.length) + Math.floor(k / net.parties.length)) % net.markets.length]!;
    // Whales: every tenth position of an 18-decimal market carries a 30-digit PnL.
    const scale = assetScale(net, market) * (k % 10 === 0 ? 10n ** 6n : 1n);
    net.positions.push(makePosition(net, rng, party.id, market.id, scale));
  }
}

function makePosition(net: SimNetwork, rng: Rng, partyId: string, marketId: string, scale: bigint): PositionRec {
  return {
    seq: net.nextSeq(),
    partyId,
    marketId,
    openVolume: BigInt(rng.int(-50_000, 50_000)),
    averageEntryPrice: BigInt(rng.int(1_000, 9_000_000)),
    realisedPnl: BigInt(rng.int(-2_000_000_000, 2_000_000_000)) * 1000n * scale,
    unrealisedPnl: BigInt(rng.int(-2_000_000_000, 2_000_000_000)) * scale,
    lossSocialisationAmount: rng.chance(0.1) ? BigInt(-rng.int(1, 100_000)) * scale : 0n,
    status: rng.chance(0.05) ? 'POSITION_STATUS_CLOSED_OUT' : 'POSITION_STATUS_UNSPECIFIED',
    updatedAt: net.blockTimeNs - BigInt(rng.int(0, 86_400)) * 1_000_000_000n,
    feesPaid: `${rng.int(0, 99999)}.${rng.int(0, 999)}`,
  };
}

/** A limit price; about one in six beyond 2^64 (uint256 in core, as on markets with many decimals). */
export function orderPrice(rng: Rng, big: boolean): bigint {
  const p = BigInt(rng.int(1, 5_000_000));
  return big ? p * 10n ** 16n + BigInt(rng.int(0, 999_999)) : p;
}

export function makeOrder(net: SimNetwork, rng: Rng, createdAt: bigint): OrderRec {
  const market = net.markets.length > 0 ? rng.pick(net.markets) : undefined;
  const party = net.parties.length > 0 ? rng.pick(net.parties) : undefined;
  const tif = rng.pick(TIME_IN_FORCE.slice(1));
  const rejected = rng.chance(0.05);
  const size = BigInt(rng.int(1, 10_000));
  const createdUs = (createdAt / 1000n) * 1000n; // order times are truncated to microseconds
  // Fields in the order the seed has always drawn them; the price's magnitude is drawn last.
  const order: OrderRec = {
    seq: net.nextSeq(),
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
        expiresAt: tif === 'TIME_IN_FORCE_GTT' ? createdUs + DAY_NS : 0n,
      },
    ],
  };
  const first = order.versions[0]!;
  if (rng.chance(0.17)) first.price = first.price * 10n ** 16n + BigInt(rng.int(0, 999_999)); // beyond 2^64
  return order;
}

/** A long-lived order: created weeks ago, amended `n` times since (one version per amendment). */
export function ageOrder(o: OrderRec, rng: Rng, n: number, nowNs: bigint): void {
  const first = o.versions[0]!;
  if (first.status !== 'STATUS_ACTIVE') return;
  const start = ((nowNs - 30n * DAY_NS) / 1000n) * 1000n;
  o.versions[0] = { ...first, createdAt: start, expiresAt: 0n };
  o.timeInForce = 'TIME_IN_FORCE_GTC';
  const step = (nowNs - start) / BigInt(n + 1);
  for (let v = 2; v <= n + 1; v++) {
    const prev = o.versions[o.versions.length - 1]!;
    const at = ((start + step * BigInt(v - 1)) / 1000n) * 1000n;
    o.versions.push({ ...prev, version: v, price: orderPrice(rng, prev.price > 2n ** 64n), updatedAt: at });
  }
}

export function generateSignatures(net: SimNetwork, rng: Rng): void {
  for (let i = 0; i < net.opts.signatureResources; i++) {
    const resource = rng.hex(32);
    net.signatures.set(resource, []);
    const count = rng.int(0, net.opts.validators);
    for (let k = 0; k < count; k++)
      pushSignature(net, resource, rng, i % 2 === 0 ? 'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL' : rng.pick(NODE_SIGNATURE_KIND.slice(1)));
  }
}

export function pushSignature(net: SimNetwork, resource: string, rng: Rng, kind: string): void {
  net.signatures.get(resource)!.push({ seq: net.nextSeq(), id: resource, sig: rng.bytes(65).toString('base64'), kind });
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
