/**
 * Positions of the listed parties and/or markets: GET /api/v2/positions with repeated filters, all
 * pages. Volume and price are scaled by the market's decimals (from the markets collector, or one
 * lookup per unknown market, a few a poll); money fields by the settlement asset's decimals (from the config, or
 * GET /api/v2/asset/{id}); when those are unknown the money series are absent, never unscaled.
 */
import { z } from 'zod';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { anyId, timing } from '../../engine/fields.js';
import { amount, enumValue, i64, id, obj, scaleExact, unixNsSeconds } from '../convert.js';
import { KeptBytes, walkConnection } from '../paginate.js';
import { KIB, type ListRowBound } from '../../http/bounds.js';
import type { Sample } from '../../engine/labels.js';
import { oneHot } from '../scale.js';
import { POSITION_STATUS } from '../../../shared/enums.js';
import { LOOKUPS_PER_POLL, type Directory, type MarketFacts } from '../directory.js';
import { defineCollector, watchesListedIds, type CollectorDeps } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const POS = 'GET /api/v2/positions';
/** Help of the positions' fee and funding series: what the period label means. */
const POSITION_FEES = (what: string): string =>
  `${what}, in whole settlement-asset units: period="all" over the position's whole history, period="since_open" since it last opened from zero or flipped side. Absent for nodes before v0.79 (which do not send them) and while the asset decimals are unknown. Exact up to float64 rounding.`;
const N = ['network'] as const;
/**
 * One position of a `positions` page (vega/endpoints.ts). 1,000 a page: a large row, parsed while
 * the exporter waits; a position is 18 series, so 1,000 of them already pass a collector's share at
 * the default limits.
 */
const POSITION_ROW: ListRowBound = { bytes: 2 * KIB, tokens: 60, containers: 4, string: KIB, keys: 128, page: 1_000 };

const metric = metricsOf('positions');

/** The families this collector writes, in exposition order. */
export const M = {
  positionVolume: metric('vega_position_open_volume', [...N, 'market_id', 'party_id'], 'contracts')
    .source(`${POS} openVolume / 10^positionDecimalPlaces`)
    .help(
      'Open volume, signed (negative is short), in contracts. Exact up to float64 rounding (scaled by 10^positionDecimalPlaces exactly, which may be negative).',
    ),
  positionEntryPrice: metric('vega_position_average_entry_price', [...N, 'market_id', 'party_id'], 'quote units')
    .source(`${POS} averageEntryPrice / 10^decimalPlaces`)
    .help(
      "Average entry price in the market's price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.",
    ),
  positionRealised: metric('vega_position_realised_pnl', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} realisedPnl / 10^asset decimals`)
    .help(
      'Realised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionUnrealised: metric('vega_position_unrealised_pnl', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} unrealisedPnl / 10^asset decimals`)
    .help(
      'Unrealised profit and loss in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionLossSoc: metric('vega_position_loss_socialisation', [...N, 'market_id', 'party_id', 'asset'], 'settlement-asset units')
    .source(`${POS} lossSocialisationAmount / 10^asset decimals`)
    .help(
      'Loss socialisation amount in whole settlement-asset units (absent when the asset decimals are unknown). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.',
    ),
  positionTakerFees: metric('vega_position_taker_fees_paid', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} takerFeesPaid, takerFeesPaidSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Taker fees the party paid on its trades in the market')),
  positionMakerFees: metric('vega_position_maker_fees_received', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} makerFeesReceived, makerFeesReceivedSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Maker fees the party received on its trades in the market')),
  positionOtherFees: metric('vega_position_other_fees_paid', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} feesPaid, feesPaidSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('The other fees the party paid on its trades in the market (infrastructure, liquidity and the like)')),
  positionFunding: metric('vega_position_funding_payments', [...N, 'market_id', 'party_id', 'asset', 'period'], 'settlement-asset units')
    .source(`${POS} fundingPaymentAmount, fundingPaymentAmountSince / 10^asset decimals (v0.79)`)
    .help(POSITION_FEES('Perpetual markets: the net of the funding payments of the position, signed as the node sends it')),
  positionStatus: metric('vega_position_status', [...N, 'market_id', 'party_id', 'status'], '')
    .source(`${POS} positionStatus`)
    .help('Position status: 1 for the current status, 0 for the other known ones.'),
  positionUpdated: metric('vega_position_updated_timestamp_seconds', [...N, 'market_id', 'party_id'], 'seconds since epoch')
    .source(`${POS} updatedAt (unix ns; "0" is absent)`)
    .help('When the position last changed.'),
} as const satisfies Record<string, MetricDef>;

export interface PositionRow {
  marketId: string;
  partyId: string;
  openVolume: bigint;
  /** Amounts as their exact decimal text ("" in the JSON is unset: undefined). */
  averageEntryPrice: string | undefined;
  realisedPnl: string | undefined;
  unrealisedPnl: string | undefined;
  lossSocialisationAmount: string | undefined;
  status: string;
  updatedAt: number | undefined;
  /** v0.79's fees and funding, whole history and since the position last opened; undefined when not sent or "". */
  money: { [K in MoneyKey]: string | undefined };
}

/** v0.79's per-position fee and funding fields: the series, the period label, signedness. */
const MONEY = [
  ['takerFeesPaid', M.positionTakerFees, 'all', false],
  ['takerFeesPaidSince', M.positionTakerFees, 'since_open', false],
  ['makerFeesReceived', M.positionMakerFees, 'all', false],
  ['makerFeesReceivedSince', M.positionMakerFees, 'since_open', false],
  ['feesPaid', M.positionOtherFees, 'all', false],
  ['feesPaidSince', M.positionOtherFees, 'since_open', false],
  ['fundingPaymentAmount', M.positionFunding, 'all', true],
  ['fundingPaymentAmountSince', M.positionFunding, 'since_open', true],
] as const;
type MoneyKey = (typeof MONEY)[number][0];

/** One position node; a FieldError names the bad field (the caller skips the row). */
export function parsePosition(n: unknown, path: string): PositionRow {
  const p = obj(n, path);
  return {
    marketId: id(p.marketId, `${path}.marketId`),
    partyId: id(p.partyId, `${path}.partyId`),
    openVolume: i64(p.openVolume, `${path}.openVolume`),
    averageEntryPrice: amount(p.averageEntryPrice, `${path}.averageEntryPrice`),
    realisedPnl: amount(p.realisedPnl, `${path}.realisedPnl`, true),
    unrealisedPnl: amount(p.unrealisedPnl, `${path}.unrealisedPnl`, true),
    lossSocialisationAmount: amount(p.lossSocialisationAmount, `${path}.lossSocialisationAmount`, true),
    status: enumValue(p.positionStatus, `${path}.positionStatus`),
    updatedAt: unixNsSeconds(p.updatedAt, `${path}.updatedAt`),
    // Fields a node before v0.79 does not send stay undefined: no series, not 0.
    money: Object.fromEntries(
      MONEY.map(([k, , , signed]) => [k, p[k] === undefined ? undefined : amount(p[k], `${path}.${k}`, signed)]),
    ) as PositionRow['money'],
  };
}

/** Samples for one position, given its market's facts and its asset's decimals when known. */
export function positionSamples(target: string, p: PositionRow, market: MarketFacts | undefined, assetDecimals: number | undefined): Sample[] {
  const v = [target, p.marketId, p.partyId];
  const out: Sample[] = [];
  // Unset ("") amounts and values beyond float64's range are absent, never 0 or Inf.
  const push = (metric: Sample['metric'], values: string[], raw: bigint | string | undefined, decimals: number): void => {
    const value = raw === undefined ? NaN : scaleExact(raw, decimals);
    if (Number.isFinite(value)) out.push({ metric, values, value });
  };
  if (market) {
    push(M.positionVolume, v, p.openVolume, market.positionDecimalPlaces);
    push(M.positionEntryPrice, v, p.averageEntryPrice, market.decimalPlaces);
    if (assetDecimals !== undefined) {
      const a = [...v, market.settlementAsset];
      push(M.positionRealised, a, p.realisedPnl, assetDecimals);
      push(M.positionUnrealised, a, p.unrealisedPnl, assetDecimals);
      push(M.positionLossSoc, a, p.lossSocialisationAmount, assetDecimals);
      for (const [k, metric, period] of MONEY) push(metric, [...a, period], p.money[k], assetDecimals);
    }
  }
  for (const [s, x] of oneHot(POSITION_STATUS, p.status)) out.push({ metric: M.positionStatus, values: [...v, s], value: x });
  if (p.updatedAt !== undefined) out.push({ metric: M.positionUpdated, values: v, value: p.updatedAt });
  return out;
}

export class PositionsCollector implements Collector {
  /** `rowLimit`: the collector's series budget; a walk past it (in series) stops, as the series would be cut anyway. */
  constructor(
    private readonly partyIds: readonly string[],
    private readonly marketIds: readonly string[],
    private readonly directory: Directory,
    private readonly rowLimit = Infinity,
  ) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const seen = new Set<string>();
    // The keys of the rows seen and the samples' ids are kept until the walk ends: within a byte budget.
    const held = new KeptBytes('positions');
    const skips = new RowSkips();
    const samples: Sample[] = [];
    let lookups = 0;
    const filters: [string, string][] = [
      ...this.partyIds.map((id) => ['filter.partyIds', id] as [string, string]),
      ...this.marketIds.map((id) => ['filter.marketIds', id] as [string, string]),
    ];
    // Each page is turned into samples as it arrives; only the keys of the rows seen are kept.
    const r = await walkConnection(
      ctx,
      { path: '/api/v2/positions', key: 'positions', endpoint: 'positions', row: POSITION_ROW, query: filters },
      async (nodes, at) => {
        // Counted in series, not rows: a position is up to 18 series, all held until the walk ends; the
        // walk stops at the first row past the budget, even within a page.
        const over = (): boolean => samples.length + skips.total > this.rowLimit;
        for (let i = 0; i < nodes.length && !over(); i++) {
          const p = skips.row(() => parsePosition(nodes[i], at(i)));
          if (!p) continue;
          const key = `${p.marketId}/${p.partyId}`;
          if (seen.has(key)) continue; // a row repeated across pages counts once
          held.keep(key, p.marketId, p.partyId);
          seen.add(key);
          let market = this.directory.markets.get(p.marketId);
          if (!market && lookups < LOOKUPS_PER_POLL) {
            lookups++;
            market = await this.directory.market(ctx.client, p.marketId, ctx.signal);
          }
          const decimals = market?.settlementAsset ? await this.directory.assetDecimals(ctx.client, market.settlementAsset, ctx.signal) : undefined;
          for (const sample of positionSamples(ctx.target, p, market, decimals)) samples.push(sample);
        }
        return !over();
      },
    );
    return { samples, pages: r.pages, truncated: r.truncated, skipped: skips.list };
  }
}

export default defineCollector({
  name: 'positions',
  scope: 'network',
  title: 'positions collector (`GET /api/v2/positions` for listed parties/markets; every 60 s)',
  families: M,
  endpoints: { positions: POSITION_ROW },
  config: z
    .strictObject({
      /** Off until parties or markets are listed. */
      enabled: z.boolean().optional(),
      ...timing('60s'),
      party_ids: z.array(anyId).default([]),
      market_ids: z.array(anyId).default([]),
      /** Settlement-asset decimals by asset id; others are read from GET /api/v2/asset/{id}. */
      asset_decimals: z.record(anyId, z.number().int().min(0).max(64)).default({}),
    })
    .prefault({}),
  ...watchesListedIds<{ enabled?: boolean | undefined; party_ids: string[]; market_ids: string[] }>(
    'positions',
    'party_ids',
    (c) => c.party_ids.length + c.market_ids.length,
  ),
  create: (c, deps: CollectorDeps<Directory>) => {
    const { shared: directory } = deps;
    directory.knowAssets(c.asset_decimals);
    return new PositionsCollector(c.party_ids, c.market_ids, directory, deps.seriesLimit);
  },
});
