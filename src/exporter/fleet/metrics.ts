/** What each target contributes to the fleet comparisons (made in Prometheus), and the whole catalogue. */
import { metricsOf, type MetricDef } from '../engine/metric.js';
import { SELF } from '../engine/self-metrics.js';
import { familiesOf, type Families } from '../engine/define.js';
import { COLLECTORS } from '../vega/collectors/index.js';

const T = ['target'] as const;
const metric = metricsOf('fleet', ' Computed by the exporter from polled values.');

/** The fleet signals' families, in exposition order (after every collector's). */
export const FLEET = {
  targetNetwork: metric('vega_target_network_info', [...T, 'network', 'group'], '')
    .source("the exporter (chain id from GET /statistics, or the target's configured network)")
    .help(
      'Which network a target belongs to, and the group its chain id is compared in (its configured network, or `*` for all targets without one); value always 1. Join a per-target series to its network with `* on (job, instance, target) group_left (network) vega_target_network_info`.',
    ),
  historySegmentLag: metric('vega_history_segment_lag_blocks', [...T, 'network'], 'blocks')
    .source(
      "the data node's height (GET /statistics header X-Block-Height, else statistics.blockHeight) minus the highest toHeight of GET /api/v2/networkhistory/segments",
    )
    .help("How many blocks the node's newest network-history segment trails its own height (0 when ahead); absent when either is unknown."),
  dataDigest: metric('vega_data_digest', T, '')
    .source('the consistency collector (market set and latest key rotation)')
    .help(
      "A 32-bit digest (FNV-1a) of the node's view of network data, as a value: equal values, equal data. Compared across a network's nodes by the recording rules (`count_values`).",
    ),
  dataDigestHeight: metric('vega_data_digest_height_blocks', T, 'blocks')
    .source('the consistency collector (header X-Block-Height of its requests)')
    .help('The data-node height at which vega_data_digest was taken: only nodes at about the same height are compared.'),
} as const satisfies Record<string, MetricDef>;
/** Every family the exporter can write, in exposition order: the collectors', then the fleet's, then its own. */
export function catalogueOf(collectors: readonly { families: Families }[]): MetricDef[] {
  return [...new Set([...collectors.flatMap(familiesOf), ...Object.values(FLEET), ...Object.values(SELF)])];
}

/** The catalogue of every registered collector. */
export const CATALOGUE: readonly MetricDef[] = catalogueOf(COLLECTORS);
