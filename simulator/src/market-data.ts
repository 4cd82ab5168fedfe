/**
 * GET /api/v2/markets/data: live market data as a data node sends it, a pure function of the
 * market record, the height and the faults. Prices move every block (a slow wave per market),
 * supplied stake moves around but above target, auctions follow the market's trading mode (which
 * movement.ts flips now and then) with their start remembered from when it was first served.
 * Faults act on the first market: a long monitoring auction, stake under target, a frozen mark.
 */
import type { MarketRec } from './model.js';
import type { SimNetwork } from './network.js';

export interface MarketDataFaults {
  /** The first market has been in a price-monitoring auction for two hours. */
  longAuction: boolean;
  /** The first market's supplied stake is 60 % of its target. */
  stakeBelowTarget: boolean;
  /** The first market's mark price no longer moves while it trades continuously. */
  markPriceFrozen: boolean;
}

const NS = 1_000_000_000n;
const AUCTION_EXTENSION_S = 300n;
/** When each market's current auction was first served (its start), per market record. */
const auctionSince = new WeakMap<MarketRec, bigint>();

const wave = (h: number, seq: number, period: number): number => Math.sin((h + seq * 37) / period);
const ns = (v: bigint): string => v.toString();

function auction(net: SimNetwork, m: MarketRec, forced: boolean): { mode: string; start: bigint; end: bigint; trigger: string } {
  const now = net.blockTimeNs;
  if (forced)
    return { mode: 'TRADING_MODE_MONITORING_AUCTION', start: now - 7200n * NS, end: now + AUCTION_EXTENSION_S * NS, trigger: 'AUCTION_TRIGGER_PRICE' };
  const inAuction = m.tradingMode.endsWith('_AUCTION');
  if (!inAuction) {
    auctionSince.delete(m);
    return { mode: m.tradingMode, start: 0n, end: 0n, trigger: 'AUCTION_TRIGGER_UNSPECIFIED' };
  }
  const start = auctionSince.get(m) ?? now;
  auctionSince.set(m, start);
  const opening = m.tradingMode === 'TRADING_MODE_OPENING_AUCTION';
  return { mode: m.tradingMode, start, end: start + AUCTION_EXTENSION_S * NS, trigger: opening ? 'AUCTION_TRIGGER_OPENING' : 'AUCTION_TRIGGER_PRICE' };
}

function marketDataJson(net: SimNetwork, m: MarketRec, i: number, f: MarketDataFaults): Record<string, unknown> {
  const h = net.height;
  const first = i === 0;
  const a = auction(net, m, first && f.longAuction);
  // A frozen mark matters while the market trades continuously: the fault keeps it so.
  if (first && f.markPriceFrozen && !f.longAuction)
    Object.assign(a, { mode: 'TRADING_MODE_CONTINUOUS', start: 0n, end: 0n, trigger: 'AUCTION_TRIGGER_UNSPECIFIED' });
  const markH = first && f.markPriceFrozen ? 0 : h;
  const unit = 10n ** BigInt(Math.max(0, m.decimalPlaces - 3)); // at least 3 digits of price movement per block
  const mark = (1_000_000_000n + BigInt(Math.round(20_000_000 * wave(markH, m.seq, 40)))) * unit;
  const spread = 50_000n * unit;
  const decimals = net.assets.find((x) => x.id === m.settlementAsset)?.decimals ?? 18;
  const target = BigInt(Math.round(50_000 * (1 + 0.1 * wave(h, m.seq, 100)))) * 10n ** BigInt(decimals);
  const ratio = first && f.stakeBelowTarget ? 60 : Math.round(120 + 15 * wave(h, m.seq, 70)); // percent of target
  const auctionNow = a.mode !== 'TRADING_MODE_CONTINUOUS';
  const book = (v: bigint): string => (auctionNow ? '0' : v.toString());
  return {
    markPrice: mark.toString(),
    bestBidPrice: book(mark - spread),
    bestBidVolume: book(BigInt(10 + (h % 7))),
    bestOfferPrice: book(mark + spread),
    bestOfferVolume: book(BigInt(12 + (h % 5))),
    bestStaticBidPrice: book(mark - spread),
    bestStaticBidVolume: book(BigInt(10 + (h % 7))),
    bestStaticOfferPrice: book(mark + spread),
    bestStaticOfferVolume: book(BigInt(12 + (h % 5))),
    midPrice: book(mark),
    staticMidPrice: book(mark),
    market: m.id,
    timestamp: ns(net.blockTimeNs),
    openInterest: String(100_000 + ((h * 13 + m.seq) % 5000)),
    auctionEnd: ns(a.end),
    auctionStart: ns(a.start),
    indicativePrice: auctionNow ? mark.toString() : '0',
    indicativeVolume: auctionNow ? '5' : '0',
    marketTradingMode: a.mode,
    trigger: a.trigger,
    extensionTrigger: 'AUCTION_TRIGGER_UNSPECIFIED',
    targetStake: target.toString(),
    suppliedStake: ((target * BigInt(ratio)) / 100n).toString(),
    // In a price auction the bound that started it is spent (active false) until the auction ends.
    priceMonitoringBounds: m.triggers.map((t, k) => ({
      minValidPrice: ((mark * 95n) / 100n).toString(),
      maxValidPrice: ((mark * 105n) / 100n).toString(),
      trigger: { horizon: String(t.horizon), probability: t.probability, auctionExtension: String(t.auctionExtension) },
      referencePrice: mark.toString(),
      active: !(k === 0 && a.trigger === 'AUCTION_TRIGGER_PRICE'),
    })),
    marketValueProxy: target.toString(),
    liquidityProviderFeeShare: [],
    marketState: m.state,
    nextMarkToMarket: ns(net.blockTimeNs + 5n * NS),
    lastTradedPrice: (mark - unit).toString(),
    marketGrowth: '0',
    productData: m.product === 'perpetual' ? { perpetualData: perpetual(net, mark, h, m.seq) } : null,
    liquidityProviderSla: [],
    nextNetworkCloseout: ns(net.blockTimeNs + 10n * NS),
    markPriceType: 'COMPOSITE_PRICE_TYPE_LAST_TRADE',
    markPriceState: null,
  };
}

function perpetual(net: SimNetwork, mark: bigint, h: number, seq: number): Record<string, unknown> {
  const rate = (0.0001 * wave(h, seq, 200)).toFixed(10);
  return {
    fundingPayment: String(Math.round(Number(mark) * Number(rate))),
    fundingRate: rate,
    internalTwap: mark.toString(),
    externalTwap: mark.toString(),
    seqNum: String(Math.floor(h / 3600)),
    startTime: ns(net.blockTimeNs - 600n * NS),
    internalCompositePrice: mark.toString(),
    nextInternalCompositePriceCalc: ns(net.blockTimeNs + 60n * NS),
    internalCompositePriceType: 'COMPOSITE_PRICE_TYPE_LAST_TRADE',
    underlyingIndexPrice: mark.toString(),
    internalCompositePriceState: null,
  };
}

export function marketsDataJson(net: SimNetwork, f: MarketDataFaults): { marketsData: Record<string, unknown>[] } {
  return { marketsData: net.markets.map((m, i) => marketDataJson(net, m, i, f)) };
}
