/**
 * The node's view of network data, as a digest the fleet compares across targets: the set of
 * market ids and the latest key rotation. Two cheap requests; no series of its own. Nodes that
 * look healthy but serve incomplete data disagree with the majority here.
 */
import { createHash } from 'node:crypto';
import { headerU64, obj, str, arr } from '../upstream/convert.js';
import { simpleCollectorConfig } from '../config/fields.js';
import { defineCollector } from './define.js';
import type { Collector } from './types.js';

export const consistencyCollector: Collector = {
  async collect({ client, signal, pageSize }) {
    const markets = await client.get(
      '/api/v2/markets',
      [
        ['pagination.first', String(pageSize)],
        ['pagination.newestFirst', 'false'],
      ],
      'markets',
      signal,
    );
    const conn = obj(obj(markets.json, 'body').markets, 'markets');
    const ids = arr(conn.edges, 'markets.edges')
      .map((e, i) => str(obj(obj(e, `markets.edges[${i}]`).node, `markets.edges[${i}].node`).id, `markets.edges[${i}].node.id`))
      .sort();
    const rot = await client.get('/api/v2/vega/keys/rotations', [['pagination.first', '1']], 'rotations', signal);
    const edges = arr(obj(obj(rot.json, 'body').rotations, 'rotations').edges, 'rotations.edges');
    const latest = edges[0] ? obj(obj(edges[0], 'rotations.edges[0]').node, 'rotations.edges[0].node') : undefined;
    const digest = createHash('sha256')
      .update(ids.join(','))
      .update('|')
      .update(latest ? `${String(latest.nodeId)}/${String(latest.newPubKey)}/${String(latest.blockHeight)}` : 'none')
      .digest('hex')
      .slice(0, 16);
    const height = headerU64(markets.headers['x-block-height']);
    return { samples: [], facts: { fingerprint: digest, ...(height !== undefined && height > 0n ? { fingerprintHeight: height } : {}) } };
  },
};

export default defineCollector({
  name: 'consistency',
  scope: 'node',
  title: 'consistency collector (no series of its own: a digest of the market set and latest key rotation, compared across targets)',
  config: simpleCollectorConfig('60s', true),
  metrics: [],
  create: () => consistencyCollector,
});
