/**
 * Writes fixtures/recorded/<name>.expected.json: the samples docs/metrics.md gives for the bodies recorded
 * from fairground (v0.73, Oct 2023; see fixtures/recorded/SOURCE.md), listed by hand with exact arithmetic.
 *
 *   npx tsx test/contract/tools/build-recorded-expected.ts
 *
 * The fake data node behind them (golden-fixtures.test.ts) serves only the recorded bodies: the market
 * (id "COINALPHA.HBOT", also as the one node of GET /api/v2/markets), the market data, the positions and
 * the order. The market data, position and order name another market ("COIN_ALPHA_HBOT_MARKET_ID", the
 * publisher's placeholder), which GET /api/v2/market/{id} answers 404: every value that needs its decimals
 * is absent, never unscaled. Nothing here imports exporter code.
 */
import { ENUMS } from '../descriptor.js';
import { nsToSeconds, parseDecimal } from '../exact.js';
import { Expect, load, marketSamples } from './expect.js';

const NETWORK = 'fairground';
const n = { network: NETWORK };
const SOURCE = 'recorded from fairground (v0.73, Oct 2023): see SOURCE.md';

function market(): void {
  const m = load('recorded/market.json').market;
  const e = new Expect();
  marketSamples(e, [m], NETWORK);
  const l = { ...n, market_id: m.id };
  // v0.78's fee factors are not in a v0.73 body: no series, not 0.
  for (const fee of ['treasury', 'buy_back']) e.none('vega_market_fee_factor', 'not in a v0.73 body (since v0.78)', { ...l, fee });
  e.write('recorded/market.expected.json', {
    fixture: 'recorded/market.json',
    endpoint: 'GET /api/v2/market/{marketId} (served also as the one node of GET /api/v2/markets)',
    context: { network: NETWORK, release: '0.73', source: SOURCE, config: { max_markets: 500, allow: [], counts_only: false } },
  });
}

function marketData(): void {
  const d = load('recorded/market-data-latest.json').marketData;
  const e = new Expect();
  const l = { ...n, market_id: d.market };
  e.int('datanode_exporter_market_data_over_limit', n, 0);
  e.stateSet('vega_market_data_trading_mode', l, 'trading_mode', ENUMS.MarketTradingMode, d.marketTradingMode);
  e.stateSet('vega_market_data_state', l, 'state', ENUMS.MarketState, d.marketState);
  e.add('vega_market_data_timestamp_seconds', l, nsToSeconds(d.timestamp));
  e.add('vega_market_next_mark_to_market_timestamp_seconds', l, nsToSeconds(d.nextMarkToMarket));
  e.add('vega_market_funding_rate', l, parseDecimal(d.productData.perpetualData.fundingRate));
  e.none('vega_market_auction_timestamp_seconds', 'auctionStart and auctionEnd "0": no auction', l);
  e.none('vega_market_auction_trigger_info', 'trigger and extensionTrigger unspecified', l);
  for (const name of [
    'vega_market_data_price',
    'vega_market_data_volume',
    'vega_market_open_interest',
    'vega_market_price_monitoring_bound',
    'vega_market_stake',
  ]) {
    e.none(name, 'the market is unknown (GET /api/v2/market/{id} 404): its decimals are unknown', l);
  }
  e.write('recorded/market-data-latest.expected.json', {
    fixture: 'recorded/market-data-latest.json',
    endpoint: 'GET /api/v2/market/data/{marketId}/latest (served as the one row of GET /api/v2/markets/data)',
    context: { network: NETWORK, release: '0.73', source: SOURCE },
  });
}

function positions(): void {
  const e = new Expect();
  const parties: string[] = [];
  for (const { node: p } of load('recorded/positions.json').positions.edges) {
    parties.push(p.partyId);
    const l = { ...n, market_id: p.marketId, party_id: p.partyId };
    e.stateSet('vega_position_status', l, 'status', ENUMS.PositionStatus, p.positionStatus);
    e.add('vega_position_updated_timestamp_seconds', l, nsToSeconds(p.updatedAt));
    for (const name of [
      'vega_position_open_volume',
      'vega_position_average_entry_price',
      'vega_position_realised_pnl',
      'vega_position_unrealised_pnl',
      'vega_position_loss_socialisation',
    ]) {
      e.none(name, 'the market is unknown (GET /api/v2/market/{id} 404): its decimals are unknown', l);
    }
  }
  e.write('recorded/positions.expected.json', {
    fixture: 'recorded/positions.json',
    endpoint: 'GET /api/v2/positions',
    context: { network: NETWORK, release: '0.73', source: SOURCE, config: { party_ids: parties, market_ids: [] } },
  });
}

function order(): void {
  const o = load('recorded/order.json').order;
  const e = new Expect();
  const l = { ...n, order_id: o.id };
  e.int('vega_order_found', l, 1);
  e.int('vega_order_info', { ...l, market_id: o.marketId, party_id: o.partyId, side: o.side, type: o.type, time_in_force: o.timeInForce }, 1);
  e.stateSet('vega_order_status', l, 'status', ENUMS.OrderStatus, o.status);
  e.int('vega_order_version', l, o.version);
  e.add('vega_order_timestamp_seconds', { ...l, event: 'created' }, nsToSeconds(o.createdAt));
  for (const ev of ['updated', 'expires']) e.none('vega_order_timestamp_seconds', `${ev} time "0" is unset`, { ...l, event: ev });
  for (const name of ['vega_order_size', 'vega_order_remaining', 'vega_order_price']) {
    e.none(name, 'the market is unknown (GET /api/v2/market/{id} 404): its decimals are unknown', l);
  }
  e.write('recorded/order.expected.json', {
    fixture: 'recorded/order.json',
    endpoint: 'GET /api/v2/order/{orderId}',
    context: { network: NETWORK, release: '0.73', source: SOURCE, config: { ids: [o.id] } },
  });
}

market();
marketData();
positions();
order();
