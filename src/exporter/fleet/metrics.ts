/** The fleet's cross-target series, computed from polled values, and the whole catalogue. */
import { metricsOf, type MetricDef } from '../engine/metric.js';
import { SELF } from '../engine/self-metrics.js';
import { familiesOf, type Families } from '../engine/define.js';
import { COLLECTORS } from '../vega/collectors/index.js';

const N = ['network'] as const;
const T = ['target'] as const;
const metric = metricsOf('fleet', ' Computed by the exporter from polled values.');

/** The fleet signals' families, in exposition order (after every collector's). */
export const FLEET = {
  targetNetwork: metric('vega_target_network_info', [...T, 'network'], '')
    .source("the exporter (chain id from GET /statistics, or the target's configured network)")
    .help(
      'Which network a target belongs to; value always 1. Join a per-target series to its network with `* on (target) group_left (network) vega_target_network_info`.',
    ),
  networkHealthyTargets: metric('vega_network_healthy_targets', N, 'targets')
    .source('the exporter (targets whose last statistics poll succeeded)')
    .help('Healthy targets per network.'),
  fleetHeightLag: metric('vega_fleet_block_height_lag_blocks', [...T, 'network'], 'blocks')
    .source("GET /statistics statistics.blockHeight, vegaTime, currentTime and blockDuration across the network's targets")
    .help(
      "How far this target's core height trails the highest among its network's healthy targets, each carried to the network's newest poll (docs/fleet.md).",
    ),
  fleetChainIdMismatch: metric('vega_fleet_chain_id_mismatch', [...T, 'group'], '')
    .source('GET /statistics statistics.chainId across targets')
    .help("Whether the target's chain id differs from the majority of its group (the configured network, or all targets without one)."),
  fleetVersionMismatch: metric('vega_fleet_version_mismatch', [...T, 'network'], '')
    .source("GET /statistics statistics.appVersion across the network's targets")
    .help("Whether the target's app version differs from the majority of its network."),
  fleetDatanodeVersionMismatch: metric('vega_fleet_datanode_version_mismatch', [...T, 'network'], '')
    .source("GET /api/v2/info version across the network's targets")
    .help("Whether the target's data-node version differs from the majority of its network (the core's version is vega_fleet_version_mismatch)."),
  historySegmentLag: metric('vega_history_segment_lag_blocks', [...T, 'network'], 'blocks')
    .source(
      "the data node's height (GET /statistics header X-Block-Height, else statistics.blockHeight) minus the highest toHeight of GET /api/v2/networkhistory/segments",
    )
    .help("How many blocks the node's newest network-history segment trails its own height (0 when ahead); absent when either is unknown."),
  fleetDataAgreement: metric('vega_fleet_data_agreement', [...T, 'network'], '')
    .source("the consistency collector (market set and latest key rotation) across the network's targets")
    .help("Whether the target's view of network data matches the majority of its network at about the same height (1) or not (0); absent when not comparable."),
} as const satisfies Record<string, MetricDef>;
/** Every family the exporter can write, in exposition order: the collectors', then the fleet's, then its own. */
export function catalogueOf(collectors: readonly { families: Families }[]): MetricDef[] {
  return [...new Set([...collectors.flatMap(familiesOf), ...Object.values(FLEET), ...Object.values(SELF)])];
}

/** The catalogue of every registered collector. */
export const CATALOGUE: readonly MetricDef[] = catalogueOf(COLLECTORS);
