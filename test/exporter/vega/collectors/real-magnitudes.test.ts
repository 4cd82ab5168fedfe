/**
 * Regression tests for four defects: values real networks send every day that used
 * to fail a whole collector (or lose a series). Each builds the exact published shape.
 */
import { describe, expect, it } from 'vitest';
import { parsePosition, positionSamples } from '../../../../src/exporter/vega/collectors/positions.js';
import { orderSamples } from '../../../../src/exporter/vega/collectors/orders.js';
import { marketsSamples } from '../../../../src/exporter/vega/collectors/markets.js';
import type { Sample } from '../../../../src/exporter/engine/labels.js';
import { orderBody } from '../../../helpers/orders.js';

const H = (c: string): string => c.repeat(64);
const val = (samples: readonly Sample[], name: string, ...labels: string[]): number | undefined =>
  samples.find((s) => s.metric.name === name && labels.every((l) => s.values.includes(l)))?.value;
const MARKET = { id: H('a'), decimalPlaces: 5, positionDecimalPlaces: -2, settlementAsset: H('e') };

function market(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: H('a'),
    tradableInstrument: {
      instrument: { id: '', code: 'ETH/USDT', name: 'ETH', metadata: { tags: [] }, future: { settlementAsset: H('e'), quoteName: 'USDT' } },
      marginCalculator: { scalingFactors: { searchLevel: 1.1, initialMargin: 1.2, collateralRelease: 1.4 } },
      logNormalRiskModel: { riskAversionParameter: 0.01, tau: 'NaN', params: { mu: 0, r: 0.016, sigma: 'Infinity' } },
    },
    decimalPlaces: '5',
    positionDecimalPlaces: '-2',
    fees: { factors: { makerFee: '0.0002', infrastructureFee: '0.0005', liquidityFee: '0.001' } },
    state: 'STATE_ACTIVE',
    tradingMode: 'TRADING_MODE_CONTINUOUS',
    marketTimestamps: { proposed: '1700000000000000000', pending: '0', open: '0', close: '0' },
    lpPriceRange: '',
    liquiditySlaParams: { priceRange: '0.05', commitmentMinTimeFraction: '0.5', performanceHysteresisEpochs: '1', slaCompetitionFactor: '0.8' },
    ...extra,
  };
}

describe('values real networks send', () => {
  it('a PnL of 10 whole units of an 18-decimal asset ("10000000000000000000") is exported, not a failure', () => {
    const row = {
      marketId: H('a'),
      partyId: H('b'),
      openVolume: '5',
      realisedPnl: '10000000000000000000',
      unrealisedPnl: '-123456789123456789012345678',
      averageEntryPrice: '123456789012345678901234',
      lossSocialisationAmount: '0',
      positionStatus: 'POSITION_STATUS_UNSPECIFIED',
      updatedAt: '0',
    };
    const s = positionSamples('net', parsePosition(row, 'positions.edges[0].node'), MARKET, 18);
    expect(val(s, 'vega_position_realised_pnl')).toBe(10);
    expect(val(s, 'vega_position_unrealised_pnl')).toBe(-123456789.12345679);
    expect(val(s, 'vega_position_average_entry_price')).toBe(1234567890123456800);
  });

  it('an order price above 2^64 (uint256) is exported, scaled exactly', () => {
    const { order } = orderBody({
      id: H('c'),
      marketId: H('a'),
      partyId: H('b'),
      side: 'SIDE_SELL',
      price: '123456789012345678901234',
      size: '10',
      remaining: '10',
    });

    const s = orderSamples('net', { order }, 1, MARKET);
    expect(val(s, 'vega_order_price')).toBe(1234567890123456800);
  });

  it('a risk parameter sent as "NaN"/"Infinity" makes that series absent; the market and its other series stay', async () => {
    const s = await marketsSamples('net', [market()], { maxMarkets: 10, allow: [], countsOnly: false });
    expect(val(s, 'vega_market_info')).toBe(1);
    expect(val(s, 'vega_market_risk_parameter', 'tau')).toBeUndefined();
    expect(val(s, 'vega_market_risk_parameter', 'sigma')).toBeUndefined();
    expect(val(s, 'vega_market_risk_parameter', 'r')).toBe(0.016);
  });

  it('lpPriceRange "" falls back to liquiditySlaParams.priceRange', async () => {
    const s = await marketsSamples('net', [market({ tradableInstrument: { ...(market().tradableInstrument as object), logNormalRiskModel: null } })], {
      maxMarkets: 10,
      allow: [],
      countsOnly: false,
    });
    expect(val(s, 'vega_market_lp_price_range')).toBe(0.05);
  });
});
