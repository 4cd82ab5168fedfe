/**
 * Ids as the specification types them: an id is any non-empty string. A data
 * node of this test's own, over HTTP, names every market, asset, party, order, resource and
 * validator with ids of other shapes than 64 lowercase hex (a short name, base64 with + / =, upper
 * case, 200 characters, one with quotes and a backslash, "..") and the real exporter, every
 * collector that reads ids switched on, must export each of them: as label values within the
 * label bound (cut with a hash suffix past 128 bytes, escaped), and as URL path segments only
 * encoded. Only what can never be an id (empty) skips its row. Expected values are worked out by
 * hand below, not by the exporter's code.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { scrape, type Scrape } from '../../../helpers/expo.js';
import { STATISTICS, STATISTICS_HEADERS } from '../../../helpers/hostile.js';
import { lifecycle } from '../../../helpers/lifecycle.js';
import { orderBody } from '../../../helpers/orders.js';

const { defer, exporter } = lifecycle();

const LONG = Array.from({ length: 200 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]).join('');
/** One id of each shape; each names a market, its settlement asset, a party, an order, a resource and a validator. */
const SHAPES = ['m1', 'Qk+/x9Z=ab==', 'ABCDEF0123456789', LONG, 'a "quoted" \\ id', '..', 'f'.repeat(64)];

/** The label value the exposition shows: as sent up to 128 bytes, else 111 bytes, "~" and 16 hex digits of its SHA-256. */
function label(id: string): string {
  if (Buffer.byteLength(id) <= 128) return id;
  return `${id.slice(0, 111)}~${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** Market i has decimalPlaces i and positionDecimalPlaces 1; every asset has 2 decimals. */
const PRICE_BY_DECIMALS = [12345, 1234.5, 123.45, 12.345, 1.2345, 0.12345, 0.012345];
/** Order prices: 37035 (12345 at version 3) / 10^i, the nearest doubles to those decimals. */
const ORDER_PRICE_BY_DECIMALS = [37035, 3703.5, 370.35, 37.035, 3.7035, 0.37035, 0.037035];

function marketJson(id: string, i: number): unknown {
  return {
    id,
    decimalPlaces: String(i),
    positionDecimalPlaces: '1',
    state: 'STATE_ACTIVE',
    tradingMode: 'TRADING_MODE_CONTINUOUS',
    tradableInstrument: {
      instrument: { id: '', code: `CODE${i}`, name: `Market ${i}`, metadata: { tags: [] }, future: { settlementAsset: id, quoteName: 'USD' } },
    },
    fees: { factors: { makerFee: '0.0002', infrastructureFee: '0.0005', liquidityFee: '0.001' } },
    marketTimestamps: { proposed: '0', pending: '0', open: '0', close: '0' },
  };
}

function marketDataJson(id: string): unknown {
  return {
    market: id,
    markPrice: '12345',
    lastTradedPrice: '0',
    midPrice: '0',
    indicativePrice: '0',
    bestBidPrice: '0',
    bestOfferPrice: '0',
    bestBidVolume: '0',
    bestOfferVolume: '0',
    indicativeVolume: '0',
    openInterest: '30',
    timestamp: '1700000000000000000',
    auctionStart: '0',
    auctionEnd: '0',
    marketTradingMode: 'TRADING_MODE_CONTINUOUS',
    marketState: 'STATE_ACTIVE',
    trigger: 'AUCTION_TRIGGER_UNSPECIFIED',
    extensionTrigger: 'AUCTION_TRIGGER_UNSPECIFIED',
    targetStake: '500',
    suppliedStake: '700',
    priceMonitoringBounds: [],
    nextMarkToMarket: '0',
  };
}

const positionJson = (id: string): unknown => ({
  marketId: id,
  partyId: id,
  openVolume: '25',
  realisedPnl: '-150',
  unrealisedPnl: '0',
  averageEntryPrice: '12345',
  lossSocialisationAmount: '0',
  positionStatus: 'POSITION_STATUS_UNSPECIFIED',
  updatedAt: '0',
});

function orderJson(id: string, marketId: string, version: number): unknown {
  return orderBody({ id, marketId, partyId: marketId, price: String(12345 * version), size: '40', remaining: '40', version: String(version) });
}

const page = (key: string, nodes: unknown[]) => ({
  [key]: {
    edges: nodes.map((node, i) => ({ node, cursor: `c${i}` })),
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: 'c0', endCursor: `c${nodes.length - 1}` },
  },
});

/** Key rotations: SHAPES[i] rotated i + 1 times, the last at height 100 + i; plus a row with no id and one with a number for an id. */
const ROTATIONS = [
  ...SHAPES.flatMap((id, i) =>
    Array.from({ length: i + 1 }, (_, k) => ({ nodeId: id, oldPubKey: `old${k}`, newPubKey: `new${i}.${k}`, blockHeight: String(100 + i - k) })),
  ),
  { nodeId: '', oldPubKey: 'o', newPubKey: 'n', blockHeight: '7' },
  { nodeId: 7, oldPubKey: 'o', newPubKey: 'n', blockHeight: '7' },
];
/** A listed order whose id itself ends in "@" and digits: written { id } in the configuration. */
const AT_ID = 'ord@7';

interface Seen {
  paths: string[];
}

/** The data node: exact paths, one path segment decoded where an id goes. */
async function node(seen: Seen): Promise<{ url: string; close: () => Promise<void> }> {
  const ids = new Set(SHAPES);
  const server = http.createServer((req, res) => {
    // The path as sent: a URL parser would resolve "%2E%2E" as a dot segment.
    const raw = (req.url ?? '/').split('?')[0]!;
    const url = new URL(req.url ?? '/', 'http://x');
    seen.paths.push(raw);
    const send = (body: unknown, status = 200, headers: http.OutgoingHttpHeaders = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const notFound = (): void => send({ code: 5, message: 'Not Found', details: [] }, 404);
    const one = (prefix: string): string | undefined =>
      raw.startsWith(prefix) && !raw.slice(prefix.length).includes('/') ? decodeURIComponent(raw.slice(prefix.length)) : undefined;
    if (raw === '/statistics') return send(STATISTICS, 200, STATISTICS_HEADERS);
    if (raw === '/markets') return send({ markets: SHAPES.map(marketJson) });
    if (raw === '/api/v2/markets/data') return send({ marketsData: SHAPES.map(marketDataJson) });
    const market = one('/api/v2/market/');
    if (market !== undefined) return ids.has(market) ? send({ market: marketJson(market, SHAPES.indexOf(market)) }) : notFound();
    const asset = one('/api/v2/asset/');
    if (asset !== undefined)
      return ids.has(asset)
        ? send({ asset: { id: asset, details: { name: 'A', symbol: 'A', decimals: '2', quantum: '1' }, status: 'STATUS_ENABLED' } })
        : notFound();
    if (raw === '/api/v2/positions') {
      const parties = url.searchParams.getAll('filter.partyIds');
      return send(page('positions', SHAPES.filter((id) => parties.includes(id)).map(positionJson)));
    }
    if (raw === '/api/v2/parties') {
      const one_ = url.searchParams.get('partyId');
      if (one_ === null)
        return send(
          page(
            'parties',
            SHAPES.map((id) => ({ id })),
          ),
        );
      return ids.has(one_) ? send(page('parties', [{ id: one_ }])) : notFound();
    }
    if (raw === '/api/v2/node/signatures') {
      const id = url.searchParams.get('id')!;
      const n = SHAPES.indexOf(id) + 1;
      return send(
        page(
          'signatures',
          Array.from({ length: n }, (_, k) => ({ id, sig: `sig${k}`, kind: 'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL' })),
        ),
      );
    }
    if (raw === '/api/v2/vega/keys/rotations') return send(page('rotations', ROTATIONS));
    const order = one('/api/v2/order/');
    if (order !== undefined) {
      if (order === AT_ID) return send(orderJson(AT_ID, SHAPES[0]!, 1));
      if (!ids.has(order)) return notFound();
      const version = Number(url.searchParams.get('version') ?? '3'); // every order is at version 3
      return send(orderJson(order, order, version));
    }
    notFound();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const NET = 'net';

async function run(): Promise<{ m: Scrape; seen: Seen }> {
  const seen: Seen = { paths: [] };
  const n = await node(seen);
  defer(n.close);
  const off = { enabled: false };
  const e = await exporter(
    n.url,
    {
      targets: [{ name: 'node1', url: n.url, network: NET }],
      collectors: {
        network_history: off,
        datanode_info: off,
        history_segments: off,
        consistency: off,
        network_data: off,
        // Polled at start and by e.poll() only: the skipped-row counts below are per poll.
        key_rotations: { interval: '24h' },
        positions: { party_ids: SHAPES },
        parties: { enabled: true, party_ids: [...SHAPES, 'nobody'] },
        node_signatures: { ids: SHAPES },
        // SHAPES[1] pinned to version 2; an id ending in "@" and digits in the object form.
        orders: { ids: [...SHAPES.map((id, i) => (i === 1 ? `${id}@2` : id)), { id: AT_ID }] },
      },
    },
    'silent',
  );
  // A second round: market_data and positions read the decimals the markets collector found.
  await e.poll();
  return { m: await scrape(e.url), seen };
}

describe('ids of any non-empty shape, on every collector that reads ids', () => {
  it('are exported as labels (bounded and escaped) and sent only encoded', async () => {
    const { m, seen } = await run();
    const N = { network: NET };
    SHAPES.forEach((id, i) => {
      const L = label(id);
      const at = `shape ${i} (${id.length} characters)`;
      // markets: the market, its settlement asset
      expect(m.value('vega_market_info', { ...N, market_id: L, settlement_asset: L }), at).toBe(1);
      expect(m.value('vega_market_decimal_places', { ...N, market_id: L }), at).toBe(i);
      // market_data: 12345 / 10^i; stakes 700 / 10^2
      expect(m.value('vega_market_data_price', { ...N, market_id: L, kind: 'mark' }), at).toBe(PRICE_BY_DECIMALS[i]);
      expect(m.value('vega_market_stake', { ...N, market_id: L, kind: 'supplied' }), at).toBe(7);
      // positions: 25 / 10^1 contracts, -150 / 10^2 in the asset
      expect(m.value('vega_position_open_volume', { ...N, market_id: L, party_id: L }), at).toBe(2.5);
      expect(m.value('vega_position_realised_pnl', { ...N, market_id: L, party_id: L, asset: L }), at).toBe(-1.5);
      // orders: found, identity, price 12345 * version / 10^i (version 3, or the pinned 2)
      expect(m.value('vega_order_found', { ...N, order_id: L }), at).toBe(1);
      expect(m.value('vega_order_info', { ...N, order_id: L, market_id: L, party_id: L }), at).toBe(1);
      expect(m.value('vega_order_price', { ...N, order_id: L }), at).toBe(i === 1 ? 2469 : ORDER_PRICE_BY_DECIMALS[i]); // pinned: 24690 / 10^1
      expect(m.value('vega_order_version', { ...N, order_id: L }), at).toBe(3);
      // parties and signatures: listed by id
      expect(m.value('vega_party_exists', { ...N, party_id: L }), at).toBe(1);
      expect(m.value('vega_node_signatures_collected', { ...N, resource_id: L }), at).toBe(i + 1);
      // key rotations: i + 1 rotations, the last at 100 + i
      expect(m.value('vega_key_rotations_total', { ...N, node_id: L }), at).toBe(i + 1);
      expect(m.value('vega_key_rotation_last_block_height', { ...N, node_id: L }), at).toBe(100 + i);
    });
    expect(m.value('vega_parties', N)).toBe(SHAPES.length);
    expect(m.value('vega_party_exists', { ...N, party_id: 'nobody' })).toBe(0);
    expect(m.value('vega_order_found', { ...N, order_id: AT_ID })).toBe(1);
    expect(m.value('vega_order_price', { ...N, order_id: AT_ID })).toBe(12345); // market SHAPES[0]: 0 decimals
    // Only what can never be an id is a bad id; a number is a bad field. Nothing else was skipped.
    // (One row each, on each of the two polls: the node sends the whole list every time.)
    const skipped = m
      .all('datanode_exporter_network_collector_rows_skipped_total')
      .filter((s) => s.value > 0)
      .map((s) => [s.labels.collector, s.labels.reason, s.value]);
    expect(skipped.sort()).toEqual([
      ['key_rotations', 'bad_field', 2],
      ['key_rotations', 'bad_id', 2],
    ]);
    for (const c of ['markets', 'market_data', 'positions', 'orders', 'parties', 'node_signatures', 'key_rotations'])
      expect(m.value('datanode_exporter_network_collector_success', { ...N, collector: c }), c).toBe(1);

    // In URLs the ids are one encoded path segment each ("+/=" and quotes escaped, ".." not a dot segment).
    expect(seen.paths).toContain('/api/v2/order/Qk%2B%2Fx9Z%3Dab%3D%3D');
    expect(seen.paths).toContain('/api/v2/order/a%20%22quoted%22%20%5C%20id');
    expect(seen.paths).toContain('/api/v2/order/%2E%2E');
    expect(seen.paths).toContain('/api/v2/order/ord%407');
    expect(seen.paths).toContain('/api/v2/asset/Qk%2B%2Fx9Z%3Dab%3D%3D');
    expect(seen.paths.some((p) => p === '/api/v2/order/..' || p === '/api/v2/' || p.includes('+'))).toBe(false);
    // Escaping: the exposition line of the quoted id, as it is written.
    expect(m.text).toContain('vega_party_exists{network="net",party_id="a \\"quoted\\" \\\\ id"} 1');
  }, 30_000);
});
