/**
 * GET /api/v2/info → the data node's own version. `vega_build_info` carries the core's version
 * (statistics.appVersion); a data node upgraded apart from its core, or left behind in a fleet,
 * shows only here.
 */
import { simpleCollectorConfig } from '../../engine/fields.js';
import { M, ownedBy } from '../../engine/catalogue.js';
import { obj, str } from '../convert.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector, NodeFacts } from '../../engine/types.js';

/** The version the fleet compares across a network's data nodes. */
export function datanodeInfoFacts(body: unknown): NodeFacts {
  return { datanodeVersion: str(obj(body, 'body').version, 'version') };
}

export function datanodeInfoSamples(target: string, body: unknown): Sample[] {
  const b = obj(body, 'body');
  return [{ metric: M.datanodeBuildInfo, values: [target, str(b.version, 'version'), str(b.commitHash, 'commitHash')], value: 1 }];
}

export const datanodeInfoCollector: Collector = {
  async collect({ target, client, signal }) {
    const res = await client.get('/api/v2/info', [], 'info', signal);
    return { samples: datanodeInfoSamples(target, res.json), facts: datanodeInfoFacts(res.json) };
  },
};

export default defineCollector({
  name: 'datanode_info',
  scope: 'node',
  // A version changes only on an upgrade: once a minute is plenty, and the answer is ~100 bytes.
  title: 'datanode_info collector (`GET /api/v2/info`, every 60 s by default)',
  config: simpleCollectorConfig('60s', true),
  metrics: ownedBy('datanode_info'),
  create: () => datanodeInfoCollector,
});
