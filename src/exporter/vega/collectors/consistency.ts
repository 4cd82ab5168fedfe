/**
 * The node's view of network data, as a digest the fleet compares across targets: the set of
 * market ids and the latest key rotation. A request per 500 markets and one more; no series of its
 * own. Nodes that look healthy but serve incomplete data disagree with the majority here.
 */
import { createHash } from 'node:crypto';
import { headerU64, obj, str, arr } from '../convert.js';
import { KeptBytes, walkConnection, type ConnectionWalk } from '../paginate.js';
import { MARKET_ROW, ROTATION_ROW } from '../list-rows.js';
import { simpleCollectorConfig } from '../../engine/fields.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector } from '../../engine/types.js';
import { Facts } from '../../engine/facts.js';
import { FINGERPRINT, FINGERPRINT_HEIGHT } from '../facts.js';

export const consistencyCollector: Collector = {
  async collect(ctx) {
    const { client, signal } = ctx;
    // Every market id, in pages no larger than the markets bound is sized for (MARKET_ROW); only the
    // ids are kept, within a walk's byte budget. The data-node height is the first page's.
    const ids: string[] = [];
    const held = new KeptBytes('markets');
    let height: bigint | undefined;
    const first: ConnectionWalk['client'] = {
      get: async (path, query, endpoint, s) => {
        const res = await client.get(path, query, endpoint, s);
        height ??= headerU64(res.headers['x-block-height']) ?? 0n;
        return res;
      },
    };
    await walkConnection({ ...ctx, client: first }, { path: '/api/v2/markets', key: 'markets', endpoint: 'markets', row: MARKET_ROW }, (nodes, at) => {
      nodes.forEach((n, i) => {
        const id = str(obj(n, at(i)).id, `${at(i)}.id`);
        held.keep(id);
        ids.push(id);
      });
    });
    ids.sort();
    const rot = await client.get('/api/v2/vega/keys/rotations', [['pagination.first', '1']], 'rotations', signal);
    const edges = arr(obj(obj(rot.json, 'body').rotations, 'rotations').edges, 'rotations.edges');
    const latest = edges[0] ? obj(obj(edges[0], 'rotations.edges[0]').node, 'rotations.edges[0].node') : undefined;
    const digest = createHash('sha256')
      .update(ids.join(','))
      .update('|')
      .update(latest ? `${String(latest.nodeId)}/${String(latest.newPubKey)}/${String(latest.blockHeight)}` : 'none')
      .digest('hex')
      .slice(0, 16);
    return { samples: [], facts: new Facts().with(FINGERPRINT, digest).with(FINGERPRINT_HEIGHT, height !== undefined && height > 0n ? height : undefined) };
  },
};

export default defineCollector({
  name: 'consistency',
  scope: 'node',
  title: 'consistency collector (no series of its own: a digest of the market set and latest key rotation, compared across targets)',
  config: simpleCollectorConfig('60s', true),
  families: {},
  endpoints: { markets: MARKET_ROW, rotations: ROTATION_ROW },
  facts: [FINGERPRINT, FINGERPRINT_HEIGHT],
  create: () => consistencyCollector,
});
