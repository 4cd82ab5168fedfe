/**
 * Markets: counts by state and trading mode, and per-market series under a cardinality guard.
 * Source: GET /markets as the specification gives it, asked once per target; real data nodes answer
 * 404 there, so on any answer but a valid 200 the collector uses the paginated GET /api/v2/markets
 * for the rest of that target's life.
 */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { marketGuardConfig, type MarketOptions } from '../market-guard.js';
import { arr, decimal, double, enumValue, i64, id as readId, obj, str, u64, unixNsSeconds } from '../convert.js';
import { KeptBytes, walkConnection, WALK_KEPT_BYTES } from '../paginate.js';
import { MARKET_ROW } from '../list-rows.js';
import { MAX_LIST_ROWS, pageRows } from '../../http/bounds.js';
import type { Sample } from '../../engine/labels.js';
import { EnumLabels, oneHot } from '../scale.js';
import { MARKET_STATE, TRADING_MODE } from '../../../shared/enums.js';
import { marketFacts, MAX_MARKETS, productOf, type Directory, type MarketFacts } from '../directory.js';
import { defineCollector, type CollectorDeps } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import { Turns } from '../../engine/turns.js';
import type { CollectContext, CollectResult, Collector, Fetcher } from '../../engine/types.js';
import { errorCode } from '../../errors.js';

/** Failures in which the node gave no answer to judge /markets by. */
const NO_ANSWER = new Set(['UPSTREAM_TIMEOUT', 'UPSTREAM_CONNECT', 'UPSTREAM_RATE_LIMITED']);

const N = ['network'] as const;
const MK = 'GET /markets (or /api/v2/markets)';
const metric = metricsOf('markets');

/** The families this collector writes, in exposition order. */
export const M = {
  marketsByState: metric('vega_markets', [...N, 'state'], 'markets')
    .source(`${MK} state`)
    .help('Markets by state; 0 for known states that have none.'),
  marketsByMode: metric('vega_markets_by_trading_mode', [...N, 'trading_mode'], 'markets')
    .source(`${MK} tradingMode`)
    .help('Markets by trading mode; 0 for known modes that have none.'),
  marketsOverLimit: metric('datanode_exporter_markets_over_limit', N, '')
    .source(`${MK} (count versus collectors.markets.max_markets)`)
    .help('Whether there are more markets than max_markets (1), in which case per-market series are not exported.'),
  marketInfo: metric('vega_market_info', [...N, 'market_id', 'code', 'name', 'product', 'settlement_asset', 'quote_name', 'tags'], '')
    .source(`${MK} id, tradableInstrument.instrument.{code,name,metadata.tags}, product`)
    .help(
      'Market identity; value always 1. settlement_asset is the asset id money is settled in (the quote asset for spot, whose quote_name is empty), tags are comma-joined.',
    ),
  marketState: metric('vega_market_state', [...N, 'market_id', 'state'], '')
    .source(`${MK} state`)
    .help('Market state: 1 for the current state, 0 for the other known states.'),
  marketMode: metric('vega_market_trading_mode', [...N, 'market_id', 'trading_mode'], '')
    .source(`${MK} tradingMode`)
    .help('Trading mode: 1 for the current mode, 0 for the other known modes.'),
  marketDecimals: metric('vega_market_decimal_places', [...N, 'market_id'], 'digits')
    .source(`${MK} decimalPlaces`)
    .help('Price decimal places: real price = price / 10^decimal_places.'),
  marketPositionDecimals: metric('vega_market_position_decimal_places', [...N, 'market_id'], 'digits')
    .source(`${MK} positionDecimalPlaces`)
    .help('Position decimal places (may be negative): real size = size / 10^position_decimal_places.'),
  marketFee: metric('vega_market_fee_factor', [...N, 'market_id', 'fee'], 'ratio')
    .source(`${MK} fees.factors.{makerFee,infrastructureFee,liquidityFee,treasuryFee,buyBackFee}`)
    .help(
      'Fee factors as fractions of trade value: fee maker, infrastructure, liquidity, and (since v0.78) treasury and buy_back, which are absent for nodes that do not send them.',
    ),
  marketSlippage: metric('vega_market_slippage_factor', [...N, 'market_id', 'kind'], 'ratio')
    .source(`${MK} linearSlippageFactor, quadraticSlippageFactor`)
    .help('Slippage factors used in margin.'),
  marketLpPriceRange: metric('vega_market_lp_price_range', [...N, 'market_id'], 'ratio')
    .source(`${MK} lpPriceRange (liquiditySlaParams.priceRange when "" or absent, as on current nodes)`)
    .help('Liquidity provision price range.'),
  marketTimestamp: metric('vega_market_timestamp_seconds', [...N, 'market_id', 'event'], 'seconds since epoch')
    .source(`${MK} marketTimestamps.{proposed,pending,open,close}`)
    .help('Market lifecycle times that are set (unset ones are absent).'),
  marketAuctionDuration: metric('vega_market_opening_auction_duration_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} openingAuction.duration`)
    .help('Opening auction duration.'),
  marketAuctionVolume: metric('vega_market_opening_auction_volume', [...N, 'market_id'], 'contracts (raw)')
    .source(`${MK} openingAuction.volume`)
    .help('Minimum opening auction volume, in raw position units.'),
  marketTriggers: metric('vega_market_price_monitoring_triggers', [...N, 'market_id'], 'triggers')
    .source(`${MK} priceMonitoringSettings.parameters.triggers`)
    .help('Number of price-monitoring triggers.'),
  marketTriggerHorizon: metric('vega_market_price_monitoring_trigger_horizon_seconds', [...N, 'market_id', 'trigger'], 'seconds')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].horizon`)
    .help(
      'Per price-monitoring trigger: the horizon the price move is projected over. trigger is the index in the market\'s list ("0" first; the first 16 only).',
    ),
  marketTriggerProbability: metric('vega_market_price_monitoring_trigger_probability', [...N, 'market_id', 'trigger'], 'ratio')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].probability`)
    .help('Per price-monitoring trigger: the probability level its bounds are drawn at (0 to 1). trigger as for the horizon.'),
  marketTriggerExtension: metric('vega_market_price_monitoring_trigger_auction_extension_seconds', [...N, 'market_id', 'trigger'], 'seconds')
    .source(`${MK} priceMonitoringSettings.parameters.triggers[].auctionExtension`)
    .help('Per price-monitoring trigger: how long a price auction it starts lasts (or is extended by). trigger as for the horizon.'),
  marketTargetStakeWindow: metric('vega_market_target_stake_time_window_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} liquidityMonitoringParameters.targetStakeParameters.timeWindow`)
    .help('Target-stake time window.'),
  marketLiquidityTriggeringRatio: metric('vega_market_liquidity_triggering_ratio', [...N, 'market_id'], 'ratio')
    .source(`${MK} liquidityMonitoringParameters.triggeringRatio`)
    .help(
      'Liquidity monitoring\'s triggering ratio: the fraction of the target stake below which supplied stake starts a liquidity auction; absent when unset ("").',
    ),
  marketLiquidityAuctionExtension: metric('vega_market_liquidity_auction_extension_seconds', [...N, 'market_id'], 'seconds')
    .source(`${MK} liquidityMonitoringParameters.auctionExtension`)
    .help("Liquidity monitoring's auction extension: how long a liquidity auction lasts (or is extended by)."),
  marketTargetStakeScaling: metric('vega_market_target_stake_scaling_factor', [...N, 'market_id'], 'ratio')
    .source(`${MK} liquidityMonitoringParameters.targetStakeParameters.scalingFactor`)
    .help('Target-stake scaling factor.'),
  marketRisk: metric('vega_market_risk_parameter', [...N, 'market_id', 'model', 'parameter'], '')
    .source(`${MK} tradableInstrument.{logNormalRiskModel,simpleRiskModel}`)
    .help(
      'Risk-model parameters: model log_normal (tau, risk_aversion, mu, r, sigma) or simple (factor_long, factor_short, max_move_up, min_move_down, probability_of_trading).',
    ),
  marketMarginScaling: metric('vega_market_margin_scaling_factor', [...N, 'market_id', 'level'], 'ratio')
    .source(`${MK} tradableInstrument.marginCalculator.scalingFactors`)
    .help('Margin scaling factors: search, initial, collateral_release.'),
} as const satisfies Record<string, MetricDef>;

type Json = Record<string, unknown>;

/** Per-market samples for one market JSON object. Throws FieldError naming the bad field. */
export function marketSamples(
  target: string,
  m: Json,
  path: string,
  enums: { state: EnumLabels; mode: EnumLabels } = { state: new EnumLabels(MARKET_STATE), mode: new EnumLabels(TRADING_MODE) },
): Sample[] {
  const id = readId(m.id, `${path}.id`);
  const out: Sample[] = [];
  const push = pusher(out, target, id);
  const ti = obj(m.tradableInstrument, `${path}.tradableInstrument`);
  identitySamples(push, m, ti, path, enums);
  feeSamples(push, m, path);
  scheduleSamples(push, m, path);
  monitoringSamples(push, m, path);
  out.push(...riskSamples(target, id, ti, path));
  return out;
}

/** Adds a market's sample when its value is a finite number; absent values make no series. */
type Push = (metric: Sample['metric'], value: number | undefined, ...extra: string[]) => void;

function pusher(out: Sample[], target: string, id: string): Push {
  return (metric, value, ...extra) => {
    if (value !== undefined && Number.isFinite(value)) out.push({ metric, values: [target, id, ...extra], value });
  };
}

/** What the market is: its info labels, state and trading mode, decimals. */
function identitySamples(push: Push, m: Json, ti: Json, path: string, enums: { state: EnumLabels; mode: EnumLabels }): void {
  const instrument = obj(ti.instrument, `${path}.tradableInstrument.instrument`);
  const meta = instrument.metadata as Json | null | undefined;
  const tags = meta && Array.isArray(meta.tags) ? meta.tags.filter((t): t is string => typeof t === 'string') : [];
  const prod = productOf(instrument, `${path}.tradableInstrument.instrument`);
  push(
    M.marketInfo,
    1,
    str(instrument.code, `${path}.tradableInstrument.instrument.code`),
    str(instrument.name, `${path}.tradableInstrument.instrument.name`),
    prod.kind,
    prod.settlementAsset,
    prod.quoteName,
    tags.join(','),
  );

  const state = enumValue(m.state, `${path}.state`);
  const mode = enumValue(m.tradingMode, `${path}.tradingMode`);
  for (const [s, v] of oneHot(MARKET_STATE, state, enums.state)) push(M.marketState, v, s);
  for (const [s, v] of oneHot(TRADING_MODE, mode, enums.mode)) push(M.marketMode, v, s);

  const facts = marketFacts(m, path);
  push(M.marketDecimals, facts.decimalPlaces);
  push(M.marketPositionDecimals, facts.positionDecimalPlaces);
}

/** Fee factors, slippage factors and the liquidity price range. */
function feeSamples(push: Push, m: Json, path: string): void {
  const fees = obj(obj(m.fees, `${path}.fees`).factors, `${path}.fees.factors`);
  push(M.marketFee, decimal(fees.makerFee, `${path}.fees.factors.makerFee`), 'maker');
  push(M.marketFee, decimal(fees.infrastructureFee, `${path}.fees.factors.infrastructureFee`), 'infrastructure');
  push(M.marketFee, decimal(fees.liquidityFee, `${path}.fees.factors.liquidityFee`), 'liquidity');
  // v0.78 and later; an older node does not send them: no series (not 0).
  if (fees.treasuryFee !== undefined) push(M.marketFee, decimal(fees.treasuryFee, `${path}.fees.factors.treasuryFee`), 'treasury');
  if (fees.buyBackFee !== undefined) push(M.marketFee, decimal(fees.buyBackFee, `${path}.fees.factors.buyBackFee`), 'buy_back');
  if (m.linearSlippageFactor !== undefined) push(M.marketSlippage, decimal(m.linearSlippageFactor, `${path}.linearSlippageFactor`), 'linear');
  if (m.quadraticSlippageFactor !== undefined) push(M.marketSlippage, decimal(m.quadraticSlippageFactor, `${path}.quadraticSlippageFactor`), 'quadratic');
  const sla = m.liquiditySlaParams as Json | null | undefined;
  // Current nodes send lpPriceRange "" (unset): the range lives in liquiditySlaParams.priceRange.
  const lp = m.lpPriceRange === undefined ? undefined : decimal(m.lpPriceRange, `${path}.lpPriceRange`);
  push(M.marketLpPriceRange, lp ?? (sla ? decimal(sla.priceRange, `${path}.liquiditySlaParams.priceRange`) : undefined));
}

/** The market's lifecycle timestamps and its opening auction. */
function scheduleSamples(push: Push, m: Json, path: string): void {
  const ts = obj(m.marketTimestamps, `${path}.marketTimestamps`);
  for (const ev of ['proposed', 'pending', 'open', 'close'] as const) {
    if (ts[ev] !== undefined) push(M.marketTimestamp, unixNsSeconds(ts[ev], `${path}.marketTimestamps.${ev}`), ev);
  }
  const oa = m.openingAuction as Json | null | undefined;
  if (oa) {
    push(M.marketAuctionDuration, Number(i64(oa.duration, `${path}.openingAuction.duration`)));
    push(M.marketAuctionVolume, Number(u64(oa.volume, `${path}.openingAuction.volume`)));
  }
}

/** Price-monitoring triggers and liquidity-monitoring parameters. */
function monitoringSamples(push: Push, m: Json, path: string): void {
  const pms = m.priceMonitoringSettings as Json | null | undefined;
  const params = pms?.parameters as Json | null | undefined;
  const triggers = params ? arr(params.triggers ?? [], `${path}.priceMonitoringSettings.parameters.triggers`) : [];
  push(M.marketTriggers, triggers.length);
  // Each trigger by its index: the list is the market's, so the label is bounded by MAX_TRIGGERS.
  triggers.slice(0, MAX_TRIGGERS).forEach((raw, i) => {
    const p = `${path}.priceMonitoringSettings.parameters.triggers[${i}]`;
    const t = obj(raw, p);
    push(M.marketTriggerHorizon, Number(i64(t.horizon, `${p}.horizon`)), String(i));
    push(M.marketTriggerProbability, decimal(t.probability, `${p}.probability`), String(i));
    push(M.marketTriggerExtension, Number(i64(t.auctionExtension, `${p}.auctionExtension`)), String(i));
  });

  const lmp = m.liquidityMonitoringParameters as Json | null | undefined;
  const tsp = lmp?.targetStakeParameters as Json | null | undefined;
  if (lmp) {
    const p = `${path}.liquidityMonitoringParameters`;
    if (lmp.triggeringRatio !== undefined) push(M.marketLiquidityTriggeringRatio, ratio(lmp.triggeringRatio, `${p}.triggeringRatio`));
    if (lmp.auctionExtension !== undefined) push(M.marketLiquidityAuctionExtension, Number(i64(lmp.auctionExtension, `${p}.auctionExtension`)));
  }
  if (tsp) {
    push(M.marketTargetStakeWindow, Number(i64(tsp.timeWindow, `${path}.liquidityMonitoringParameters.targetStakeParameters.timeWindow`)));
    push(M.marketTargetStakeScaling, num(tsp.scalingFactor, `${path}.liquidityMonitoringParameters.targetStakeParameters.scalingFactor`));
  }
}

/** Risk-model parameters and margin scaling factors of one market. */
function riskSamples(target: string, id: string, ti: Json, path: string): Sample[] {
  const out: Sample[] = [];
  const push = pusher(out, target, id);
  const ln = ti.logNormalRiskModel as Json | null | undefined;
  const simple = ti.simpleRiskModel as Json | null | undefined;
  if (ln) {
    const p = `${path}.tradableInstrument.logNormalRiskModel`;
    const lp = obj(ln.params, `${p}.params`);
    push(M.marketRisk, num(ln.tau, `${p}.tau`), 'log_normal', 'tau');
    push(M.marketRisk, num(ln.riskAversionParameter, `${p}.riskAversionParameter`), 'log_normal', 'risk_aversion');
    push(M.marketRisk, num(lp.mu, `${p}.params.mu`), 'log_normal', 'mu');
    push(M.marketRisk, num(lp.r, `${p}.params.r`), 'log_normal', 'r');
    push(M.marketRisk, num(lp.sigma, `${p}.params.sigma`), 'log_normal', 'sigma');
  } else if (simple) {
    const p = `${path}.tradableInstrument.simpleRiskModel.params`;
    const sp = obj(simple.params, p);
    for (const [k, label] of [
      ['factorLong', 'factor_long'],
      ['factorShort', 'factor_short'],
      ['maxMoveUp', 'max_move_up'],
      ['minMoveDown', 'min_move_down'],
      ['probabilityOfTrading', 'probability_of_trading'],
    ] as const) {
      push(M.marketRisk, num(sp[k], `${p}.${k}`), 'simple', label);
    }
  }
  const mc = ti.marginCalculator as Json | null | undefined;
  const sf = mc?.scalingFactors as Json | null | undefined;
  if (sf) {
    const p = `${path}.tradableInstrument.marginCalculator.scalingFactors`;
    push(M.marketMarginScaling, num(sf.searchLevel, `${p}.searchLevel`), 'search');
    push(M.marketMarginScaling, num(sf.initialMargin, `${p}.initialMargin`), 'initial');
    push(M.marketMarginScaling, num(sf.collateralRelease, `${p}.collateralRelease`), 'collateral_release');
  }
  return out;
}

/** A proto double; "NaN"/"Infinity" come back non-finite and push() leaves that series out. */
const num = double;

/** A decimal string ("" is unset), or a JSON number (the field was a double in older releases). */
function ratio(v: unknown, field: string): number | undefined {
  return typeof v === 'number' ? v : decimal(v, field);
}

/** Per-trigger series are exported for this many triggers of a market at most (real markets have a few). */
export const MAX_TRIGGERS = 16;

/**
 * All samples of one poll: counts, the guard flag, and per-market series for the allowed markets.
 * A market whose id, state, mode or decimals are bad is skipped everywhere; one with another bad
 * field still counts, but its per-market series are skipped. Skips are recorded in `skips`.
 */
export async function marketsSamples(target: string, markets: readonly unknown[], opts: MarketOptions, skips = new RowSkips()): Promise<Sample[]> {
  const tally = new MarketTally(opts, skips);
  await tally.add(markets, (i) => `markets[${i}]`);
  return tally.samples(target);
}

interface ValidMarket {
  m: Json;
  path: string;
  state: string;
  mode: string;
  facts: MarketFacts;
}

/**
 * One poll's markets, taken a page at a time as they arrive: counts by state and mode, each
 * market's scaling facts, and the allowed markets' rows only while they are within the guard, so
 * what a poll holds is bounded by the guard, not by what the node sends.
 */
export class MarketTally {
  readonly facts: MarketFacts[] = [];
  private readonly seen = new Set<string>();
  private readonly byState = new Map<string, number>(MARKET_STATE.map((s) => [s, 0]));
  private readonly byMode = new Map<string, number>(TRADING_MODE.map((s) => [s, 0]));
  // Unknown states and modes: a few by name, then `other` (a node cannot mint a series per market).
  private readonly enums = { state: new EnumLabels(MARKET_STATE), mode: new EnumLabels(TRADING_MODE) };
  private readonly allow: Set<string>;
  private kept: ValidMarket[] = [];
  /** The ids held until the poll ends (a walk's budget), and the rows kept (max_markets rows of a market's size). */
  private readonly held: KeptBytes;
  private selected = 0;
  private rows = 0;
  /** A thousand markets take a fifth of a second: the event loop turns between them (engine/turns.ts). */
  private readonly turns = new Turns();

  constructor(
    private readonly opts: MarketOptions,
    private readonly skips: RowSkips,
  ) {
    this.allow = new Set(opts.allow);
    this.held = new KeptBytes('markets', WALK_KEPT_BYTES + opts.maxMarkets * MARKET_ROW.bytes);
  }

  /** Take one page; false once the walk should stop. */
  async add(page: readonly unknown[], path: (i: number) => string): Promise<boolean> {
    this.rows += page.length;
    for (const [i, raw] of page.entries()) {
      await this.turns.next();
      const v = this.skips.row(() => validMarket(raw, path(i)));
      if (!v || this.seen.has(v.facts.id)) continue; // a market listed twice counts once
      this.seen.add(v.facts.id);
      this.facts.push(v.facts);
      this.held.keep(v.facts.id, v.facts.settlementAsset);
      this.count(this.byState, this.enums.state.label(v.state));
      this.count(this.byMode, this.enums.mode.label(v.mode));
      if (this.allow.size > 0 && !this.allow.has(v.facts.id) && !this.allow.has(codeOf(v.m))) continue;
      this.selected++;
      // Beyond the guard no per-market series is exported: the rows need not be held.
      if (this.opts.countsOnly || this.over()) this.kept = [];
      else {
        this.held.keepRow(v.m);
        this.kept.push(v);
      }
    }
    // Further pages only add to the counts; no network lists more than MAX_MARKETS.
    return this.rows <= MAX_MARKETS;
  }

  async samples(target: string): Promise<Sample[]> {
    const out: Sample[] = [];
    for (const [s, n] of this.byState) out.push({ metric: M.marketsByState, values: [target, s], value: n });
    for (const [t, n] of this.byMode) out.push({ metric: M.marketsByMode, values: [target, t], value: n });
    out.push({ metric: M.marketsOverLimit, values: [target], value: this.over() ? 1 : 0 });
    for (const { m, path } of this.kept) {
      await this.turns.next();
      for (const sample of this.skips.row(() => marketSamples(target, m, path, this.enums)) ?? []) out.push(sample);
    }
    return out;
  }

  private over(): boolean {
    return this.selected > this.opts.maxMarkets;
  }

  private count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }
}

/** A market whose identity, state, mode and decimals parse; a FieldError otherwise. */
function validMarket(raw: unknown, path: string): ValidMarket {
  const m = obj(raw, path);
  return { m, path, state: enumValue(m.state, `${path}.state`), mode: enumValue(m.tradingMode, `${path}.tradingMode`), facts: marketFacts(m, path) };
}

function codeOf(m: Json): string {
  const ti = m.tradableInstrument as Json | undefined;
  const ins = ti?.instrument as Json | undefined;
  return typeof ins?.code === 'string' ? ins.code : '';
}

/** Markets asked for a page (MARKET_ROW: a market is a large row, and a page blocks the exporter while it is parsed). */
export const MARKETS_PAGE = pageRows(MARKET_ROW, MAX_LIST_ROWS);

export class MarketsCollector implements Collector {
  /**
   * Per client, that is per target (a structural reload makes new clients and a new collector):
   * whether its GET /markets answered a valid 200 (true: it is asked again) or answered anything
   * else (false: /api/v2/markets from then on); until it answers, it is asked at each poll. A real
   * data node answers 404 there; an unpaginated list is the largest answer there is, so it is not
   * asked again of a node that did not serve it.
   */
  private readonly legacyMarkets = new WeakMap<Fetcher, boolean>();

  constructor(
    private readonly opts: MarketOptions,
    private readonly directory: Directory,
  ) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const skips = new RowSkips();
    const tally = new MarketTally(this.opts, skips);
    let pages: number | undefined;
    let truncated;
    if (this.legacyMarkets.get(ctx.client) !== false) {
      let markets: unknown[];
      try {
        const res = await ctx.client.get('/markets', [], 'markets', ctx.signal);
        markets = arr(obj(res.json, 'body').markets, 'markets');
      } catch (err) {
        // No answer (a timeout, a refused connection, a back-off): asked again at the next poll.
        if (ctx.signal.aborted || NO_ANSWER.has(errorCode(err))) throw err;
        this.legacyMarkets.set(ctx.client, false);
        return this.collect(ctx);
      }
      this.legacyMarkets.set(ctx.client, true);
      await tally.add(markets, (i) => `markets[${i}]`);
    } else {
      // Each page is taken as it arrives and then dropped; a market repeated across pages counts once.
      // Pages of MARKETS_PAGE at most (walkConnection asks no endpoint for more than its bound allows).
      const r = await walkConnection(ctx, { path: '/api/v2/markets', key: 'markets', endpoint: 'markets', row: MARKET_ROW }, (nodes) =>
        tally.add(nodes, (i) => `markets[${i}]`),
      );
      pages = r.pages;
      truncated = r.truncated;
    }
    const samples = await tally.samples(ctx.target);
    this.directory.setMarkets(tally.facts);
    return { samples, skipped: skips.list, ...(pages !== undefined ? { pages, truncated } : {}) };
  }
}

export default defineCollector({
  name: 'markets',
  scope: 'network',
  title: 'markets collector (`GET /markets`, falling back to `GET /api/v2/markets`; every 60 s by default)',
  families: M,
  endpoints: { markets: MARKET_ROW },
  config: marketGuardConfig('60s'),
  // Dozens of series a market, up to max_markets: a larger part of the network's limit than the others.
  seriesWeight: 4,
  create: (c, { shared: directory }: CollectorDeps<Directory>) =>
    new MarketsCollector({ maxMarkets: c.max_markets, allow: c.allow, countsOnly: c.counts_only }, directory),
});
