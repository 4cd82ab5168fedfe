/**
 * What other collectors need to know about markets and assets to scale values: price and position
 * decimals and the settlement asset per market, decimals per asset. Filled by the markets collector
 * and, for anything it has not seen, by single lookups that are cached.
 */
import { id, obj, pathSegment, u64, i64 } from './convert.js';
import { FieldError, UpstreamHttpError } from '../errors.js';
import type { Fetcher } from '../engine/types.js';
import { MARKET_ROW } from './list-rows.js';

/** The lists the directory reads itself (vega/endpoints.ts). */
export const DIRECTORY_ENDPOINTS = { markets: MARKET_ROW } as const;

/** Markets the directory does not know are looked up one by one: at most this many a poll. */
export const LOOKUPS_PER_POLL = 10;

export interface MarketFacts {
  id: string;
  decimalPlaces: number;
  positionDecimalPlaces: number;
  settlementAsset: string;
  /** The instrument code ("" when absent), so other collectors can apply the markets' allow list by code. */
  code?: string;
}

export interface Product {
  kind: 'future' | 'perpetual' | 'spot' | 'unknown';
  /** The asset positions settle in (the quote asset for spot); "" when none is named (unknown). */
  settlementAsset: string;
  quoteName: string;
}

/** The product of a market's instrument (`path` names the instrument): one reading for every user. */
export function productOf(instrument: Record<string, unknown>, path: string): Product {
  const asset = (v: unknown): string => (v === undefined || v === null || v === '' ? '' : id(v, `${path}.settlementAsset`));
  for (const kind of ['future', 'perpetual'] as const) {
    const p = instrument[kind] as Record<string, unknown> | null | undefined;
    if (p && typeof p === 'object') return { kind, settlementAsset: asset(p.settlementAsset), quoteName: typeof p.quoteName === 'string' ? p.quoteName : '' };
  }
  const spot = instrument.spot as Record<string, unknown> | null | undefined;
  if (spot && typeof spot === 'object') return { kind: 'spot', settlementAsset: asset(spot.quoteAsset), quoteName: '' };
  return { kind: 'unknown', settlementAsset: '', quoteName: '' };
}

/** The scaling facts of one market JSON object (both the /markets and the /api/v2 forms). */
export function marketFacts(m: Record<string, unknown>, path: string): MarketFacts {
  const at = `${path}.tradableInstrument.instrument`;
  const instrument = obj(obj(m.tradableInstrument, `${path}.tradableInstrument`).instrument, at);
  return {
    id: id(m.id, `${path}.id`),
    decimalPlaces: Number(u64(m.decimalPlaces, `${path}.decimalPlaces`)),
    positionDecimalPlaces: Number(i64(m.positionDecimalPlaces, `${path}.positionDecimalPlaces`)),
    settlementAsset: productOf(instrument, at).settlementAsset,
    code: typeof instrument.code === 'string' ? instrument.code : '',
  };
}

/**
 * The longest id the directory keeps between polls (characters): far beyond any id in service (64
 * hex), short of what a node could use to make it hold megabytes. A longer market id is looked up
 * when needed, like a market the list did not name; a longer asset id is not looked up at all.
 */
export const MAX_HELD_ID = 1024;

/** Markets (and assets) remembered at most: more than any network lists, so a node cannot grow it. */
export const MAX_MARKETS = 10_000;

/** Set `key`, forgetting the oldest entry when the map is full. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_MARKETS) map.delete(map.keys().next().value!);
  map.set(key, value);
}

export class Directory {
  readonly markets = new Map<string, MarketFacts>();
  private readonly assets = new Map<string, number | null>();

  constructor(assetDecimals: Record<string, number> = {}) {
    this.knowAssets(assetDecimals);
  }

  /** Asset decimals known from the configuration: never looked up. */
  knowAssets(assetDecimals: Record<string, number>): void {
    for (const [id, d] of Object.entries(assetDecimals)) this.assets.set(id, d);
  }

  /** The full market list of a poll replaces the previous one: ids a node stops listing are forgotten. */
  setMarkets(list: readonly MarketFacts[]): void {
    this.markets.clear();
    // Ids are any string, but one far longer than any id in service (64 hex) is not kept from one
    // poll to the next: a node sending 40 KB ids would hold megabytes here. Such a market is looked
    // up when needed (market() below), as a market the list did not name.
    for (const m of list) if (m.id.length <= MAX_HELD_ID) remember(this.markets, m.id, m);
  }

  /** The market's facts, looked up with GET /api/v2/market/{id} if unknown; undefined if it does not exist. */
  async market(client: Fetcher, id: string, signal: AbortSignal): Promise<MarketFacts | undefined> {
    const known = this.markets.get(id);
    if (known) return known;
    try {
      const res = await client.get(`/api/v2/market/${pathSegment(id)}`, [], 'markets', signal, 1);
      const facts = marketFacts(obj(obj(res.json, 'body').market, 'market'), 'market');
      // Lookups add to the list between polls of the markets collector (or without it): bounded.
      remember(this.markets, id, facts);
      return facts;
    } catch (err) {
      // No such market, or an answer we cannot read: its values stay unscaled, i.e. absent.
      if (err instanceof FieldError || (err instanceof UpstreamHttpError && (err.status === 404 || err.status === 400))) return undefined;
      throw err;
    }
  }

  /** Asset decimals from the config, else GET /api/v2/asset/{id}; undefined when unknown. */
  async assetDecimals(client: Fetcher, id: string, signal: AbortSignal): Promise<number | undefined> {
    if (this.assets.has(id)) return this.assets.get(id) ?? undefined;
    if (id.length > MAX_HELD_ID) return undefined; // not kept, so not looked up poll after poll: its money series stay absent
    try {
      const res = await client.get(`/api/v2/asset/${pathSegment(id)}`, [], 'assets', signal);
      const details = obj(obj(obj(res.json, 'body').asset, 'asset').details, 'asset.details');
      const d = Number(u64(details.decimals, 'asset.details.decimals'));
      remember(this.assets, id, d);
      return d;
    } catch (err) {
      if (err instanceof FieldError) return undefined; // unreadable answer: money series absent this poll
      if (err instanceof UpstreamHttpError && (err.status === 404 || err.status === 400 || err.status === 501)) {
        remember(this.assets, id, null); // no such asset (or no asset endpoint): money series stay absent
        return undefined;
      }
      throw err;
    }
  }
}
