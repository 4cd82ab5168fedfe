/**
 * GET /api/v2/networkhistory → samples. The body carries the private swarm's keys: only the peer
 * list is read, and nothing from the body reaches a label, a log line or an error message.
 */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { simpleCollectorConfig } from '../../engine/fields.js';
import { arr, obj } from '../convert.js';
import { FieldError } from '../../errors.js';
import { isNetworkHistoryDisabled } from '../answers.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector } from '../../engine/types.js';

const T = ['target'] as const;
const metric = metricsOf('network_history');

/** The families this collector writes, in exposition order. */
export const M = {
  nhUp: metric('vega_network_history_up', T, '')
    .source('GET /api/v2/networkhistory')
    .help('Whether network history is serving (1) or disabled/unreachable (0).'),
  nhPeers: metric('vega_network_history_connected_peers', T, 'peers')
    .source('GET /api/v2/networkhistory connectedPeers (distinct)')
    .help('Distinct network-history peers connected.'),
  nhConnections: metric('vega_network_history_connections', T, 'connections')
    .source('GET /api/v2/networkhistory connectedPeers (entries)')
    .help('Network-history connections, one per entry (a peer may hold several).'),
} as const satisfies Record<string, MetricDef>;

export function networkHistorySamples(target: string, body: unknown): Sample[] {
  const peers = arr(obj(body, 'body').connectedPeers, 'connectedPeers');
  peers.forEach((p, i) => {
    if (typeof p !== 'string') throw new FieldError(`connectedPeers[${i}]`, 'a multiaddr string', p);
  });
  return [
    { metric: M.nhPeers, values: [target], value: new Set(peers).size },
    { metric: M.nhConnections, values: [target], value: peers.length },
  ];
}

export const networkHistoryCollector: Collector = {
  async collect({ target, client, signal }) {
    try {
      const res = await client.get('/api/v2/networkhistory', [], 'networkhistory', signal);
      return { samples: networkHistorySamples(target, res.json), up: 1 };
    } catch (err) {
      if (isNetworkHistoryDisabled(err))
        return {
          samples: [
            { metric: M.nhPeers, values: [target], value: 0 },
            { metric: M.nhConnections, values: [target], value: 0 },
          ],
          up: 0,
        };
      throw err;
    }
  },
};

export default defineCollector({
  name: 'network_history',
  scope: 'node',
  title: 'network_history collector (`GET /api/v2/networkhistory`, every 15 s by default)',
  families: M,
  config: simpleCollectorConfig('15s', true),
  upMetric: M.nhUp,
  create: () => networkHistoryCollector,
});
