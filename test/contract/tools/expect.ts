/**
 * The hand-written expectations' writer, shared by build-expected.ts and build-recorded-expected.ts: each
 * sample's exact value (a BigInt rational) is rounded once to float64 by exact.ts. No exporter code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ENUMS } from '../descriptor.js';
import { float64String, nsToSeconds, parseDecimal, rat, scaleDown, toExactDecimal, toFloat64, type Rat } from '../exact.js';

const dir = new URL('../fixtures/', import.meta.url);
export const load = (f: string): any => JSON.parse(readFileSync(new URL(f, dir), 'utf8'));

export type Labels = Record<string, string>;
export interface Sample {
  name: string;
  labels: Labels;
  value: string;
  exact: string;
}
export interface Absent {
  name: string;
  labels?: Labels;
  why: string;
}
export interface Ambiguous {
  name: string;
  labels?: Labels;
  value?: string;
  reading: string;
}

export class Expect {
  samples: Sample[] = [];
  absent: Absent[] = [];
  ambiguous: Ambiguous[] = [];
  forbiddenStrings: string[] = [];
  add(name: string, labels: Labels, v: Rat): void {
    this.samples.push({ name, labels, value: float64String(toFloat64(v)), exact: toExactDecimal(v) });
  }
  int(name: string, labels: Labels, s: string | number): void {
    this.add(name, labels, rat(BigInt(s)));
  }
  /** a JSON double given as its decimal text (no exponent), or a JSON number */
  dbl(name: string, labels: Labels, text: string): void {
    this.add(name, labels, parseDecimal(text));
  }
  /** one 1 and a 0 per other known value (state-set pattern of docs/metrics.md) */
  stateSet(name: string, labels: Labels, key: string, known: readonly string[], current: string): void {
    for (const k of known) this.int(name, { ...labels, [key]: k }, k === current ? 1 : 0);
  }
  none(name: string, why: string, labels?: Labels): void {
    this.absent.push(labels ? { name, labels, why } : { name, why });
  }
  write(file: string, meta: Record<string, unknown>): void {
    const out = {
      ...meta,
      comparison:
        'For every entry of samples: exactly one sample with this name and exactly these labels (label ' +
        'value "" = label absent) whose value v satisfies Object.is(v, Number(value)). For every entry of absent: ' +
        'no sample with this name whose labels include the given ones. No output line may contain a forbiddenStrings ' +
        'entry. ambiguous entries record the reading chosen where docs/metrics.md leaves room (see README.md); ' +
        'treat them as soft.',
      samples: this.samples,
      absent: this.absent,
      ambiguous: this.ambiguous,
      forbiddenStrings: this.forbiddenStrings,
    };
    writeFileSync(new URL(file, dir), JSON.stringify(out, null, 2) + '\n');
  }
}

/** The samples docs/metrics.md gives the markets collector for these Market messages (one network). */
export function marketSamples(e: Expect, nodes: any[], network: string): void {
  const n = { network };
  const countBy = (key: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const x of nodes) m.set(x[key], (m.get(x[key]) ?? 0) + 1);
    return m;
  };
  const st = countBy('state');
  for (const s of ENUMS.MarketState) e.int('vega_markets', { ...n, state: s }, st.get(s) ?? 0);
  const tm = countBy('tradingMode');
  for (const s of ENUMS.MarketTradingMode) e.int('vega_markets_by_trading_mode', { ...n, trading_mode: s }, tm.get(s) ?? 0);
  e.int('datanode_exporter_markets_over_limit', n, 0);

  for (const m of nodes) {
    const l = { ...n, market_id: m.id };
    const ins = m.tradableInstrument.instrument;
    const product = ins.future ? 'future' : ins.perpetual ? 'perpetual' : 'spot';
    const settlement = ins.future?.settlementAsset ?? ins.perpetual?.settlementAsset ?? ins.spot.quoteAsset;
    const quoteName = ins.future?.quoteName ?? ins.perpetual?.quoteName ?? '';
    e.int(
      'vega_market_info',
      {
        ...l,
        code: ins.code,
        name: ins.name,
        product,
        settlement_asset: settlement,
        quote_name: quoteName,
        tags: (ins.metadata?.tags ?? []).join(','),
      },
      1,
    );
    e.stateSet('vega_market_state', l, 'state', ENUMS.MarketState, m.state);
    e.stateSet('vega_market_trading_mode', l, 'trading_mode', ENUMS.MarketTradingMode, m.tradingMode);
    e.int('vega_market_decimal_places', l, m.decimalPlaces);
    e.int('vega_market_position_decimal_places', l, m.positionDecimalPlaces);
    e.dbl('vega_market_fee_factor', { ...l, fee: 'maker' }, m.fees.factors.makerFee);
    e.dbl('vega_market_fee_factor', { ...l, fee: 'infrastructure' }, m.fees.factors.infrastructureFee);
    e.dbl('vega_market_fee_factor', { ...l, fee: 'liquidity' }, m.fees.factors.liquidityFee);
    e.dbl('vega_market_slippage_factor', { ...l, kind: 'linear' }, m.linearSlippageFactor);
    e.dbl('vega_market_slippage_factor', { ...l, kind: 'quadratic' }, m.quadraticSlippageFactor);
    const range = m.lpPriceRange !== '' ? m.lpPriceRange : (m.liquiditySlaParams?.priceRange ?? '');
    if (range !== '') e.dbl('vega_market_lp_price_range', l, range);
    else e.none('vega_market_lp_price_range', 'lpPriceRange "" and liquiditySlaParams null', l);
    for (const ev of ['proposed', 'pending', 'open', 'close'] as const) {
      const v = m.marketTimestamps[ev];
      if (v !== '0') e.add('vega_market_timestamp_seconds', { ...l, event: ev }, nsToSeconds(v));
      else e.none('vega_market_timestamp_seconds', `marketTimestamps.${ev} is "0" (unset)`, { ...l, event: ev });
    }
    e.int('vega_market_opening_auction_duration_seconds', l, m.openingAuction.duration);
    e.int('vega_market_opening_auction_volume', l, m.openingAuction.volume);
    e.int('vega_market_price_monitoring_triggers', l, m.priceMonitoringSettings.parameters.triggers.length);
    e.int('vega_market_target_stake_time_window_seconds', l, m.liquidityMonitoringParameters.targetStakeParameters.timeWindow);
    const dbl = (name: string, labels: Labels, v: unknown): void => {
      if (typeof v === 'number') e.add(name, labels, parseDecimal(numberText(v)));
      else e.none(name, `double is ${JSON.stringify(v)} (non-finite)`, labels);
    };
    dbl('vega_market_target_stake_scaling_factor', l, m.liquidityMonitoringParameters.targetStakeParameters.scalingFactor);
    const ti = m.tradableInstrument;
    if (ti.logNormalRiskModel) {
      const r = ti.logNormalRiskModel;
      const rl = { ...l, model: 'log_normal' };
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'tau' }, r.tau);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'risk_aversion' }, r.riskAversionParameter);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'mu' }, r.params.mu);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'r' }, r.params.r);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'sigma' }, r.params.sigma);
    }
    if (ti.simpleRiskModel) {
      const p = ti.simpleRiskModel.params;
      const rl = { ...l, model: 'simple' };
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'factor_long' }, p.factorLong);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'factor_short' }, p.factorShort);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'max_move_up' }, p.maxMoveUp);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'min_move_down' }, p.minMoveDown);
      dbl('vega_market_risk_parameter', { ...rl, parameter: 'probability_of_trading' }, p.probabilityOfTrading);
    }
    const sf = ti.marginCalculator.scalingFactors;
    dbl('vega_market_margin_scaling_factor', { ...l, level: 'search' }, sf.searchLevel);
    dbl('vega_market_margin_scaling_factor', { ...l, level: 'initial' }, sf.initialMargin);
    dbl('vega_market_margin_scaling_factor', { ...l, level: 'collateral_release' }, sf.collateralRelease);
  }
}

/**
 * A JSON double is the float64 nearest to its text. JSON.parse has already done that rounding, and
 * the shortest round-trip text of that float64 denotes the same float64, so parsing it back as an exact
 * decimal and rounding once is the identity: value = the double as sent.
 */
function numberText(v: number): string {
  const s = String(v);
  if (!/e/i.test(s)) return s;
  const [mant, exp] = s.split(/e/i) as [string, string];
  const r = scaleDown(mant, -Number(exp));
  return toExactDecimal(r);
}
