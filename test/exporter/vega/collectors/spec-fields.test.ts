/**
 * Fields of the specification: price-monitoring triggers one by one, liquidity monitoring's
 * triggering ratio and auction extension, the v0.78 fee factors, the v0.79 position fees and
 * funding, the pegged order's offset and an order's reason. Hand-written answers in, the samples
 * compared with values worked out by hand; a field an older node does not send gives no series.
 */
import { describe, expect, it } from 'vitest';
import { marketSamples, MAX_TRIGGERS } from '../../../../src/exporter/vega/collectors/markets.js';
import { orderSamples } from '../../../../src/exporter/vega/collectors/orders.js';
import { parsePosition, positionSamples } from '../../../../src/exporter/vega/collectors/positions.js';
import type { Sample } from '../../../../src/exporter/engine/labels.js';
import { thrown } from '../../../helpers/thrown.js';
import { orderBody } from '../../../helpers/orders.js';

const MARKET_ID = 'mkt-1';
const byName = (samples: Sample[], name: string): [string[], number][] =>
  samples.filter((s) => s.metric.name === name).map((s) => [s.values.slice(2), s.value]);

function market(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: MARKET_ID,
    decimalPlaces: '2',
    positionDecimalPlaces: '0',
    state: 'STATE_ACTIVE',
    tradingMode: 'TRADING_MODE_CONTINUOUS',
    tradableInstrument: { instrument: { id: '', code: 'A', name: 'A', metadata: { tags: [] }, future: { settlementAsset: 'asset-1', quoteName: 'USD' } } },
    fees: { factors: { makerFee: '0.0002', infrastructureFee: '0.0005', liquidityFee: '0.001' } },
    marketTimestamps: { proposed: '0', pending: '0', open: '0', close: '0' },
    ...over,
  };
}

describe('markets: fields of the specification', () => {
  it('price-monitoring triggers one by one: horizon, probability, auction extension by index', () => {
    const triggers = [
      { horizon: '43200', probability: '0.9999999', auctionExtension: '600' },
      { horizon: '300', probability: '0.9999', auctionExtension: '60' },
      { horizon: '300', probability: '0.99', auctionExtension: '30' }, // a second trigger with the same horizon keeps its own index
    ];
    const s = marketSamples('net', market({ priceMonitoringSettings: { parameters: { triggers } } }), 'markets[0]');
    expect(byName(s, 'vega_market_price_monitoring_triggers')).toEqual([[[], 3]]);
    expect(byName(s, 'vega_market_price_monitoring_trigger_horizon_seconds')).toEqual([
      [['0'], 43200],
      [['1'], 300],
      [['2'], 300],
    ]);
    expect(byName(s, 'vega_market_price_monitoring_trigger_probability')).toEqual([
      [['0'], 0.9999999],
      [['1'], 0.9999],
      [['2'], 0.99],
    ]);
    expect(byName(s, 'vega_market_price_monitoring_trigger_auction_extension_seconds')).toEqual([
      [['0'], 600],
      [['1'], 60],
      [['2'], 30],
    ]);
  });

  it('at most MAX_TRIGGERS triggers get series of their own; the count says how many there are', () => {
    const triggers = Array.from({ length: 40 }, (_, i) => ({ horizon: String(60 * (i + 1)), probability: '0.9', auctionExtension: '1' }));
    const s = marketSamples('net', market({ priceMonitoringSettings: { parameters: { triggers } } }), 'markets[0]');
    expect(MAX_TRIGGERS).toBe(16);
    expect(byName(s, 'vega_market_price_monitoring_triggers')).toEqual([[[], 40]]);
    expect(byName(s, 'vega_market_price_monitoring_trigger_horizon_seconds').map(([l]) => l[0])).toEqual(Array.from({ length: 16 }, (_, i) => String(i)));
  });

  it("a trigger with a bad field skips the market's series, naming the field", () => {
    const e = thrown(() =>
      marketSamples(
        'net',
        market({ priceMonitoringSettings: { parameters: { triggers: [{ horizon: 'soon', probability: '0.9', auctionExtension: '1' }] } } }),
        'markets[0]',
      ),
    );
    expect(e).toMatchObject({ field: 'markets[0].priceMonitoringSettings.parameters.triggers[0].horizon', reason: 'bad_field' });
  });

  it('liquidity monitoring: triggering ratio and auction extension; unset ratio ("") absent', () => {
    const lmp = { targetStakeParameters: { timeWindow: '3600', scalingFactor: 10 }, triggeringRatio: '0.7', auctionExtension: '1' };
    const s = marketSamples('net', market({ liquidityMonitoringParameters: lmp }), 'markets[0]');
    expect(byName(s, 'vega_market_liquidity_triggering_ratio')).toEqual([[[], 0.7]]);
    expect(byName(s, 'vega_market_liquidity_auction_extension_seconds')).toEqual([[[], 1]]);
    const unset = marketSamples('net', market({ liquidityMonitoringParameters: { ...lmp, triggeringRatio: '' } }), 'markets[0]');
    expect(byName(unset, 'vega_market_liquidity_triggering_ratio')).toEqual([]);
    const number = marketSamples('net', market({ liquidityMonitoringParameters: { ...lmp, triggeringRatio: 0.25 } }), 'markets[0]'); // a double, as older releases sent it
    expect(byName(number, 'vega_market_liquidity_triggering_ratio')).toEqual([[[], 0.25]]);
  });

  it("fee factors treasury and buy_back (v0.78) when sent; an older node's market has no such series, not 0", () => {
    const factors = { makerFee: '0.0002', infrastructureFee: '0.0005', liquidityFee: '0.001', treasuryFee: '0.00015', buyBackFee: '0' };
    const s = marketSamples('net', market({ fees: { factors } }), 'markets[0]');
    expect(byName(s, 'vega_market_fee_factor')).toEqual([
      [['maker'], 0.0002],
      [['infrastructure'], 0.0005],
      [['liquidity'], 0.001],
      [['treasury'], 0.00015],
      [['buy_back'], 0],
    ]);
    const old = marketSamples('net', market(), 'markets[0]');
    expect(byName(old, 'vega_market_fee_factor').map(([l]) => l[0])).toEqual(['maker', 'infrastructure', 'liquidity']);
  });
});

describe('positions: v0.79 fees and funding', () => {
  const base = {
    marketId: MARKET_ID,
    partyId: 'party-1',
    openVolume: '10',
    realisedPnl: '0',
    unrealisedPnl: '0',
    averageEntryPrice: '100',
    lossSocialisationAmount: '0',
    positionStatus: 'POSITION_STATUS_UNSPECIFIED',
    updatedAt: '0',
  };
  const facts = { id: MARKET_ID, decimalPlaces: 2, positionDecimalPlaces: 0, settlementAsset: 'asset-1' };

  it('in whole asset units, exact: fees unsigned, funding signed, beyond 2^64', () => {
    const p = parsePosition(
      {
        ...base,
        takerFeesPaid: '123456789',
        makerFeesReceived: '5',
        feesPaid: '250000000000000000000000', // 2.5e23: beyond 2^64
        takerFeesPaidSince: '1000',
        makerFeesReceivedSince: '0',
        feesPaidSince: '7',
        fundingPaymentAmount: '-4200',
        fundingPaymentAmountSince: '31',
      },
      'positions.edges[0].node',
    );
    const s = positionSamples('net', p, facts, 3); // an asset with 3 decimals
    const v = (name: string) => byName(s, name).map(([l, x]) => [l[1], l[2], x]); // labels after market_id: party_id, asset, period
    expect(v('vega_position_taker_fees_paid')).toEqual([
      ['asset-1', 'all', 123456.789],
      ['asset-1', 'since_open', 1],
    ]);
    expect(v('vega_position_maker_fees_received')).toEqual([
      ['asset-1', 'all', 0.005],
      ['asset-1', 'since_open', 0],
    ]);
    expect(v('vega_position_other_fees_paid')).toEqual([
      ['asset-1', 'all', 250000000000000000000],
      ['asset-1', 'since_open', 0.007],
    ]);
    expect(v('vega_position_funding_payments')).toEqual([
      ['asset-1', 'all', -4.2],
      ['asset-1', 'since_open', 0.031],
    ]);
  });

  it('a node before v0.79 does not send them: no series; "" is unset; asset decimals unknown: none', () => {
    const names = ['vega_position_taker_fees_paid', 'vega_position_maker_fees_received', 'vega_position_other_fees_paid', 'vega_position_funding_payments'];
    const old = positionSamples('net', parsePosition(base, 'p'), facts, 3);
    for (const n of names) expect(byName(old, n)).toEqual([]);
    const unset = positionSamples('net', parsePosition({ ...base, takerFeesPaid: '', fundingPaymentAmount: '' }, 'p'), facts, 3);
    for (const n of names) expect(byName(unset, n)).toEqual([]);
    const noDecimals = positionSamples('net', parsePosition({ ...base, takerFeesPaid: '5' }, 'p'), facts, undefined);
    expect(byName(noDecimals, 'vega_position_taker_fees_paid')).toEqual([]);
  });

  it('a negative fee is a bad field (fees are unsigned); a signed funding amount is not', () => {
    expect(thrown(() => parsePosition({ ...base, feesPaid: '-1' }, 'p'))).toMatchObject({ field: 'p.feesPaid', reason: 'bad_field' });
    expect(parsePosition({ ...base, fundingPaymentAmountSince: '-1' }, 'p').money.fundingPaymentAmountSince).toBe('-1');
  });
});

describe("orders: the pegged order's offset and the reason", () => {
  const order = (over: Record<string, unknown>) => orderBody({ marketId: MARKET_ID, side: 'SIDE_SELL', ...over });

  const facts = { id: MARKET_ID, decimalPlaces: 3, positionDecimalPlaces: 0, settlementAsset: 'asset-1' };

  it("the offset in the market's price units, labelled with its reference; none for other orders", () => {
    const s = orderSamples('net', order({ peggedOrder: { reference: 'PEGGED_REFERENCE_BEST_ASK', offset: '1250' } }), 1, facts);
    expect(byName(s, 'vega_order_pegged_offset')).toEqual([[['PEGGED_REFERENCE_BEST_ASK'], 1.25]]);
    expect(byName(orderSamples('net', order({}), 1, facts), 'vega_order_pegged_offset')).toEqual([]);
    expect(
      byName(orderSamples('net', order({ peggedOrder: { reference: 'PEGGED_REFERENCE_MID', offset: '1' } }), 1, undefined), 'vega_order_pegged_offset'),
    ).toEqual([]); // decimals unknown
  });

  it('the reason while set; ORDER_ERROR_UNSPECIFIED or absent is no series', () => {
    const s = orderSamples('net', order({ status: 'STATUS_REJECTED', reason: 'ORDER_ERROR_MARGIN_CHECK_FAILED' }), 1, facts);
    expect(byName(s, 'vega_order_reason_info')).toEqual([[['ORDER_ERROR_MARGIN_CHECK_FAILED'], 1]]);
    expect(byName(orderSamples('net', order({ reason: 'ORDER_ERROR_UNSPECIFIED' }), 1, facts), 'vega_order_reason_info')).toEqual([]);
    expect(byName(orderSamples('net', order({}), 1, facts), 'vega_order_reason_info')).toEqual([]);
  });
});
