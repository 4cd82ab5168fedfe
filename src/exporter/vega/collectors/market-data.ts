/**
 * GET /api/v2/markets/data → live market health: trading mode and state, auctions, prices, book
 * top, open interest, liquidity stake against target, price-monitoring bounds, funding. One call
 * for all markets, once per network. Values are scaled by the market's decimals from the directory
 * (filled by the markets collector): prices by decimalPlaces, volumes by positionDecimalPlaces,
 * stakes by the settlement asset's decimals; a value whose decimals are unknown is absent, never
 * unscaled.
 */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { FieldError } from '../../errors.js';
import { amount, arr, decimal, enumValue, i64, id as readId, obj, scaleExact, u64, unixNsSeconds } from '../convert.js';
import type { Sample } from '../../engine/labels.js';
import { EnumLabels, oneHot } from '../scale.js';
import { AUCTION_TRIGGER, MARKET_STATE, TRADING_MODE } from '../../../shared/enums.js';
import { LOOKUPS_PER_POLL, type Directory, type MarketFacts } from '../directory.js';
import { defineCollector, type CollectorDeps } from '../../engine/define.js';
import { marketGuardConfig, type MarketOptions } from '../market-guard.js';
import { RowSkips } from '../../engine/rows.js';
import { Turns } from '../../engine/turns.js';
import { KIB, MAX_LIST_ROWS, type ListRowBound } from '../../http/bounds.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const N = ['network'] as const;
const MD = 'GET /api/v2/markets/data';
/** One market's data in the unpaginated `markets_data` list (vega/endpoints.ts). */
const MARKET_DATA_ROW: ListRowBound = { bytes: 4 * KIB, tokens: 200, containers: 20, string: KIB, keys: 256, page: MAX_LIST_ROWS };

const metric = metricsOf('market_data');

/** The families this collector writes, in exposition order. */
export const M = {
  mdMode: metric('vega_market_data_trading_mode', [...N, 'market_id', 'trading_mode'], '')
    .source(`${MD} marketTradingMode`)
    .help('Live trading mode: 1 for the current mode, 0 for the other known modes.'),
  mdState: metric('vega_market_data_state', [...N, 'market_id', 'state'], '')
    .source(`${MD} marketState`)
    .help('Live market state: 1 for the current state, 0 for the other known states.'),
  mdAuction: metric('vega_market_auction_timestamp_seconds', [...N, 'market_id', 'event'], 'seconds since epoch')
    .source(`${MD} auctionStart, auctionEnd (unix ns; "0" is absent)`)
    .help('Start and (expected) end of the current auction; absent outside auctions.'),
  mdTrigger: metric('vega_market_auction_trigger_info', [...N, 'market_id', 'trigger', 'extension_trigger'], '')
    .source(`${MD} trigger, extensionTrigger`)
    .help('What started the current auction and what extended it; present (1) only while a trigger is set.'),
  mdPrice: metric('vega_market_data_price', [...N, 'market_id', 'kind'], 'quote units')
    .source(`${MD} markPrice, lastTradedPrice, midPrice, indicativePrice, bestBidPrice, bestOfferPrice / 10^decimalPlaces`)
    .help("Live prices in the market's price units; absent while the market's decimals are unknown. Exact up to float64 rounding."),
  mdVolume: metric('vega_market_data_volume', [...N, 'market_id', 'kind'], 'contracts')
    .source(`${MD} bestBidVolume, bestOfferVolume, indicativeVolume / 10^positionDecimalPlaces`)
    .help('Volume at the best bid and offer and the indicative uncrossing volume, in contracts; absent while decimals are unknown.'),
  mdOpenInterest: metric('vega_market_open_interest', [...N, 'market_id'], 'contracts')
    .source(`${MD} openInterest / 10^positionDecimalPlaces`)
    .help('Open interest in contracts; absent while decimals are unknown.'),
  mdStake: metric('vega_market_stake', [...N, 'market_id', 'kind'], 'settlement-asset units')
    .source(`${MD} targetStake, suppliedStake / 10^settlement-asset decimals`)
    .help('Target and supplied liquidity stake in whole settlement-asset units; absent while the asset decimals are unknown.'),
  mdBound: metric('vega_market_price_monitoring_bound', [...N, 'market_id', 'horizon', 'bound'], 'quote units')
    .source(
      `${MD} priceMonitoringBounds[].minValidPrice, maxValidPrice / 10^decimalPlaces (active bounds only; per trigger horizon, the range all of them allow)`,
    )
    .help(
      'Price-monitoring bounds: trading outside [min, max] starts a price auction. Only active bounds count (those without `active`, from nodes before v0.77, are taken as active); when several active bounds share a horizon, min is the highest of their minimums and max the lowest of their maximums. A horizon whose bounds are all inactive has no min and max: see vega_market_price_monitoring_bound_active.',
    ),
  mdBoundActive: metric('vega_market_price_monitoring_bound_active', [...N, 'market_id', 'horizon'], '')
    .source(`${MD} priceMonitoringBounds[].active (v0.77; absent is active)`)
    .help(
      'Whether a price-monitoring bound of this horizon is active (1), or all of them are inactive (0): an inactive bound has already started its auction and limits nothing until the network resets it, so its range is not exported.',
    ),
  mdNextMtm: metric('vega_market_next_mark_to_market_timestamp_seconds', [...N, 'market_id'], 'seconds since epoch')
    .source(`${MD} nextMarkToMarket (unix ns; "0" is absent)`)
    .help('When the next mark-to-market settlement is due.'),
  mdFundingRate: metric('vega_market_funding_rate', [...N, 'market_id'], 'ratio')
    .source(`${MD} productData.perpetualData.fundingRate`)
    .help('Perpetual markets: the current funding rate; absent for other products.'),
  mdTimestamp: metric('vega_market_data_timestamp_seconds', [...N, 'market_id'], 'seconds since epoch')
    .source(`${MD} timestamp (unix ns)`)
    .help('When the node computed this market data.'),
  mdOverLimit: metric('datanode_exporter_market_data_over_limit', N, '')
    .source(`${MD} (rows after collectors.market_data.allow)`)
    .help('Whether more markets than collectors.market_data.max_markets were listed (1): per-market series are then not exported.'),
} as const satisfies Record<string, MetricDef>;

type Json = Record<string, unknown>;

/** What a row is scaled with: the market's facts, and its settlement asset's decimals when known. */
export interface Scaling {
  market: MarketFacts;
  assetDecimals?: number | undefined;
}

const PRICES = [
  ['mark', 'markPrice'],
  ['last_traded', 'lastTradedPrice'],
  ['mid', 'midPrice'],
  ['indicative', 'indicativePrice'],
  ['best_bid', 'bestBidPrice'],
  ['best_offer', 'bestOfferPrice'],
] as const;
const VOLUMES = [
  ['best_bid', 'bestBidVolume'],
  ['best_offer', 'bestOfferVolume'],
  ['indicative', 'indicativeVolume'],
] as const;
/** Price-monitoring horizons exported by name per market; real markets have a handful. */
export const MAX_HORIZONS = 8;
/** No auction trigger: the only value that means "not in an auction". */
const NO_TRIGGER: (typeof AUCTION_TRIGGER)[number] = 'AUCTION_TRIGGER_UNSPECIFIED';
type Enums = { state: EnumLabels; mode: EnumLabels; trigger: EnumLabels };

/** Samples of one marketsData row. Throws FieldError naming the bad field (the caller skips the row). */
export function marketDataRow(network: string, d: Json, path: string, scale: Scaling | undefined, enums: Enums): Sample[] {
  const id = readId(d.market, `${path}.market`);
  const out: Sample[] = [];
  const push = (metric: Sample['metric'], value: number | undefined, ...extra: string[]): void => {
    if (value !== undefined && Number.isFinite(value)) out.push({ metric, values: [network, id, ...extra], value });
  };
  for (const [m, v] of oneHot(TRADING_MODE, enumValue(d.marketTradingMode, `${path}.marketTradingMode`), enums.mode)) push(M.mdMode, v, m);
  for (const [s, v] of oneHot(MARKET_STATE, enumValue(d.marketState, `${path}.marketState`), enums.state)) push(M.mdState, v, s);
  for (const [ev, k] of [
    ['start', 'auctionStart'],
    ['end', 'auctionEnd'],
  ] as const)
    push(M.mdAuction, unixNsSeconds(d[k], `${path}.${k}`), ev);
  const trigger = enumValue(d.trigger, `${path}.trigger`);
  const ext = enumValue(d.extensionTrigger, `${path}.extensionTrigger`);
  // Enum values are open-ended: unknown ones are capped by EnumLabels so a node cannot mint labels.
  if (trigger !== NO_TRIGGER || ext !== NO_TRIGGER) push(M.mdTrigger, 1, enums.trigger.label(trigger), enums.trigger.label(ext));
  push(M.mdNextMtm, unixNsSeconds(d.nextMarkToMarket, `${path}.nextMarkToMarket`));
  push(M.mdTimestamp, unixNsSeconds(d.timestamp, `${path}.timestamp`));
  const perp = (d.productData as Json | null | undefined)?.perpetualData as Json | null | undefined;
  if (perp && perp.fundingRate !== undefined) push(M.mdFundingRate, decimal(perp.fundingRate, `${path}.productData.perpetualData.fundingRate`));
  const bounds = boundsByHorizon(d, path);
  for (const [horizon, b] of bounds) push(M.mdBoundActive, b.active ? 1 : 0, horizon);
  if (scale) out.push(...scaledRow(network, id, d, path, bounds, scale));
  return out;
}

/** The values that need decimals: prices, volumes, open interest, bounds, stakes. */
function scaledRow(network: string, id: string, d: Json, path: string, bounds: Map<string, HorizonBounds>, { market, assetDecimals }: Scaling): Sample[] {
  const out: Sample[] = [];
  const push = (metric: Sample['metric'], v: string | undefined, decimals: number, ...extra: string[]): void => {
    const value = v === undefined ? undefined : scaleExact(v, decimals);
    // Beyond float64 (absurd decimals): absent rather than +Inf.
    if (value !== undefined && Number.isFinite(value)) out.push({ metric, values: [network, id, ...extra], value });
  };
  for (const [kind, k] of PRICES) push(M.mdPrice, amount(d[k], `${path}.${k}`), market.decimalPlaces, kind);
  for (const [kind, k] of VOLUMES) push(M.mdVolume, String(u64(d[k], `${path}.${k}`)), market.positionDecimalPlaces, kind);
  push(M.mdOpenInterest, String(u64(d.openInterest, `${path}.openInterest`)), market.positionDecimalPlaces);
  for (const [horizon, b] of bounds) {
    if (!b.active) continue; // every bound of this horizon is spent: no valid range to show
    push(M.mdBound, b.min, market.decimalPlaces, horizon, 'min');
    push(M.mdBound, b.max, market.decimalPlaces, horizon, 'max');
  }
  if (assetDecimals !== undefined) {
    push(M.mdStake, amount(d.targetStake, `${path}.targetStake`), assetDecimals, 'target');
    push(M.mdStake, amount(d.suppliedStake, `${path}.suppliedStake`), assetDecimals, 'supplied');
  }
  return out;
}

interface HorizonBounds {
  active: boolean;
  min?: string | undefined;
  max?: string | undefined;
}

/**
 * The price-monitoring bounds of one row by trigger horizon. Only active bounds limit the price
 * (`active`, since v0.77; absent on older nodes, which have only active bounds, is active): an
 * inactive one has been triggered already. Several active bounds of one horizon all apply, so the
 * valid range is the one they all allow: the highest minimum and the lowest maximum, compared
 * exactly on the decimal text.
 */
export function boundsByHorizon(d: Json, path: string): Map<string, HorizonBounds> {
  const out = new Map<string, HorizonBounds>();
  // A few horizons by name, then one `other` bucket (per row): a node cannot mint series per bound.
  const horizons = new EnumLabels([], MAX_HORIZONS);
  arr(d.priceMonitoringBounds ?? [], `${path}.priceMonitoringBounds`).forEach((raw, i) => {
    const p = `${path}.priceMonitoringBounds[${i}]`;
    const b = obj(raw, p);
    const horizon = horizons.label(String(i64(obj(b.trigger, `${p}.trigger`).horizon, `${p}.trigger.horizon`)));
    const min = amount(b.minValidPrice, `${p}.minValidPrice`);
    const max = amount(b.maxValidPrice, `${p}.maxValidPrice`);
    if (b.active !== undefined && typeof b.active !== 'boolean') throw new FieldError(`${p}.active`, 'a boolean', b.active);
    const active = b.active !== false;
    const cur = out.get(horizon) ?? { active: false };
    out.set(horizon, cur);
    if (!active) return;
    if (!cur.active) {
      out.set(horizon, { active: true, min, max });
      return;
    }
    if (min !== undefined && (cur.min === undefined || compareDecimal(min, cur.min) > 0)) cur.min = min;
    if (max !== undefined && (cur.max === undefined || compareDecimal(max, cur.max) < 0)) cur.max = max;
  });
  return out;
}

/** Order of two unsigned decimal strings (as amount() accepts them), exactly. */
export function compareDecimal(a: string, b: string): number {
  const [ai, af = ''] = a.split('.') as [string, string?];
  const [bi, bf = ''] = b.split('.') as [string, string?];
  const x = ai.replace(/^0+(?=\d)/, '');
  const y = bi.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  if (x !== y) return x < y ? -1 : 1;
  const n = Math.max(af.length, bf.length);
  const fa = af.padEnd(n, '0');
  const fb = bf.padEnd(n, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

/** The rows whose market id parses, once each, after the allow list (ids, or codes the directory knows). */
export function selectRows(rows: readonly unknown[], allow: readonly string[], directory: Directory, skips: RowSkips): { d: Json; path: string; id: string }[] {
  const allowed = new Set(allow);
  const out = new Map<string, { d: Json; path: string; id: string }>();
  rows.forEach((raw, i) => {
    const path = `marketsData[${i}]`;
    const r = skips.row(() => {
      const d = obj(raw, path);
      return { d, path, id: readId(d.market, `${path}.market`) };
    });
    if (!r || out.has(r.id)) return;
    if (allowed.size === 0 || allowed.has(r.id) || allowed.has(directory.markets.get(r.id)?.code ?? '')) out.set(r.id, r);
  });
  return [...out.values()];
}

export class MarketDataCollector implements Collector {
  constructor(
    private readonly opts: MarketOptions,
    private readonly directory: Directory,
  ) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const res = await ctx.client.get('/api/v2/markets/data', [], 'markets_data', ctx.signal);
    const skips = new RowSkips();
    const rows = selectRows(arr(obj(res.json, 'body').marketsData, 'marketsData'), this.opts.allow, this.directory, skips);
    const over = rows.length > this.opts.maxMarkets;
    const samples: Sample[] = [{ metric: M.mdOverLimit, values: [ctx.target], value: over ? 1 : 0 }];
    if (this.opts.countsOnly || over) return { samples, skipped: skips.list };
    // Unknown states, modes and triggers: a few by name, then `other`, bucketed afresh each poll.
    const enums: Enums = { state: new EnumLabels(MARKET_STATE), mode: new EnumLabels(TRADING_MODE), trigger: new EnumLabels(AUCTION_TRIGGER) };
    let lookups = 0;
    // A market at a time, letting the event loop turn in between (engine/turns.ts).
    const turns = new Turns();
    for (const { d, path, id } of rows) {
      await turns.next();
      let market = this.directory.markets.get(id);
      if (!market && lookups < LOOKUPS_PER_POLL) {
        lookups++;
        market = await this.directory.market(ctx.client, id, ctx.signal);
      }
      const assetDecimals = market?.settlementAsset ? await this.directory.assetDecimals(ctx.client, market.settlementAsset, ctx.signal) : undefined;
      samples.push(...(skips.row(() => marketDataRow(ctx.target, d, path, market && { market, assetDecimals }, enums)) ?? []));
    }
    return { samples, skipped: skips.list };
  }
}

export default defineCollector({
  name: 'market_data',
  scope: 'network',
  // Auctions and stake shortfalls are paged on within minutes: 30 s keeps the alerts' for-clauses meaningful.
  title: 'market_data collector (`GET /api/v2/markets/data`, every 30 s by default)',
  config: marketGuardConfig('30s'),
  // Weighted as the markets collector, for the same reason: dozens of series a market.
  seriesWeight: 4,
  families: M,
  endpoints: { markets_data: MARKET_DATA_ROW },
  create: (c, { shared: directory }: CollectorDeps<Directory>) =>
    new MarketDataCollector({ maxMarkets: c.max_markets, allow: c.allow, countsOnly: c.counts_only }, directory),
});
