/**
 * Records to JSON, encoded the way the data node's REST gateway encodes protobuf:
 * 64-bit integers as decimal strings, 32-bit integers and doubles as numbers, enums by name,
 * unset messages as null, unset optional fields omitted.
 */
import { ZERO_TIME, formatRfc3339Nano } from '../../src/shared/time.js';
import type { AssetRec, OrderRec, OrderVersion, PositionRec, RotationRec, SignatureRec, PartyRec } from './model.js';
import type { SimNetwork } from './network.js';

export { marketJson } from './market-json.js';

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
    // icebergOrder is a proto3 optional field: omitted when unset.
  };
  if (v.reason !== undefined) out.reason = v.reason; // present only on rejected orders
  return out;
}

/** GET /api/v2/asset/{id}: an ERC-20 asset (the details oneof set to erc20). */
export function assetJson(a: AssetRec): Record<string, unknown> {
  return {
    asset: {
      id: a.id,
      details: {
        name: a.symbol,
        symbol: a.symbol,
        decimals: String(a.decimals),
        quantum: '1',
        erc20: { contractAddress: `0x${a.id.slice(0, 40)}`, lifetimeLimit: '0', withdrawThreshold: '0', chainId: '1' },
      },
      status: 'STATUS_ENABLED',
    },
  };
}
