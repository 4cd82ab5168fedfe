/** The market_data collector beyond the golden fixture: the guard, the allow list, the lookup cap, unknown decimals. */
import { describe, expect, it } from 'vitest';
import { compareDecimal, MarketDataCollector } from '../../../../src/exporter/vega/collectors/market-data.js';
import { LOOKUPS_PER_POLL } from '../../../../src/exporter/vega/directory.js';
import type { CollectContext } from '../../../../src/exporter/engine/types.js';
import { UpstreamHttpError } from '../../../../src/exporter/errors.js';
import { Directory } from '../../../../src/exporter/vega/directory.js';

const hex = (n: number): string => n.toString(16).padStart(64, '0');
const row = (n: number): Record<string, unknown> => ({
  market: hex(n),
  markPrice: '12345',
  lastTradedPrice: '12345',
  midPrice: '0',
  indicativePrice: '0',
  bestBidPrice: '0',
  bestOfferPrice: '0',
  bestBidVolume: '0',
  bestOfferVolume: '0',
  indicativeVolume: '0',
  openInterest: '7',
  timestamp: '1700000000000000000',
  auctionStart: '0',
  auctionEnd: '0',
  marketTradingMode: 'TRADING_MODE_CONTINUOUS',
  marketState: 'STATE_ACTIVE',
  trigger: 'AUCTION_TRIGGER_UNSPECIFIED',
  extensionTrigger: 'AUCTION_TRIGGER_UNSPECIFIED',
  targetStake: '100',
  suppliedStake: '90',
  priceMonitoringBounds: [],
  nextMarkToMarket: '0',
  productData: null,
});

function ctx(rows: unknown[], calls: string[]): CollectContext {
  const client: CollectContext['client'] = {
    async get(path: string, _q: unknown, endpoint: string) {
      calls.push(path);
      if (path === '/api/v2/markets/data') return { json: { marketsData: rows }, headers: {}, status: 200 };
      throw new UpstreamHttpError(404, endpoint, 5, undefined, undefined, undefined);
    },
  };
  return { target: 'main', client, signal: new AbortController().signal, pageSize: 10, maxPages: 1 };
}
const names = (s: { metric: { name: string } }[]): Set<string> => new Set(s.map((x) => x.metric.name));

describe('market_data', () => {
  it("prices scaled by the directory's decimals; stakes absent while the asset decimals are unknown", async () => {
    const dir = new Directory();
    dir.setMarkets([{ id: hex(1), decimalPlaces: 2, positionDecimalPlaces: 0, settlementAsset: hex(99), code: 'A' }]);
    const r = await new MarketDataCollector({ maxMarkets: 10, allow: [], countsOnly: false }, dir).collect(ctx([row(1)], []));
    expect(r.samples.find((s) => s.metric.name === 'vega_market_data_price' && s.values[2] === 'mark')?.value).toBe(123.45);
    expect(names(r.samples).has('vega_market_stake')).toBe(false); // asset 404: unknown, never unscaled
  });

  it('unknown markets: at most LOOKUPS_PER_POLL lookups a poll; the rest export only what needs no decimals', async () => {
    const calls: string[] = [];
    const rows = Array.from({ length: LOOKUPS_PER_POLL + 5 }, (_, i) => row(i + 1));
    const r = await new MarketDataCollector({ maxMarkets: 100, allow: [], countsOnly: false }, new Directory()).collect(ctx(rows, calls));
    expect(calls.filter((c) => c.startsWith('/api/v2/market/'))).toHaveLength(LOOKUPS_PER_POLL);
    expect(names(r.samples).has('vega_market_data_price')).toBe(false);
    expect(r.samples.filter((s) => s.metric.name === 'vega_market_data_trading_mode' && s.value === 1)).toHaveLength(rows.length);
  });

  it('the guard: over max_markets or counts_only keeps only the over-limit flag; allow selects by id or known code', async () => {
    const dir = new Directory();
    dir.setMarkets([{ id: hex(2), decimalPlaces: 0, positionDecimalPlaces: 0, settlementAsset: '', code: 'BTC/USD' }]);
    const over = await new MarketDataCollector({ maxMarkets: 1, allow: [], countsOnly: false }, dir).collect(ctx([row(1), row(2)], []));
    expect(over.samples.map((s) => [s.metric.name, s.value])).toEqual([['datanode_exporter_market_data_over_limit', 1]]);
    const counts = await new MarketDataCollector({ maxMarkets: 10, allow: [], countsOnly: true }, dir).collect(ctx([row(1)], []));
    expect(counts.samples.map((s) => [s.metric.name, s.value])).toEqual([['datanode_exporter_market_data_over_limit', 0]]);
    const allowed = await new MarketDataCollector({ maxMarkets: 10, allow: ['BTC/USD'], countsOnly: false }, dir).collect(ctx([row(1), row(2)], []));
    expect(new Set(allowed.samples.filter((s) => s.values.length > 1).map((s) => s.values[1]))).toEqual(new Set([hex(2)]));
  });

  it('a bad row is skipped and counted; the others are exported', async () => {
    const r = await new MarketDataCollector({ maxMarkets: 10, allow: [], countsOnly: false }, new Directory()).collect(
      ctx([{ ...row(1), marketTradingMode: null }, row(2)], []),
    );
    expect(r.skipped).toEqual([{ reason: 'bad_field', field: 'marketsData[].marketTradingMode' }]);
    expect(new Set(r.samples.filter((s) => s.values.length > 1).map((s) => s.values[1]))).toEqual(new Set([hex(2)]));
  });
});

describe('price-monitoring bounds honour active (v0.77)', () => {
  // Market hex(1): 2 price decimals. Prices below are raw integers; the expected values are them / 100.
  const bound = (horizon: string, min: string, max: string, active?: boolean): Record<string, unknown> => ({
    minValidPrice: min,
    maxValidPrice: max,
    trigger: { horizon, probability: '0.99', auctionExtension: '60' },
    referencePrice: '10000',
    ...(active === undefined ? {} : { active }),
  });
  const run = async (bounds: unknown[]) => {
    const dir = new Directory();
    dir.setMarkets([{ id: hex(1), decimalPlaces: 2, positionDecimalPlaces: 0, settlementAsset: '', code: 'A' }]);
    const r = await new MarketDataCollector({ maxMarkets: 10, allow: [], countsOnly: false }, dir).collect(
      ctx([{ ...row(1), priceMonitoringBounds: bounds }], []),
    );
    expect(r.skipped).toEqual([]);
    const get = (name: string, ...labels: string[]) =>
      r.samples.filter((s) => s.metric.name === name && labels.every((l, i) => s.values[i + 2] === l)).map((s) => s.value);
    return {
      bound: (h: string, b: string) => get('vega_market_price_monitoring_bound', h, b),
      active: (h: string) => get('vega_market_price_monitoring_bound_active', h),
    };
  };

  it('an inactive bound and an active one for the same horizon: only the active one is the valid range', async () => {
    // The inactive bound comes first (the exporter used to take the first bound per horizon).
    const r = await run([bound('3600', '9000', '11000', false), bound('3600', '9500', '10500', true)]);
    expect(r.bound('3600', 'min')).toEqual([95]);
    expect(r.bound('3600', 'max')).toEqual([105]);
    expect(r.active('3600')).toEqual([1]);
  });

  it('a horizon whose bounds are all inactive shows active 0 and no range', async () => {
    const r = await run([bound('3600', '9000', '11000', false), bound('7200', '8000', '12000', true)]);
    expect(r.bound('3600', 'min')).toEqual([]);
    expect(r.bound('3600', 'max')).toEqual([]);
    expect(r.active('3600')).toEqual([0]);
    expect(r.bound('7200', 'min')).toEqual([80]);
    expect(r.active('7200')).toEqual([1]);
  });

  it('without active (nodes before v0.77) a bound is active', async () => {
    const r = await run([bound('3600', '9000', '11000')]);
    expect(r.bound('3600', 'min')).toEqual([90]);
    expect(r.bound('3600', 'max')).toEqual([110]);
    expect(r.active('3600')).toEqual([1]);
  });

  it('several active bounds of one horizon: the range they all allow (highest min, lowest max)', async () => {
    // Decimal text of different lengths and fractions: 9100.5 > 9000, 10400 < 100000.25.
    const r = await run([bound('60', '9000', '100000.25', true), bound('60', '9100.5', '10400', true), bound('60', '9900', '9950', false)]);
    expect(r.bound('60', 'min')).toEqual([91.005]);
    expect(r.bound('60', 'max')).toEqual([104]);
    expect(r.active('60')).toEqual([1]);
  });

  it('active of another type is a bad field: the row is skipped', async () => {
    const dir = new Directory();
    const r = await new MarketDataCollector({ maxMarkets: 10, allow: [], countsOnly: false }, dir).collect(
      ctx([{ ...row(1), priceMonitoringBounds: [bound('60', '1', '2'), { ...bound('60', '1', '2'), active: 'no' }] }, row(2)], []),
    );
    expect(r.skipped).toEqual([{ reason: 'bad_field', field: 'marketsData[].priceMonitoringBounds[].active' }]);
  });
});

describe('compareDecimal', () => {
  it('orders decimal text exactly, whatever its length, leading zeros or fraction', () => {
    expect(compareDecimal('007', '7')).toBe(0);
    expect(compareDecimal('1.10', '1.1')).toBe(0);
    expect(compareDecimal('10', '9')).toBe(1);
    expect(compareDecimal('9.99', '10')).toBe(-1);
    expect(compareDecimal('99999999999999999999', '99999999999999999998')).toBe(1); // equal as float64
    expect(compareDecimal('0.0000000000000000001', '0')).toBe(1);
  });
});
