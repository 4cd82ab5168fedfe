/**
 * Enum-valued labels take the known values, 8 unknown ones by name, then `other`: per poll, so a
 * state a node sends now is named once the junk that filled the buckets is gone, without a restart.
 * Against a hostile node of the test's own, through the whole exporter.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scrape } from '../helpers/expo.js';
import { hex64, hostileNode, json, market } from '../helpers/hostile.js';
import { lifecycle } from '../helpers/lifecycle.js';

const life = lifecycle();
const DATA = JSON.parse(readFileSync(new URL('../contract/fixtures/markets-data.json', import.meta.url), 'utf8')).marketsData[0];
const QUIET = { key_rotations: { enabled: false }, network_history: { enabled: false }, history_segments: { enabled: false }, consistency: { enabled: false } };

describe('enum buckets follow what the node sends now', () => {
  it('8 junk trading modes and states, then a new real one: named on the next poll once the junk is gone', async () => {
    const ids = Array.from({ length: 9 }, (_, i) => hex64(i));
    const NEW_MODE = 'TRADING_MODE_FROM_A_NEWER_NODE';
    const NEW_STATE = 'STATE_FROM_A_NEWER_NODE';
    let junk = true;
    // Markets 0-7 carry junk while `junk` holds, continuous/active after; market 8 always the new value.
    const mode = (i: number): string => (i === 8 ? NEW_MODE : junk ? `JUNK_MODE_${i}` : 'TRADING_MODE_CONTINUOUS');
    const state = (i: number): string => (i === 8 ? NEW_STATE : junk ? `JUNK_STATE_${i}` : 'STATE_ACTIVE');
    const node = await hostileNode({
      '/markets/data': (_q, res) =>
        json(res, JSON.stringify({ marketsData: ids.map((id, i) => ({ ...DATA, market: id, marketTradingMode: mode(i), marketState: state(i) })) })),
      '/markets': (_q, res) => json(res, JSON.stringify({ markets: ids.map((id, i) => market(id, { tradingMode: mode(i), state: state(i) })) })),
    });
    life.defer(node.close);
    const e = await life.exporter(node.url, { collectors: QUIET });
    const net = (await scrape(e.url)).all('vega_market_data_trading_mode')[0]!.labels.network!;
    const last = { network: net, market_id: ids[8]! };

    await e.poll();
    let m = await scrape(e.url);
    // This poll: 8 junk values took the buckets, the new one shares `other`.
    expect(m.value('vega_market_data_trading_mode', { ...last, trading_mode: 'other' })).toBe(1);
    expect(m.value('vega_market_data_state', { ...last, state: 'other' })).toBe(1);
    expect(m.value('vega_market_trading_mode', { ...last, trading_mode: 'other' })).toBe(1);
    expect(m.value('vega_markets_by_trading_mode', { network: net, trading_mode: 'other' })).toBe(1);

    junk = false;
    await e.poll();
    m = await scrape(e.url);
    for (const [metric, label, value] of [
      ['vega_market_data_trading_mode', 'trading_mode', NEW_MODE],
      ['vega_market_data_state', 'state', NEW_STATE],
      ['vega_market_trading_mode', 'trading_mode', NEW_MODE],
      ['vega_market_state', 'state', NEW_STATE],
    ] as const) {
      expect(m.value(metric, { ...last, [label]: value }), `${metric} ${value}`).toBe(1);
      expect(m.value(metric, { ...last, [label]: 'other' }), `${metric} other`).toBeUndefined();
    }
    expect(m.value('vega_markets_by_trading_mode', { network: net, trading_mode: NEW_MODE })).toBe(1);
    expect(m.value('vega_markets_by_trading_mode', { network: net, trading_mode: 'other' })).toBeUndefined();
  });
});
