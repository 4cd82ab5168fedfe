/**
 * GET /api/v2/info → the data node's own version. `vega_build_info` carries the core's version
 * (statistics.appVersion); a data node upgraded apart from its core, or left behind in a fleet,
 * shows only here.
 */
import { simpleCollectorConfig } from '../../engine/fields.js';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { obj, str } from '../convert.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector } from '../../engine/types.js';
import { Facts } from '../../engine/facts.js';
import { DATANODE_VERSION } from '../facts.js';

const T = ['target'] as const;
const metric = metricsOf('datanode_info');

/** The families this collector writes, in exposition order. */
export const M = {
  datanodeBuildInfo: metric('vega_datanode_build_info', [...T, 'version', 'commit_hash'], '')
    .source('GET /api/v2/info version, commitHash')
    .help("The data node's own software version and commit (vega_build_info carries the core's); value always 1."),
} as const satisfies Record<string, MetricDef>;

/** The version the fleet compares across a network's data nodes. */
export function datanodeInfoFacts(body: unknown): Facts {
  return new Facts().with(DATANODE_VERSION, str(obj(body, 'body').version, 'version'));
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
  families: M,
  facts: [DATANODE_VERSION],
  create: () => datanodeInfoCollector,
});
