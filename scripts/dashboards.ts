/**
 * The Grafana dashboards, defined once here and written to grafana/*.json by
 * `npm run dashboards`. Tests check the JSON files are current and fit Grafana's schema
 * (test/kit/dashboards.test.ts); the end-to-end test runs every panel's query against a real Prometheus.
 */
import { sloPanel } from './slo.js';
/** A threshold step: from `value` up (the first step is the base, value null), values take `color`. */
export interface Step {
  color: string;
  value: number | null;
}

/** A value mapping, in Grafana's shape: exact values, or a special value (no data), to a word and a colour. */
export type Mapping =
  | { type: 'value'; options: Record<string, { text: string; color: string; index: number }> }
  | { type: 'special'; options: { match: 'null' | 'nan' | 'null+nan'; result: { text: string; color: string; index: number } } };

/** How a value reads at a glance: its colour (thresholds) and, for states and counts, its word (mappings). */
export interface Display {
  thresholds: Step[];
  mappings: Mapping[];
}

export interface Query {
  expr: string;
  legend?: string;
  instant?: boolean;
  /** This query's own colours and words, where they differ from the panel's (a table column, one stat of several). */
  display?: Display;
  /** A table column's unit, where it differs from the panel's. */
  unit?: string;
  /** A table query whose value is always 1 (an info series): only its labels are shown. */
  labelsOnly?: boolean;
}

interface BasePanel {
  title: string;
  description: string;
  unit: string;
  exprs: Query[];
  w?: number;
  h?: number;
}

/**
 * Stat and state-timeline panels show states and counts to be read at a glance, so they must say
 * what is good and bad (the type requires it; test/kit/dashboards.test.ts checks the JSON).
 * Time series may draw their alert thresholds as dashed lines (no words: a line's values stay numbers).
 */
export type Panel =
  | (BasePanel & { type: 'stat' | 'state-timeline'; display: Display })
  | (BasePanel & { type: 'timeseries'; thresholds?: Step[] })
  | (BasePanel & { type: 'table' });

export interface Dashboard {
  uid: string;
  title: string;
  description: string;
  vars: ('target' | 'network')[];
  panels: Panel[];
}

const T = 'job=~"$job", instance=~"$instance", target=~"$target"';
const N = 'job=~"$job", instance=~"$instance", network=~"$network"';
/** Recording rules (prometheus/alerts.yml) span every exporter: filtered by data node and network only. */
const R = 'target=~"$target", network=~"$network"';
const SLO_PANEL = sloPanel();
/** Scrape labels only: for per-target series joined to their network (vega_target_network_info). */
const J = 'job=~"$job", instance=~"$instance"';

const steps = (base: string, ...above: [number, string][]): Step[] => [{ color: base, value: null }, ...above.map(([value, color]) => ({ color, value }))];
/** Words for exact values, in order; a missing value reads "no data". */
function words(values: [number, string, string][], noData = 'no data'): Mapping[] {
  const noDataMapping: Mapping = { type: 'special', options: { match: 'null+nan', result: { text: noData, color: 'text', index: values.length } } };
  if (values.length === 0) return [noDataMapping];
  return [{ type: 'value', options: Object.fromEntries(values.map(([v, text, color], index) => [String(v), { text, color, index }])) }, noDataMapping];
}

/** 1 up, 0 down (vega_up). */
const UP: Display = {
  thresholds: steps('red', [1, 'green']),
  mappings: words([
    [0, 'down', 'red'],
    [1, 'up', 'green'],
  ]),
};
/** 1 ok, 0 failed (collector success). */
const SUCCESS: Display = {
  thresholds: steps('red', [1, 'green']),
  mappings: words([
    [0, 'failed', 'red'],
    [1, 'ok', 'green'],
  ]),
};
/** A count of things in trouble: none is good. */
const NONE_GOOD: Display = { thresholds: steps('green', [1, 'red']), mappings: words([[0, 'none', 'green']]) };
/** A count of things that should be there: none is bad. */
const NONE_BAD: Display = { thresholds: steps('red', [1, 'green']), mappings: words([[0, 'none', 'red']]) };
/** Markets in an auction of any kind: a new market's opening auction is normal, so amber, not red. */
const AUCTION: Display = { thresholds: steps('green', [1, 'orange']), mappings: words([[0, 'none', 'green']]) };
/** Markets in a monitoring auction (price or liquidity): the market does not trade continuously. */
const MONITORING_AUCTION: Display = { thresholds: steps('green', [1, 'red']), mappings: words([[0, 'none', 'green']]) };
/** A limit flag: 1 means per-market series are not exported. */
const CUT_OFF: Display = {
  thresholds: steps('green', [1, 'red']),
  mappings: words([
    [0, 'all exported', 'green'],
    [1, 'cut off', 'red'],
  ]),
};
/** A list walk flag: 1 means it stopped at the page cap or on a cursor loop. */
const TRUNCATED: Display = {
  thresholds: steps('green', [1, 'red']),
  mappings: words([
    [0, 'complete', 'green'],
    [1, 'truncated', 'red'],
  ]),
};
/** A plain number with no good or bad (an epoch, a total): one neutral colour. */
const NEUTRAL: Display = { thresholds: steps('blue'), mappings: words([]) };
/**
 * Blocks behind (core behind the fleet, data node behind core): amber from 10 (the stricter
 * operator tooling's threshold, about 10 s at a block a second), red at the alerts' 150.
 */
const LAG_BLOCKS: Display = { thresholds: steps('green', [10, 'orange'], [150, 'red']), mappings: words([[0, 'in step', 'green']]) };
/** Block-time staleness in seconds: amber from 10 s, red at the alert's 120 s. */
const STALENESS: Display = { thresholds: steps('green', [10, 'orange'], [120, 'red']), mappings: words([]) };
/** History segment lag: amber past one mainnet segment interval (1000 blocks), red at the alert's 3000. */
const SEGMENT_LAG: Display = { thresholds: steps('green', [1000, 'orange'], [3000, 'red']), mappings: words([]) };
/** Consensus peers: none is critical, under 3 a warning (the alerts' thresholds). */
const PEERS: Display = { thresholds: steps('red', [1, 'orange'], [3, 'green']), mappings: words([[0, 'none', 'red']]) };
/** Core uptime in seconds: a restart in the last 5 minutes is red, in the last hour amber. */
const UPTIME: Display = { thresholds: steps('red', [300, 'orange'], [3600, 'green']), mappings: words([]) };
/** A monitoring auction's age in seconds: red past the alert's hour. */
const AUCTION_AGE: Display = { thresholds: steps('green', [600, 'orange'], [3600, 'red']), mappings: words([]) };
/** Supplied stake over target stake: under 1 (100 %) the market lacks committed liquidity. */
const STAKE_RATIO: Display = { thresholds: steps('red', [1, 'green']), mappings: words([]) };

export const DASHBOARDS: Dashboard[] = [
  {
    uid: 'vega-dn-fleet',
    title: 'Vega data nodes / Fleet overview',
    description: 'Every watched data node side by side: which one is behind, which one disagrees.',
    vars: ['target', 'network'],
    panels: [
      {
        title: 'Targets up',
        type: 'stat',
        unit: 'short',
        description:
          'Data nodes whose last statistics poll succeeded, and those whose did not (vega_up); a node watched by several exporters counts once, up if any of them reaches it.',
        display: NONE_GOOD,
        exprs: [
          { expr: `count(max by (target) (vega_up{${T}}) == 1) or vector(0)`, legend: 'up', instant: true, display: NONE_BAD },
          { expr: `count(max by (target) (vega_up{${T}}) == 0) or vector(0)`, legend: 'down', instant: true },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Chain or version disagreement',
        type: 'stat',
        unit: 'short',
        description:
          "Targets whose chain id, core version or data node's own version (GET /api/v2/info) differs from the majority of their group or network (recording rules over every exporter).",
        display: NONE_GOOD,
        exprs: [
          { expr: `count(max by (target) (group_target:vega_chain_id_mismatch:bool{target=~"$target"}) == 1) or vector(0)`, legend: 'chain id', instant: true },
          { expr: `count(max by (target) (network_target:vega_version_mismatch:bool{${R}}) == 1) or vector(0)`, legend: 'version', instant: true },
          {
            expr: `count(max by (target) (network_target:vega_datanode_version_mismatch:bool{${R}}) == 1) or vector(0)`,
            legend: 'data-node version',
            instant: true,
          },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Data disagreement',
        type: 'stat',
        unit: 'short',
        description:
          'Targets whose view of network data (market set, latest key rotation) differs from the majority at about the same height (network_target:vega_data_agreement:bool).',
        display: NONE_GOOD,
        exprs: [{ expr: `count(min by (target) (network_target:vega_data_agreement:bool{${R}}) == 0) or vector(0)`, legend: 'disagreeing', instant: true }],
        w: 6,
        h: 5,
      },
      {
        title: 'Failing collectors',
        type: 'stat',
        unit: 'short',
        description:
          'Collectors whose last poll failed: per data node (datanode_exporter_collector_success == 0) and per network (datanode_exporter_network_collector_success == 0); one failing in any exporter counts once.',
        display: NONE_GOOD,
        exprs: [
          { expr: `count(min by (target, collector) (datanode_exporter_collector_success{${T}}) == 0) or vector(0)`, legend: 'node', instant: true },
          {
            expr: `count(min by (network, collector) (datanode_exporter_network_collector_success{${N}}) == 0) or vector(0)`,
            legend: 'network',
            instant: true,
          },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Fleet',
        type: 'table',
        unit: 'short',
        w: 24,
        h: 9,
        description:
          "One row per target: up, core height, lag behind the fleet, data-node lag, consensus peers, block-time staleness, lowest collector success, versions. Amber and red: the alerts' thresholds.",
        exprs: [
          { expr: `max by (target) (vega_up{${T}})`, legend: 'up', instant: true, display: UP },
          { expr: `max by (target) (vega_block_height{${T}})`, legend: 'height', instant: true },
          { expr: `max by (target) (network_target:vega_block_height_lag_blocks:max{${R}})`, legend: 'behind fleet', instant: true, display: LAG_BLOCKS },
          { expr: `max by (target) (vega_datanode_lag_blocks{${T}})`, legend: 'data-node lag', instant: true, display: LAG_BLOCKS },
          { expr: `max by (target) (vega_peers{${T}})`, legend: 'peers', instant: true, display: PEERS },
          { expr: `max by (target) (vega_block_time_staleness_seconds{${T}})`, legend: 'staleness', instant: true, display: STALENESS, unit: 's' },
          { expr: `min by (target) (datanode_exporter_collector_success{${T}})`, legend: 'collectors', instant: true, display: SUCCESS },
          { expr: `max by (target, app_version) (vega_build_info{${T}})`, legend: 'version', instant: true, labelsOnly: true },
          { expr: `max by (target, version) (vega_datanode_build_info{${T}})`, legend: 'data-node version', instant: true, labelsOnly: true },
        ],
      },
      {
        title: 'Block height behind the fleet',
        type: 'timeseries',
        unit: 'short',
        description:
          "Blocks each target's core trails the highest answering node of its network, over every exporter (network_target:vega_block_height_lag_blocks:max); alert above 150.",
        thresholds: LAG_BLOCKS.thresholds,
        exprs: [{ expr: `max by (target) (network_target:vega_block_height_lag_blocks:max{${R}})`, legend: '{{target}}' }],
      },
      {
        title: 'Answering nodes per network',
        type: 'timeseries',
        unit: 'short',
        description:
          'Nodes of each network whose last statistics poll succeeded, each counted once however many exporters (shards, replicas) watch it (network:vega_healthy_targets:sum).',
        exprs: [{ expr: 'max by (network) (network:vega_healthy_targets:sum{network=~"$network"})', legend: '{{network}}' }],
      },
      {
        // Generated from prometheus/slos.yml, as the SLO rules and alerts are (scripts/slo.ts).
        title: SLO_PANEL.title,
        type: 'timeseries',
        unit: 'percentunit',
        description: SLO_PANEL.description,
        exprs: [{ expr: SLO_PANEL.expr, legend: '{{target}} {{class}} {{slo}}' }],
      },
      {
        title: 'Data-node lag behind core',
        type: 'timeseries',
        unit: 'short',
        description: "Blocks the data node's own height (X-Block-Height) trails its core (vega_datanode_lag_blocks); alert above 150.",
        thresholds: LAG_BLOCKS.thresholds,
        exprs: [{ expr: `max by (target) (vega_datanode_lag_blocks{${T}})`, legend: '{{target}}' }],
      },
      {
        title: 'History segment lag',
        type: 'timeseries',
        unit: 'short',
        description:
          "Blocks between the data node's own height and the end of its newest network-history segment (vega_history_segment_lag_blocks); saws between 0 and one segment interval; alert above 3000.",
        thresholds: SEGMENT_LAG.thresholds,
        exprs: [{ expr: `max by (target) (vega_history_segment_lag_blocks{${T}})`, legend: '{{target}}' }],
      },
      {
        title: 'Block-time staleness',
        type: 'timeseries',
        unit: 's',
        description: "Core's clock minus the current block's time (vega_block_time_staleness_seconds); grows when the chain halts; alert above 120 s.",
        thresholds: STALENESS.thresholds,
        exprs: [{ expr: `max by (target) (vega_block_time_staleness_seconds{${T}})`, legend: '{{target}}' }],
      },
      {
        title: 'Consensus peers',
        type: 'timeseries',
        unit: 'short',
        description: 'Consensus peers per node (vega_peers); alert under 3, critical at 0.',
        thresholds: PEERS.thresholds,
        exprs: [{ expr: `max by (target) (vega_peers{${T}})`, legend: '{{target}}' }],
      },
      {
        title: 'Blocks per second',
        type: 'timeseries',
        unit: 'short',
        description: 'Rate of change of core block height; 0 means the chain or the node is halted.',
        exprs: [{ expr: `max by (target) (rate(vega_block_height{${T}}[$__rate_interval]))`, legend: '{{target}}' }],
      },
      {
        title: 'Validators',
        type: 'timeseries',
        unit: 'short',
        description:
          'Validators per network and set (vega_network_validators: all, tendermint, ersatz, pending) and the inactive ones (vega_network_validators_inactive); alert when the consensus set shrinks or an inactive one appears.',
        exprs: [
          { expr: `max by (network, set) (vega_network_validators{${N}})`, legend: '{{network}} {{set}}' },
          { expr: `max by (network) (vega_network_validators_inactive{${N}, set="all"})`, legend: '{{network}} inactive' },
        ],
      },
      {
        title: 'Epoch and stake',
        type: 'table',
        unit: 'short',
        description:
          "Current epoch (the highest vega_epoch among the network's nodes, joined to its network by vega_target_network_info), its expected expiry and the stake on all validators in whole tokens, per network (vega_network_epoch_timestamp_seconds, vega_network_stake).",
        exprs: [
          {
            expr: `max by (network) (vega_epoch{${J}} * on (job, instance, target) group_left (network) vega_target_network_info{${N}})`,
            legend: 'epoch',
            instant: true,
          },
          {
            expr: `max by (network) (vega_network_epoch_timestamp_seconds{${N}, event="expiry"}) - time()`,
            legend: 'expires in',
            instant: true,
            unit: 's',
          },
          { expr: `max by (network) (vega_network_stake{${N}})`, legend: 'stake', instant: true },
        ],
      },
      {
        title: 'Collector health',
        type: 'state-timeline',
        unit: 'short',
        description:
          "Success of each collector's last poll, per data node and per network (datanode_exporter_collector_success, datanode_exporter_network_collector_success): red where any exporter failed it.",
        display: SUCCESS,
        exprs: [
          { expr: `min by (target, collector) (datanode_exporter_collector_success{${T}})`, legend: '{{target}} {{collector}}' },
          { expr: `min by (network, collector) (datanode_exporter_network_collector_success{${N}})`, legend: '{{network}} {{collector}}' },
        ],
        w: 24,
      },
    ],
  },
  {
    uid: 'vega-dn-node',
    title: 'Vega data nodes / Node detail',
    description: "One data node in depth: chain progress, load, network history and the exporter's view of it.",
    vars: ['target'],
    panels: [
      {
        title: 'Data node up',
        type: 'stat',
        unit: 'short',
        description: "Whether the exporter's last statistics poll of the node succeeded (vega_up); alert after 2 minutes down.",
        display: UP,
        exprs: [{ expr: `max by (target) (vega_up{${T}})`, legend: '{{target}}', instant: true }],
        w: 8,
      },
      {
        title: 'Epoch',
        type: 'stat',
        unit: 'short',
        description: 'Current epoch number (vega_epoch).',
        display: NEUTRAL,
        exprs: [{ expr: `max by (target) (vega_epoch{${T}})`, legend: '{{target}}', instant: true }],
        w: 8,
      },
      {
        title: 'Core uptime',
        type: 'stat',
        unit: 's',
        description: 'Time since the core process started (now minus vega_core_start_timestamp_seconds); red for 5 minutes after a restart, amber for an hour.',
        display: UPTIME,
        exprs: [{ expr: `time() - max by (target) (vega_core_start_timestamp_seconds{${T}})`, legend: '{{target}}', instant: true }],
        w: 8,
      },
      {
        title: 'Core block height',
        type: 'timeseries',
        unit: 'short',
        description: "statistics.blockHeight (vega_block_height) and the data node's own height (vega_datanode_block_height).",
        exprs: [
          { expr: `vega_block_height{${T}}`, legend: 'core {{target}}' },
          { expr: `vega_datanode_block_height{${T}}`, legend: 'data node {{target}}' },
        ],
      },
      {
        title: 'Block duration',
        type: 'timeseries',
        unit: 's',
        description: 'Time between the last two blocks (vega_block_duration_seconds); 2 s or less is good.',
        exprs: [{ expr: `vega_block_duration_seconds{${T}}`, legend: '{{target}}' }],
      },
      {
        title: 'Transactions per block',
        type: 'timeseries',
        unit: 'short',
        description: 'statistics.txPerBlock and the mempool backlog.',
        exprs: [
          { expr: `vega_block_transactions{${T}}`, legend: 'in block {{target}}' },
          { expr: `vega_backlog_transactions{${T}}`, legend: 'backlog {{target}}' },
        ],
      },
      {
        title: 'Orders and trades per second',
        type: 'timeseries',
        unit: 'ops',
        description: 'Rates of the order and trade counters (reset when core restarts; rate() handles it).',
        exprs: [
          { expr: `rate(vega_chain_orders_total{${T}}[$__rate_interval])`, legend: 'orders {{target}}' },
          { expr: `rate(vega_chain_trades_total{${T}}[$__rate_interval])`, legend: 'trades {{target}}' },
        ],
      },
      {
        title: 'Events per block',
        type: 'timeseries',
        unit: 'short',
        description: 'Events emitted in the last block (vega_block_events).',
        exprs: [{ expr: `vega_block_events{${T}}`, legend: '{{target}}' }],
      },
      {
        title: 'Network-history peers',
        type: 'timeseries',
        unit: 'short',
        description: 'Distinct network-history peers and whether the service is up.',
        exprs: [
          { expr: `vega_network_history_connected_peers{${T}}`, legend: 'peers {{target}}' },
          { expr: `vega_network_history_up{${T}}`, legend: 'up {{target}}' },
        ],
      },
      {
        title: 'Network-history segments',
        type: 'timeseries',
        unit: 'short',
        description:
          'Segments the node lists (vega_history_segments) and the last block of the newest (vega_history_segment_latest_to_height): a flat line while the height moves means production stopped.',
        exprs: [
          { expr: `vega_history_segments{${T}}`, legend: 'segments {{target}}' },
          { expr: `vega_history_segment_latest_to_height{${T}}`, legend: 'newest to-height {{target}}' },
        ],
      },
      {
        title: 'Data-node version',
        type: 'table',
        unit: 'short',
        description: "The data node's own version and commit (vega_datanode_build_info, GET /api/v2/info) beside the core's (vega_build_info).",
        exprs: [
          { expr: `max by (target, version, commit_hash) (vega_datanode_build_info{${T}})`, legend: 'data node', instant: true, labelsOnly: true },
          { expr: `max by (target, app_version) (vega_build_info{${T}})`, legend: 'core', instant: true, labelsOnly: true },
        ],
      },
      {
        title: 'Chain status',
        type: 'table',
        unit: 'short',
        description: 'The current chain status (vega_chain_status == 1).',
        exprs: [{ expr: `max by (target, status) (vega_chain_status{${T}}) == 1`, legend: '{{status}}', instant: true, labelsOnly: true }],
      },
      {
        title: 'Upstream requests',
        type: 'timeseries',
        unit: 'reqps',
        description: 'Requests the exporter sends to the node, by endpoint and HTTP status.',
        exprs: [
          {
            expr: `sum by (target, endpoint, status) (rate(datanode_exporter_upstream_requests_total{${T}}[$__rate_interval]))`,
            legend: '{{endpoint}} {{status}}',
          },
        ],
      },
      {
        title: 'Poll duration',
        type: 'timeseries',
        unit: 's',
        description: "Duration of each collector's last poll (datanode_exporter_collector_duration_seconds).",
        exprs: [{ expr: `datanode_exporter_collector_duration_seconds{${T}}`, legend: '{{collector}}' }],
      },
      {
        title: 'Data age',
        type: 'timeseries',
        unit: 's',
        description: 'Seconds since each collector last succeeded.',
        exprs: [{ expr: `time() - datanode_exporter_collector_last_success_timestamp_seconds{${T}}`, legend: '{{collector}}' }],
      },
    ],
  },
  {
    uid: 'vega-dn-keys',
    title: 'Vega data nodes / Validator key rotations',
    description: 'Key rotations per validator over the whole history, and new ones as they happen.',
    vars: ['network'],
    panels: [
      {
        title: 'Rotations per validator',
        type: 'table',
        unit: 'short',
        w: 24,
        description: 'Key rotations recorded per validator node over the whole history (vega_key_rotations_total) and the block height of the last one.',
        exprs: [
          { expr: `max by (network, node_id) (vega_key_rotations_total{${N}})`, legend: 'rotations', instant: true },
          { expr: `max by (network, node_id) (vega_key_rotation_last_block_height{${N}})`, legend: 'last height', instant: true },
        ],
      },
      {
        title: 'Rotations in the interval',
        type: 'timeseries',
        unit: 'short',
        description: 'New rotations per validator (increase of vega_key_rotations_total).',
        exprs: [{ expr: `max by (network, node_id) (increase(vega_key_rotations_total{${N}}[$__rate_interval]))`, legend: '{{node_id}}' }],
      },
      {
        title: 'Total rotations',
        type: 'stat',
        unit: 'short',
        description: 'All rotations in the history of the network.',
        display: NEUTRAL,
        exprs: [{ expr: `sum by (network) (max by (network, node_id) (vega_key_rotations_total{${N}}))`, legend: '{{network}}', instant: true }],
      },
      {
        title: 'Key-rotation collector',
        type: 'state-timeline',
        unit: 'short',
        description: 'Success of the network-scoped key-rotation poll and whether its walk was truncated (red: alert after 30 minutes).',
        display: SUCCESS,
        exprs: [
          { expr: `min by (network) (datanode_exporter_network_collector_success{${N}, collector="key_rotations"})`, legend: '{{network}} success' },
          {
            expr: `max by (network) (datanode_exporter_network_pagination_truncated{${N}, collector="key_rotations"})`,
            legend: '{{network}} truncated',
            display: TRUNCATED,
          },
        ],
      },
    ],
  },
  {
    uid: 'vega-dn-markets',
    title: 'Vega data nodes / Markets',
    description: "Markets of the network by state and trading mode, and each market's parameters.",
    vars: ['network'],
    panels: [
      {
        title: 'Markets by state',
        type: 'timeseries',
        unit: 'short',
        description: 'Number of markets per state (vega_markets); 0 for known states with none.',
        exprs: [{ expr: `max by (network, state) (vega_markets{${N}}) > 0`, legend: '{{network}} {{state}}' }],
      },
      {
        title: 'Markets by trading mode',
        type: 'timeseries',
        unit: 'short',
        description: 'Number of markets per trading mode (vega_markets_by_trading_mode).',
        exprs: [{ expr: `max by (network, trading_mode) (vega_markets_by_trading_mode{${N}}) > 0`, legend: '{{network}} {{trading_mode}}' }],
      },
      {
        title: 'Markets in auction',
        type: 'stat',
        unit: 'short',
        description:
          "Markets in an opening or monitoring auction (amber: a new market's opening auction is normal; the markets health dashboard has the monitoring auctions).",
        display: AUCTION,
        exprs: [
          {
            expr: `sum by (network) (max by (network, trading_mode) (vega_markets_by_trading_mode{${N}, trading_mode=~"TRADING_MODE_(OPENING|MONITORING)_AUCTION"}))`,
            legend: '{{network}}',
            instant: true,
          },
        ],
      },
      {
        title: 'Per-market series cut off',
        type: 'stat',
        unit: 'short',
        description: 'Whether there are more markets than collectors.markets.max_markets (cut off: per-market series are not exported).',
        display: CUT_OFF,
        exprs: [{ expr: `max by (network) (datanode_exporter_markets_over_limit{${N}})`, legend: '{{network}}', instant: true }],
      },
      {
        title: 'Markets',
        type: 'table',
        unit: 'short',
        w: 24,
        h: 10,
        description: 'Each market: code, product, state and trading mode.',
        exprs: [
          { expr: `max by (network, market_id, code, product, quote_name) (vega_market_info{${N}})`, legend: 'info', instant: true, labelsOnly: true },
          { expr: `max by (network, market_id, state) (vega_market_state{${N}} == 1)`, legend: 'state', instant: true, labelsOnly: true },
          { expr: `max by (network, market_id, trading_mode) (vega_market_trading_mode{${N}} == 1)`, legend: 'mode', instant: true, labelsOnly: true },
        ],
      },
      {
        title: 'Liquidity fee factor',
        type: 'timeseries',
        unit: 'percentunit',
        description: 'Liquidity fee factor per market (vega_market_fee_factor{fee="liquidity"}).',
        exprs: [
          {
            expr: `max by (network, market_id) (vega_market_fee_factor{${N}, fee="liquidity"}) * on (network, market_id) group_left (code) max by (network, market_id, code) (vega_market_info{${N}})`,
            legend: '{{code}}',
          },
        ],
      },
    ],
  },
  {
    uid: 'vega-dn-marketshealth',
    title: 'Vega data nodes / Markets health',
    description: 'Live market health from GET /api/v2/markets/data: auctions, liquidity stake against target, prices that stopped moving.',
    vars: ['network'],
    panels: [
      {
        title: 'Markets in monitoring auction',
        type: 'stat',
        unit: 'short',
        description:
          'Markets whose live trading mode is a monitoring (price or liquidity) auction (vega_market_data_trading_mode): they do not trade continuously.',
        display: MONITORING_AUCTION,
        exprs: [
          {
            expr: `count(max by (network, market_id) (vega_market_data_trading_mode{${N}, trading_mode="TRADING_MODE_MONITORING_AUCTION"}) == 1) or vector(0)`,
            legend: 'in auction',
            instant: true,
          },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Stake below target',
        type: 'stat',
        unit: 'short',
        description: 'Markets whose supplied liquidity stake is under their target stake (vega_market_stake); alert after 15 minutes.',
        display: NONE_GOOD,
        exprs: [
          {
            expr: `count(max by (network, market_id) (vega_market_stake{${N}, kind="supplied"} < ignoring (kind) vega_market_stake{${N}, kind="target"})) or vector(0)`,
            legend: 'under target',
            instant: true,
          },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Mark price unchanged for 30 minutes',
        type: 'stat',
        unit: 'short',
        description: 'Continuous markets whose mark price has not changed in 30 minutes (changes() of vega_market_data_price{kind="mark"}).',
        display: NONE_GOOD,
        exprs: [
          {
            expr: `count(max by (network, market_id) (changes(vega_market_data_price{${N}, kind="mark"}[30m]) == 0 and on (job, instance, network, market_id) vega_market_data_trading_mode{${N}, trading_mode="TRADING_MODE_CONTINUOUS"} == 1)) or vector(0)`,
            legend: 'stale',
            instant: true,
          },
        ],
        w: 6,
        h: 5,
      },
      {
        title: 'Market-data series cut off',
        type: 'stat',
        unit: 'short',
        description: 'Whether there are more markets than collectors.market_data.max_markets (cut off: per-market series are not exported).',
        display: CUT_OFF,
        exprs: [{ expr: `max by (network) (datanode_exporter_market_data_over_limit{${N}})`, legend: '{{network}}', instant: true }],
        w: 6,
        h: 5,
      },
      {
        title: 'Auction age',
        type: 'table',
        unit: 's',
        w: 24,
        description:
          'Markets in an auction and how long since it started (vega_market_auction_timestamp_seconds{event="start"}), with its trigger; alert when a monitoring auction passes an hour.',
        exprs: [
          {
            expr: `time() - max by (network, market_id) (vega_market_auction_timestamp_seconds{${N}, event="start"})`,
            legend: 'age',
            instant: true,
            display: AUCTION_AGE,
          },
          {
            expr: `max by (network, market_id, trigger, extension_trigger) (vega_market_auction_trigger_info{${N}})`,
            legend: 'trigger',
            instant: true,
            labelsOnly: true,
          },
        ],
      },
      {
        title: 'Supplied stake / target stake',
        type: 'timeseries',
        unit: 'percentunit',
        description: 'Supplied liquidity stake as a share of target stake per market; under 100 % the market lacks committed liquidity.',
        thresholds: STAKE_RATIO.thresholds,
        exprs: [
          {
            expr: `max by (network, market_id) (vega_market_stake{${N}, kind="supplied"}) / max by (network, market_id) (vega_market_stake{${N}, kind="target"})`,
            legend: '{{market_id}}',
          },
        ],
      },
      {
        title: 'Mark price',
        type: 'timeseries',
        unit: 'short',
        description: 'Mark price per market in the market\'s price units (vega_market_data_price{kind="mark"}).',
        exprs: [{ expr: `max by (network, market_id) (vega_market_data_price{${N}, kind="mark"})`, legend: '{{market_id}}' }],
      },
      {
        title: 'Best bid/offer spread',
        type: 'timeseries',
        unit: 'short',
        description: 'Best offer minus best bid per market; absent or 0 in auctions (no book top).',
        exprs: [
          {
            expr: `max by (network, market_id) (vega_market_data_price{${N}, kind="best_offer"}) - max by (network, market_id) (vega_market_data_price{${N}, kind="best_bid"})`,
            legend: '{{market_id}}',
          },
        ],
      },
      {
        title: 'Open interest',
        type: 'timeseries',
        unit: 'short',
        description: 'Open interest per market, in contracts (vega_market_open_interest).',
        exprs: [{ expr: `max by (network, market_id) (vega_market_open_interest{${N}})`, legend: '{{market_id}}' }],
      },
      {
        title: 'Price-monitoring bounds',
        type: 'timeseries',
        unit: 'short',
        description: 'Min and max valid price per market and trigger horizon: trading outside starts a price auction.',
        exprs: [
          {
            expr: `max by (network, market_id, horizon, bound) (vega_market_price_monitoring_bound{${N}})`,
            legend: '{{market_id}} {{horizon}} {{bound}}',
          },
        ],
      },
    ],
  },
];

const DS = { type: 'prometheus', uid: '${datasource}' };

function variable(name: string, query: string, label: string): Record<string, unknown> {
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    query: { query, refId: `${name}-var` },
    refresh: 2,
    includeAll: true,
    multi: true,
    allValue: '.*',
    current: { text: 'All', value: '$__all' },
    sort: 1,
  };
}

/** A table's column for query `ref` after the merge: "Value" alone when there is one query. */
const tableValue = (p: Panel, ref: string): string => (p.exprs.length === 1 ? 'Value' : `Value #${ref}`);

function displayConfig(display: Display): { color: { mode: 'thresholds' }; thresholds: { mode: 'absolute'; steps: Step[] }; mappings: Mapping[] } {
  return { color: { mode: 'thresholds' }, thresholds: { mode: 'absolute', steps: display.thresholds }, mappings: display.mappings };
}

function fieldDefaults(p: Panel): Record<string, unknown> {
  switch (p.type) {
    case 'stat':
      return { unit: p.unit, ...displayConfig(p.display) };
    case 'state-timeline':
      return { unit: p.unit, ...displayConfig(p.display), custom: { fillOpacity: 80, lineWidth: 0 } };
    case 'timeseries': {
      const custom = { lineWidth: 1, fillOpacity: 10, showPoints: 'never' };
      if (!p.thresholds) return { unit: p.unit, custom };
      // Lines keep a colour per series; the thresholds are drawn as dashed lines.
      return { unit: p.unit, custom: { ...custom, thresholdsStyle: { mode: 'dashed' } }, thresholds: { mode: 'absolute', steps: p.thresholds } };
    }
    case 'table':
      return { unit: p.unit };
  }
}

/** A query's own name, unit, colours and words: a table column by its merged name, any other panel's series by query. */
function queryOverride(p: Panel, e: Query, ref: string): { matcher: { id: string; options: string }; properties: { id: string; value: unknown }[] }[] {
  const table = p.type === 'table';
  if (table && e.labelsOnly) return [];
  const properties: { id: string; value: unknown }[] = [];
  if (table && e.legend) properties.push({ id: 'displayName', value: e.legend });
  if (e.unit) properties.push({ id: 'unit', value: e.unit });
  if (e.display) {
    const c = displayConfig(e.display);
    properties.push({ id: 'color', value: c.color }, { id: 'thresholds', value: c.thresholds }, { id: 'mappings', value: c.mappings });
    if (table) properties.push({ id: 'custom.cellOptions', value: { type: 'color-text' } });
  }
  if (properties.length === 0) return [];
  return [{ matcher: table ? { id: 'byName', options: tableValue(p, ref) } : { id: 'byFrameRefID', options: ref }, properties }];
}

function panelOptions(p: Panel): Record<string, unknown> {
  switch (p.type) {
    case 'stat':
      return { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'none', textMode: 'auto' };
    case 'state-timeline':
      return {
        mergeValues: true,
        showValue: 'auto',
        alignValue: 'left',
        rowHeight: 0.9,
        legend: { showLegend: false, displayMode: 'list', placement: 'bottom', calcs: [] },
        tooltip: { mode: 'single', sort: 'none' },
      };
    case 'table':
      return { showHeader: true };
    case 'timeseries':
      return { legend: { showLegend: true, displayMode: 'list', placement: 'bottom', calcs: [] }, tooltip: { mode: 'multi', sort: 'none' } };
  }
}

export function renderDashboard(d: Dashboard): Record<string, unknown> {
  const templating = [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', hide: 0 },
    variable('job', 'label_values(vega_up, job)', 'Job'),
    variable('instance', 'label_values(vega_up{job=~"$job"}, instance)', 'Exporter'),
  ];
  if (d.vars.includes('target')) templating.push(variable('target', 'label_values(vega_up{job=~"$job", instance=~"$instance"}, target)', 'Data node'));
  if (d.vars.includes('network'))
    templating.push(variable('network', 'label_values(vega_target_network_info{job=~"$job", instance=~"$instance"}, network)', 'Network'));
  let x = 0;
  let y = 0;
  let rowH = 0;
  const panels = d.panels.map((p, i) => {
    const w = p.w ?? 12;
    const h = p.h ?? (p.type === 'stat' ? 5 : 8);
    if (x + w > 24) {
      x = 0;
      y += rowH;
      rowH = 0;
    }
    const gridPos = { x, y, w, h };
    x += w;
    rowH = Math.max(rowH, h);
    const table = p.type === 'table';
    const refId = (k: number): string => String.fromCharCode(65 + k);
    return {
      id: i + 1,
      type: p.type,
      title: p.title,
      description: p.description,
      datasource: DS,
      gridPos,
      fieldConfig: { defaults: fieldDefaults(p), overrides: p.exprs.flatMap((e, k) => queryOverride(p, e, refId(k))) },
      options: panelOptions(p),
      targets: p.exprs.map((e, k) => ({
        refId: refId(k),
        datasource: DS,
        expr: e.expr,
        legendFormat: e.legend ?? '',
        instant: e.instant ?? false,
        range: !(e.instant ?? false),
        ...(table ? { format: 'table' } : {}),
      })),
      ...(table
        ? {
            transformations: [
              { id: 'merge', options: {} },
              {
                id: 'organize',
                options: {
                  excludeByName: {
                    Time: true,
                    ...Object.fromEntries(p.exprs.flatMap((e, k) => (e.labelsOnly ? [[tableValue(p, refId(k)), true]] : []))),
                  },
                },
              },
            ],
          }
        : {}),
    };
  });
  return {
    uid: d.uid,
    title: d.title,
    description: d.description,
    tags: ['vega', 'datanode-exporter'],
    editable: true,
    graphTooltip: 1,
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    templating: { list: templating },
    annotations: { list: [] },
    links: [],
    panels,
  };
}

/** Every query of a dashboard with its template variables filled in, for running against Prometheus. */
export function concreteQueries(d: Dashboard, rateInterval = '1m'): { panel: string; expr: string }[] {
  return d.panels.flatMap((p) =>
    p.exprs.map((e) => ({
      panel: `${d.uid}/${p.title}`,
      expr: e.expr.replaceAll('$__rate_interval', rateInterval).replace(/\$(job|instance|target|network)\b/g, '.*'),
    })),
  );
}

export const dashboardFile = (d: Dashboard): string => `grafana/${d.uid}.json`;
