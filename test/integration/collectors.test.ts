/**
 * The five list/lookup collectors (markets, positions, parties, node signatures, orders) against
 * the simulator over real HTTP: every exported value checked against the simulator's own records,
 * scaled as documented.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MARKET_STATE, ORDER_STATUS, POSITION_STATUS, TRADING_MODE } from '../../src/shared/enums.js';
import type { MarketRec } from '@datanode-exporter/simulator/network';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { scrape, type Scrape } from '../helpers/expo.js';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';
import { lifecycle } from '../helpers/lifecycle.js';
import { ManualClock } from '../helpers/sim.js';

const life = lifecycle();
const cleanup = { push: life.defer };
const sim = (opts: Parameters<typeof startSimulator>[0]): Promise<Simulator> => life.sim({ now: new ManualClock().now, ...opts });
async function exporter(url: string, collectors: object): Promise<RunningExporter> {
  // Statistics stays on: it tells the exporter which network (chain id) a target belongs to.
  // market_data too: its first poll may look markets up (GET /api/v2/market/{id}, counted as "markets").
  const off = {
    network_history: { enabled: false },
    key_rotations: { enabled: false },
    markets: { enabled: false },
    consistency: { enabled: false },
    datanode_info: { enabled: false },
    history_segments: { enabled: false },
    market_data: { enabled: false },
    network_data: { enabled: false },
  };
  return life.exporter(url, { collectors: { ...off, ...collectors } });
}
const scale = (v: bigint, d: number): number => (d >= 0 ? Number(v) / 10 ** d : Number(v) * 10 ** -d);
const T = { network: 'vega-mainnet-0011' };
const NODE = { target: 'node1' };

function checkMarket(m: Scrape, r: MarketRec): void {
  const id = { ...T, market_id: r.id };
  const info = m.all('vega_market_info', id);
  expect(info).toHaveLength(1);
  expect(info[0]!.labels).toMatchObject({ code: r.code, name: r.name, product: r.product, settlement_asset: r.settlementAsset, tags: r.tags.join(',') });
  expect(info[0]!.labels.quote_name).toBe(r.product === 'spot' ? '' : r.quoteName);
  for (const s of MARKET_STATE) expect(m.value('vega_market_state', { ...id, state: s })).toBe(s === r.state ? 1 : 0);
  for (const s of TRADING_MODE) expect(m.value('vega_market_trading_mode', { ...id, trading_mode: s })).toBe(s === r.tradingMode ? 1 : 0);
  expect(m.value('vega_market_decimal_places', id)).toBe(r.decimalPlaces);
  expect(m.value('vega_market_position_decimal_places', id)).toBe(r.positionDecimalPlaces);
  expect(m.value('vega_market_fee_factor', { ...id, fee: 'maker' })).toBe(Number(r.fees.makerFee));
  expect(m.value('vega_market_fee_factor', { ...id, fee: 'infrastructure' })).toBe(Number(r.fees.infrastructureFee));
  expect(m.value('vega_market_fee_factor', { ...id, fee: 'liquidity' })).toBe(Number(r.fees.liquidityFee));
  expect(m.value('vega_market_slippage_factor', { ...id, kind: 'linear' })).toBe(Number(r.linearSlippageFactor));
  expect(m.value('vega_market_slippage_factor', { ...id, kind: 'quadratic' })).toBe(Number(r.quadraticSlippageFactor));
  expect(m.value('vega_market_lp_price_range', id)).toBe(Number(r.lpPriceRange));
  for (const ev of ['proposed', 'pending', 'open', 'close'] as const) {
    const ns = r.timestamps[ev];
    if (ns === 0n) expect(m.value('vega_market_timestamp_seconds', { ...id, event: ev })).toBeUndefined();
    else expect(m.value('vega_market_timestamp_seconds', { ...id, event: ev })).toBeCloseTo(Number(ns) / 1e9, 3);
  }
  expect(m.value('vega_market_opening_auction_duration_seconds', id)).toBe(r.openingAuction.duration);
  expect(m.value('vega_market_opening_auction_volume', id)).toBe(r.openingAuction.volume);
  expect(m.value('vega_market_price_monitoring_triggers', id)).toBe(r.triggers.length);
  expect(m.value('vega_market_target_stake_time_window_seconds', id)).toBe(r.targetStake.timeWindow);
  expect(m.value('vega_market_target_stake_scaling_factor', id)).toBe(r.targetStake.scalingFactor);
  if (r.risk.kind === 'logNormal') {
    expect(m.value('vega_market_risk_parameter', { ...id, model: 'log_normal', parameter: 'tau' })).toBe(r.risk.tau);
    expect(m.value('vega_market_risk_parameter', { ...id, model: 'log_normal', parameter: 'risk_aversion' })).toBe(r.risk.riskAversionParameter);
    expect(m.value('vega_market_risk_parameter', { ...id, model: 'log_normal', parameter: 'sigma' })).toBe(r.risk.sigma);
    expect(m.all('vega_market_risk_parameter', id)).toHaveLength(5);
  } else {
    expect(m.value('vega_market_risk_parameter', { ...id, model: 'simple', parameter: 'factor_long' })).toBe(r.risk.factorLong);
    expect(m.value('vega_market_risk_parameter', { ...id, model: 'simple', parameter: 'min_move_down' })).toBe(r.risk.minMoveDown);
    expect(m.all('vega_market_risk_parameter', id)).toHaveLength(5);
  }
  expect(m.value('vega_market_margin_scaling_factor', { ...id, level: 'search' })).toBe(r.scaling.searchLevel);
  expect(m.value('vega_market_margin_scaling_factor', { ...id, level: 'initial' })).toBe(r.scaling.initialMargin);
  expect(m.value('vega_market_margin_scaling_factor', { ...id, level: 'collateral_release' })).toBe(r.scaling.collateralRelease);
}

function promtoolClean(text: string): void {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is required (apt-get install prometheus): ${r.error.message}`);
  expect(`${r.stdout}${r.stderr}`).toBe('');
  expect(r.status).toBe(0);
}

describe('markets', () => {
  it('every per-market value and the counts by state and mode (0 for the empty ones)', async () => {
    const s = await sim({ seed: 50, markets: 14 });
    const e = await exporter(s.url, { markets: { enabled: true } });
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'markets' })).toBe(1);
    for (const r of s.net.markets) checkMarket(m, r);
    for (const st of MARKET_STATE) expect(m.value('vega_markets', { ...T, state: st })).toBe(s.net.markets.filter((x) => x.state === st).length);
    for (const md of TRADING_MODE)
      expect(m.value('vega_markets_by_trading_mode', { ...T, trading_mode: md })).toBe(s.net.markets.filter((x) => x.tradingMode === md).length);
    expect(m.value('vega_markets', { ...T, state: 'STATE_SETTLED' })).toBe(0);
    expect(m.value('datanode_exporter_markets_over_limit', T)).toBe(0);
  });

  it('datanode profile: falls back to /api/v2/markets when /markets answers 404, and remembers it', async () => {
    const s = await sim({ seed: 51, markets: 7, profile: 'datanode' });
    const e = await exporter(s.url, { markets: { enabled: true } });
    let m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'markets' })).toBe(1);
    for (const r of s.net.markets) checkMarket(m, r);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'markets', status: '404' })).toBe(1);
    expect(m.value('datanode_exporter_network_upstream_pages_total', { ...T, collector: 'markets' })).toBe(1);
    await e.poll('markets');
    m = await scrape(e.url);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'markets', status: '404' })).toBe(1); // not asked again
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'markets', status: '200' })).toBe(2);
    expect(m.value('datanode_exporter_network_upstream_pages_total', { ...T, collector: 'markets' })).toBe(2);
  });

  it('spec profile (the default): GET /markets answers, so the exporter never pages /api/v2/markets', async () => {
    const s = await sim({ seed: 51, markets: 7 });
    const e = await exporter(s.url, { markets: { enabled: true } });
    await e.poll('markets');
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'markets' })).toBe(1);
    for (const r of s.net.markets) checkMarket(m, r);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'markets', status: '404' })).toBeUndefined();
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'markets', status: '200' })).toBe(2);
    expect(m.value('datanode_exporter_network_upstream_pages_total', { ...T, collector: 'markets' }) ?? 0).toBe(0);
  });

  it('1,000 markets: the guard stops per-market series and says so; the counts stay', async () => {
    const s = await sim({ seed: 52, markets: 1000, positions: 0 });
    const e = await exporter(s.url, { markets: { enabled: true } });
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_markets_over_limit', T)).toBe(1);
    expect(m.has('vega_market_info')).toBe(false);
    expect(m.has('vega_market_state')).toBe(false);
    expect(m.all('vega_markets').reduce((a, x) => a + x.value, 0)).toBe(1000);
  });

  it('an allow-list by id or code keeps exactly the listed markets; counts_only keeps only counts', async () => {
    const s = await sim({ seed: 53, markets: 20 });
    const [a, b] = [s.net.markets[3]!, s.net.markets[11]!];
    const e = await exporter(s.url, { markets: { enabled: true, allow: [a.id, b.code] } });
    const m = await scrape(e.url);
    expect(new Set(m.all('vega_market_info').map((x) => x.labels.market_id))).toEqual(new Set([a.id, b.id]));
    expect(new Set(m.all('vega_market_decimal_places').map((x) => x.labels.market_id))).toEqual(new Set([a.id, b.id]));
    expect(m.all('vega_markets').reduce((acc, x) => acc + x.value, 0)).toBe(20);

    const e2 = await exporter(s.url, { markets: { enabled: true, counts_only: true } });
    const m2 = await scrape(e2.url);
    expect(m2.has('vega_market_info')).toBe(false);
    expect(m2.all('vega_markets').reduce((acc, x) => acc + x.value, 0)).toBe(20);
  });

  it('a market that disappears upstream disappears on the next poll, and a new one appears', async () => {
    const s = await sim({ seed: 54, markets: 5 });
    const e = await exporter(s.url, { markets: { enabled: true } });
    const gone = s.net.markets[2]!;
    expect((await scrape(e.url)).all('vega_market_info', { market_id: gone.id })).toHaveLength(1);
    s.net.removeMarket(gone.id);
    const added = s.net.addMarket();
    await e.poll('markets');
    const m = await scrape(e.url);
    for (const name of ['vega_market_info', 'vega_market_state', 'vega_market_decimal_places', 'vega_market_risk_parameter'])
      expect(m.all(name, { market_id: gone.id })).toHaveLength(0);
    checkMarket(m, added);
  });

  it('an unknown market state is data: exported, not a crash', async () => {
    const s = await sim({ seed: 55, markets: 3, faults: { endpoints: { markets: { unknownEnums: true } } } });
    const e = await exporter(s.url, { markets: { enabled: true } });
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'markets' })).toBe(1);
    expect(m.value('vega_markets', { ...T, state: '99' })).toBe(3);
    expect(m.value('vega_market_state', { ...T, market_id: s.net.markets[0]!.id, state: '99' })).toBe(1);
  });
});

describe('positions', () => {
  it('every position of the listed parties, volume and price scaled by market, money by asset decimals', async () => {
    const s = await sim({ seed: 56, parties: 20, markets: 6, positions: 60 });
    const parties = [s.net.parties[0]!.id, s.net.parties[5]!.id];
    const e = await exporter(s.url, { markets: { enabled: true }, positions: { party_ids: parties } });
    await e.poll('positions'); // after markets, for the directory (it also looks markets up itself)
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'positions' })).toBe(1);
    const expected = s.net.positions.filter((p) => parties.includes(p.partyId));
    expect(expected.length).toBeGreaterThan(2);
    expect(m.all('vega_position_open_volume')).toHaveLength(expected.length);
    for (const p of expected) {
      const mk = s.net.markets.find((x) => x.id === p.marketId)!;
      const asset = s.net.assets.find((a) => a.id === mk.settlementAsset)!;
      const l = { ...T, market_id: p.marketId, party_id: p.partyId };
      expect(m.value('vega_position_open_volume', l)).toBeCloseTo(scale(p.openVolume, mk.positionDecimalPlaces), 9);
      expect(m.value('vega_position_average_entry_price', l)).toBeCloseTo(scale(p.averageEntryPrice, mk.decimalPlaces), 9);
      expect(m.value('vega_position_realised_pnl', { ...l, asset: asset.id })).toBeCloseTo(scale(p.realisedPnl, asset.decimals), 9);
      expect(m.value('vega_position_unrealised_pnl', { ...l, asset: asset.id })).toBeCloseTo(scale(p.unrealisedPnl, asset.decimals), 9);
      expect(m.value('vega_position_loss_socialisation', { ...l, asset: asset.id })).toBeCloseTo(scale(p.lossSocialisationAmount, asset.decimals), 9);
      for (const st of POSITION_STATUS) expect(m.value('vega_position_status', { ...l, status: st })).toBe(st === p.status ? 1 : 0);
      expect(m.value('vega_position_updated_timestamp_seconds', l)).toBeCloseTo(Number(p.updatedAt) / 1e9, 3);
    }
  });

  it('asset decimals from the config win; a position that disappears upstream disappears', async () => {
    const s = await sim({ seed: 57, parties: 4, markets: 3, positions: 12 });
    const mkt = s.net.markets[0]!;
    const e = await exporter(s.url, { positions: { market_ids: [mkt.id], asset_decimals: { [mkt.settlementAsset]: 2 } } });
    let m = await scrape(e.url);
    const mine = s.net.positions.filter((p) => p.marketId === mkt.id);
    expect(m.all('vega_position_open_volume')).toHaveLength(mine.length);
    const p0 = mine[0]!;
    expect(m.value('vega_position_realised_pnl', { market_id: mkt.id, party_id: p0.partyId })).toBeCloseTo(scale(p0.realisedPnl, 2), 6);
    s.net.positions.splice(s.net.positions.indexOf(p0), 1);
    await e.poll('positions');
    m = await scrape(e.url);
    expect(m.all('vega_position_open_volume', { party_id: p0.partyId, market_id: mkt.id })).toHaveLength(0);
    expect(m.all('vega_position_status', { party_id: p0.partyId, market_id: mkt.id })).toHaveLength(0);
    expect(m.all('vega_position_open_volume')).toHaveLength(mine.length - 1);
  });

  it('is off until parties or markets are listed', async () => {
    const s = await sim({ seed: 58 });
    const e = await exporter(s.url, {});
    expect(e.exporter.runners.map((r) => r.collector.name)).not.toContain('positions');
  });
});

describe('parties, node signatures, orders', () => {
  it('parties: the total over every page, and whether listed ids exist (404 is 0, not a failure)', async () => {
    const s = await sim({ seed: 59, parties: 12_345 });
    const known = s.net.parties[100]!.id;
    const unknown = 'ab'.repeat(32);
    const e = await exporter(s.url, { parties: { enabled: true, party_ids: [known, unknown] } });
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'parties' })).toBe(1);
    expect(m.value('vega_parties', T)).toBe(12_345);
    expect(m.value('vega_party_exists', { ...T, party_id: known })).toBe(1);
    expect(m.value('vega_party_exists', { ...T, party_id: unknown })).toBe(0);
    expect(m.value('datanode_exporter_network_upstream_pages_total', { ...T, collector: 'parties' })).toBe(3);
  });

  it('node signatures: per listed resource, by kind; an id with none is 0', async () => {
    const s = await sim({ seed: 60, signatureResources: 6, validators: 7 });
    const ids = [...s.net.signatures.keys()];
    const none = 'cd'.repeat(32);
    const e = await exporter(s.url, { node_signatures: { ids: [...ids, none] } });
    const m = await scrape(e.url);
    for (const id of ids) {
      const list = s.net.signatures.get(id)!;
      expect(m.value('vega_node_signatures_collected', { ...T, resource_id: id })).toBe(list.length);
      for (const kind of new Set(list.map((x) => x.kind))) {
        expect(m.value('vega_node_signatures', { ...T, resource_id: id, kind })).toBe(list.filter((x) => x.kind === kind).length);
      }
    }
    expect(m.value('vega_node_signatures_collected', { ...T, resource_id: none })).toBe(0);
  });

  it('orders: status, identity, scaled size and price, latest version, times; pinned versions; 404 is "not found"', async () => {
    const c = new ManualClock();
    const s = await sim({ seed: 61, orders: 8, now: c.now });
    c.advance(300_000); // orders get amended, filled and cancelled
    await fetch(`${s.url}/statistics`);
    const amended = s.net.orders.find((o) => o.versions.length > 1)!;
    expect(amended).toBeDefined();
    const unknown = 'ef'.repeat(32);
    const ids = [...s.net.orders.map((o) => o.id).filter((id) => id !== amended.id), `${amended.id}@1`, unknown];
    const e = await exporter(s.url, { orders: { ids } });
    const m = await scrape(e.url);
    expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: 'orders' })).toBe(1);
    expect(m.value('vega_order_found', { ...T, order_id: unknown })).toBe(0);
    for (const o of s.net.orders) {
      const pinned = o.id === amended.id;
      const v = pinned ? o.versions[0]! : o.versions[o.versions.length - 1]!;
      const mk = s.net.markets.find((x) => x.id === o.marketId)!;
      const l = { ...T, order_id: o.id };
      expect(m.value('vega_order_found', l)).toBe(1);
      expect(m.all('vega_order_info', l)[0]!.labels).toMatchObject({
        market_id: o.marketId,
        party_id: o.partyId,
        side: o.side,
        type: o.type,
        time_in_force: o.timeInForce,
      });
      for (const st of ORDER_STATUS) expect(m.value('vega_order_status', { ...l, status: st })).toBe(st === v.status ? 1 : 0);
      expect(m.value('vega_order_size', l)).toBeCloseTo(scale(v.size, mk.positionDecimalPlaces), 9);
      expect(m.value('vega_order_remaining', l)).toBeCloseTo(scale(v.remaining, mk.positionDecimalPlaces), 9);
      expect(m.value('vega_order_price', l)).toBeCloseTo(scale(v.price, mk.decimalPlaces), 9);
      expect(m.value('vega_order_version', l)).toBe(o.versions.length);
      expect(m.value('vega_order_timestamp_seconds', { ...l, event: 'created' })).toBeCloseTo(Number(v.createdAt) / 1e9, 3);
      expect(m.value('vega_order_timestamp_seconds', { ...l, event: 'updated' }) === undefined).toBe(v.updatedAt === 0n);
      expect(m.value('vega_order_timestamp_seconds', { ...l, event: 'expires' }) === undefined).toBe(v.expiresAt === 0n);
    }
  });
});

describe('ids of other shapes than 64 hex (the specification types ids as plain strings)', () => {
  const SHAPES = ['m1', 'Qk+/x9Z=ab==', 'ABCDEF0123456789'.repeat(4), 'z'.repeat(200)];
  const LISTED = ['orders', 'positions', 'parties'];
  const config = { orders: { ids: SHAPES }, positions: { party_ids: SHAPES }, parties: { enabled: true, party_ids: SHAPES } };

  it('the default simulator answers not found or an empty list, so each collector succeeds and says so', async () => {
    const s = await sim({ seed: 63, parties: 10, positions: 20 });
    const e = await exporter(s.url, config);
    const m = await scrape(e.url);
    for (const c of LISTED) expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: c }), c).toBe(1);
    expect(m.all('datanode_exporter_upstream_requests_total').filter((x) => x.labels.status === '400')).toEqual([]);
    // one "not found" per listed id (the 200-character one under its capped label)
    expect(m.all('vega_order_found').map((x) => x.value)).toEqual(SHAPES.map(() => 0));
    expect(m.all('vega_party_exists').map((x) => x.value)).toEqual(SHAPES.map(() => 0));
    for (const id of SHAPES.slice(0, 3)) {
      expect(m.value('vega_order_found', { ...T, order_id: id })).toBe(0);
      expect(m.value('vega_party_exists', { ...T, party_id: id })).toBe(0);
    }
    expect(m.has('vega_position_open_volume')).toBe(false); // no position of these parties upstream
  });

  it('the datanode profile answers 400 for them, and those collectors fail', async () => {
    const s = await sim({ seed: 63, parties: 10, positions: 20, profile: 'datanode' });
    const e = await exporter(s.url, config);
    const m = await scrape(e.url);
    for (const c of ['orders', 'positions']) expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: c }), c).toBe(0);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'orders', status: '400' })).toBeGreaterThan(0);
    expect(m.value('datanode_exporter_upstream_requests_total', { ...NODE, endpoint: 'positions', status: '400' })).toBeGreaterThan(0);
  });
});

describe('all collectors at once', () => {
  it('promtool check metrics stays clean with every collector on', async () => {
    const s = await sim({ seed: 62, markets: 12, parties: 30, positions: 80 });
    const e = await startExporter(s.url, {
      collectors: {
        positions: { party_ids: s.net.parties.slice(0, 5).map((p) => p.id) },
        parties: { enabled: true, party_ids: [s.net.parties[0]!.id] },
        node_signatures: { ids: [...s.net.signatures.keys()] },
        orders: { ids: s.net.orders.slice(0, 5).map((o) => o.id) },
      },
    });
    cleanup.push(() => e.stop());
    await e.poll();
    const m = await scrape(e.url);
    for (const c of ['statistics', 'network_history', 'consistency'])
      expect(m.value('datanode_exporter_collector_success', { ...NODE, collector: c }), c).toBe(1);
    for (const c of ['key_rotations', 'markets', 'positions', 'parties', 'node_signatures', 'orders'])
      expect(m.value('datanode_exporter_network_collector_success', { ...T, collector: c }), c).toBe(1);
    promtoolClean(m.text);
  });
});
