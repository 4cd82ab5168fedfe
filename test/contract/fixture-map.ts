/** Which endpoint each golden fixture answers (file name under fixtures/ → route key). */
import type { Release, RouteKey } from './descriptor.js';

export const FIXTURES: Record<string, RouteKey> = {
  'statistics.json': 'GET /statistics',
  'statistics-replaying.json': 'GET /statistics',
  'info.json': 'GET /api/v2/info',
  'vega-time.json': 'GET /api/v2/vega/time',
  'networkhistory.json': 'GET /api/v2/networkhistory',
  'networkhistory-segments.json': 'GET /api/v2/networkhistory/segments',
  'vega-keys-rotations.json': 'GET /api/v2/vega/keys/rotations',
  'markets.json': 'GET /markets',
  'api-v2-markets.json': 'GET /api/v2/markets',
  'api-v2-market.json': 'GET /api/v2/market/{marketId}',
  'markets-data.json': 'GET /api/v2/markets/data',
  'asset.json': 'GET /api/v2/asset/{assetId}',
  'positions.json': 'GET /api/v2/positions',
  'parties.json': 'GET /api/v2/parties',
  'order.json': 'GET /api/v2/order/{orderId}',
  'node-signatures.json': 'GET /api/v2/node/signatures',
  'network-data.json': 'GET /api/v2/network/data',
  'epoch.json': 'GET /api/v2/epoch',
  'nodes.json': 'GET /api/v2/nodes',
  'error.json': 'error',
  'error-gateway.json': 'error',
};

/**
 * Bodies recorded from a public test network (fixtures/recorded/, provenance in its SOURCE.md): file →
 * route key and the release of the node that sent them (their schema is `schemaFor(route, release)`).
 */
export const RECORDED: Record<string, { route: RouteKey; release: Release }> = {
  'recorded/market.json': { route: 'GET /api/v2/market/{marketId}', release: '0.73' },
  'recorded/market-data-latest.json': { route: 'GET /api/v2/market/data/{marketId}/latest', release: '0.73' },
  'recorded/positions.json': { route: 'GET /api/v2/positions', release: '0.73' },
  'recorded/order.json': { route: 'GET /api/v2/order/{orderId}', release: '0.73' },
};
