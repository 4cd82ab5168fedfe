/**
 * The promtool tests of the cross-node recording rules and alerts (prometheus/fleet.test.yml):
 * one fleet, one timeline of faults, and the alerts expected from it written once; the same
 * series are then laid out as one exporter, three shards and two replicas (one of them missing
 * for five minutes), and every layout must give exactly those alerts. `npm run kit:sync` writes
 * the file; test/kit fails when it drifts from this one.
 */
import { stringify } from 'yaml';
import { runbookUrl } from './runbook.js';

const MINUTES = 45;
const NETWORK = 'main';
const base = (t: number): number => 1000 + 60 * t; // one block a second

type Timeline = (t: number) => number | undefined;
interface Node {
  name: string;
  up: Timeline;
  height: Timeline;
  chainId: (t: number) => string;
  appVersion: (t: number) => string;
  datanodeVersion: (t: number) => string;
  digest: Timeline;
}

const healthy = (name: string, o: Partial<Node> = {}): Node => ({
  name,
  up: () => 1,
  height: base,
  chainId: () => 'vega-main',
  appVersion: () => 'v0.79.0',
  datanodeVersion: () => 'v0.79.0',
  digest: () => 111,
  ...o,
});

/** The faults, each with its start and end minute. */
export const FLEET_NODES: Node[] = [
  healthy('a'),
  healthy('b'),
  // Halts at minute 2 and catches up at 15; its stale data are not compared (far below the median height).
  healthy('halted', { height: (t) => (t >= 2 && t < 15 ? base(2) : base(t)), digest: (t) => (t >= 3 && t < 15 ? 333 : 111) }),
  // On another chain until minute 20.
  healthy('forked', { chainId: (t) => (t < 20 ? 'vega-fork' : 'vega-main') }),
  // An old core and data node until minute 40.
  healthy('old', { appVersion: (t) => (t < 40 ? 'v0.78.2' : 'v0.79.0'), datanodeVersion: (t) => (t < 40 ? 'v0.78.2' : 'v0.79.0') }),
  // Serves different network data until minute 20.
  healthy('odd', { digest: (t) => (t < 20 ? 222 : 111) }),
  // Does not answer: not compared, not counted healthy, its last height is no lag.
  healthy('down', { up: () => 0, height: () => 900 }),
];

const annotations = {
  behind: (target: string, value: number) => ({
    summary: `${target} is ${value} blocks behind the highest node of ${NETWORK}`,
    description: 'Core on this node trails the freshest healthy node of its network by more than 150 blocks.',
  }),
  chain: (target: string) => ({
    summary: `${target} is on a different chain than the rest of its fleet`,
    description: `Its chain id differs from the majority of group ${NETWORK}: wrong network, a fork, or a node restored from the wrong snapshot.`,
  }),
  version: (target: string) => ({
    summary: `${target} runs a different version than most of ${NETWORK}`,
    description: "App version differs from the network's majority for 30 minutes (longer than a rolling upgrade should take).",
  }),
  dnVersion: (target: string) => ({
    summary: `${target} runs a different data-node version than most of ${NETWORK}`,
    description:
      "The data node's own version (GET /api/v2/info) differs from the network's majority for 30 minutes: a data node upgraded apart from its core, or left behind.",
  }),
  data: (target: string) => ({
    summary: `${target} serves different network data than the majority`,
    description: `At about the same height, this node's market set or latest key rotation differs from most nodes of ${NETWORK}: it may serve incomplete data while looking healthy.`,
  }),
};

type Expected = { at: number; alert: string; firing: { labels: Record<string, string>; annotations: Record<string, string> }[] };
const alert = (alertname: string, severity: string, target: string, a: Record<string, string>, scope: Record<string, string> = { network: NETWORK }) => ({
  labels: { severity, target, ...scope },
  annotations: { ...a, runbook_url: runbookUrl(alertname) },
});

/** What every layout must give: fired after its `for`, resolved at the first evaluation after the fault clears. */
export const FLEET_EXPECTED: Expected[] = [
  // halted: 180 blocks behind at minute 5 (pending), firing 5 minutes later, resolved at 15.
  { at: 9, alert: 'VegaNodeBehindFleet', firing: [] },
  { at: 10, alert: 'VegaNodeBehindFleet', firing: [alert('VegaNodeBehindFleet', 'warning', 'halted', annotations.behind('halted', 480))] },
  { at: 14, alert: 'VegaNodeBehindFleet', firing: [alert('VegaNodeBehindFleet', 'warning', 'halted', annotations.behind('halted', 720))] },
  { at: 15, alert: 'VegaNodeBehindFleet', firing: [] },
  { at: 4, alert: 'VegaChainIdMismatch', firing: [] },
  { at: 5, alert: 'VegaChainIdMismatch', firing: [alert('VegaChainIdMismatch', 'critical', 'forked', annotations.chain('forked'), { group: NETWORK })] },
  { at: 19, alert: 'VegaChainIdMismatch', firing: [alert('VegaChainIdMismatch', 'critical', 'forked', annotations.chain('forked'), { group: NETWORK })] },
  { at: 20, alert: 'VegaChainIdMismatch', firing: [] },
  { at: 9, alert: 'VegaDataDisagreement', firing: [] },
  { at: 10, alert: 'VegaDataDisagreement', firing: [alert('VegaDataDisagreement', 'warning', 'odd', annotations.data('odd'))] },
  { at: 19, alert: 'VegaDataDisagreement', firing: [alert('VegaDataDisagreement', 'warning', 'odd', annotations.data('odd'))] },
  { at: 20, alert: 'VegaDataDisagreement', firing: [] },
  { at: 29, alert: 'VegaVersionSkew', firing: [] },
  { at: 30, alert: 'VegaVersionSkew', firing: [alert('VegaVersionSkew', 'warning', 'old', annotations.version('old'))] },
  { at: 39, alert: 'VegaVersionSkew', firing: [alert('VegaVersionSkew', 'warning', 'old', annotations.version('old'))] },
  { at: 40, alert: 'VegaVersionSkew', firing: [] },
  { at: 29, alert: 'VegaDatanodeVersionSkew', firing: [] },
  { at: 30, alert: 'VegaDatanodeVersionSkew', firing: [alert('VegaDatanodeVersionSkew', 'warning', 'old', annotations.dnVersion('old'))] },
  { at: 39, alert: 'VegaDatanodeVersionSkew', firing: [alert('VegaDatanodeVersionSkew', 'warning', 'old', annotations.dnVersion('old'))] },
  { at: 40, alert: 'VegaDatanodeVersionSkew', firing: [] },
];

/** Recorded values every layout must give. */
const EXPECTED_SERIES = [
  { at: 10, expr: 'network:vega_healthy_targets:sum', samples: [{ labels: `network:vega_healthy_targets:sum{network="${NETWORK}"}`, value: 6 }] },
  {
    at: 10,
    expr: 'network_target:vega_block_height_lag_blocks:max > 0',
    samples: [{ labels: `network_target:vega_block_height_lag_blocks:max{network="${NETWORK}",target="halted"}`, value: 480 }],
  },
];

/** Which exporters report a node at minute t: their instance labels. */
type Layout = { name: string; instances: (node: number, t: number) => string[] };
export const LAYOUTS: Layout[] = [
  { name: 'one exporter', instances: () => ['exporter-a:80'] },
  { name: 'three shards', instances: (i) => [`shard-${i % 3}:80`] },
  {
    name: 'two replicas, one of them missing for five minutes',
    instances: (_i, t) => (t >= 25 && t < 30 ? ['replica-a:80'] : ['replica-a:80', 'replica-b:80']),
  },
];

/** One series' values over the timeline: a value, `stale` where it stops, `_` while absent. */
export function values(v: (t: number) => number | undefined, minutes = MINUTES): string {
  const out: string[] = [];
  let before = false;
  for (let t = 0; t < minutes; t++) {
    const x = v(t);
    out.push(x !== undefined ? String(x) : before ? 'stale' : '_');
    before = x !== undefined;
  }
  return out.join(' ');
}

function inputSeries(layout: Layout): { series: string; values: string }[] {
  const out: { series: string; values: string }[] = [];
  const instances = [...new Set(FLEET_NODES.flatMap((_n, i) => [0, 25, 30].flatMap((t) => layout.instances(i, t))))].sort();
  FLEET_NODES.forEach((n, i) => {
    for (const instance of instances) {
      if (!Array.from({ length: MINUTES }, (_x, t) => layout.instances(i, t)).some((l) => l.includes(instance))) continue;
      const sel = (t: number): boolean => layout.instances(i, t).includes(instance);
      const at = (v: Timeline) => (t: number) => (sel(t) ? v(t) : undefined);
      const labels = (metric: string, extra = ''): string => `${metric}{job="datanode-exporter",instance="${instance}",target="${n.name}"${extra}}`;
      out.push({ series: labels('vega_up'), values: values(at(n.up)) });
      out.push({ series: labels('vega_target_network_info', `,network="${NETWORK}",group="${NETWORK}"`), values: values(at(() => 1)) });
      out.push({ series: labels('vega_block_height'), values: values(at(n.height)) });
      out.push({ series: labels('vega_data_digest'), values: values(at(n.digest)) });
      out.push({ series: labels('vega_data_digest_height_blocks'), values: values(at(n.height)) });
      // Info series: one per distinct label value, present while the node reports it.
      const info = (metric: string, label: string, of: (t: number) => string): void => {
        for (const v of new Set(Array.from({ length: MINUTES }, (_x, t) => of(t))))
          out.push({ series: labels(metric, `,${label}="${v}"`), values: values(at((t) => (of(t) === v ? 1 : undefined))) });
      };
      for (const v of new Set(Array.from({ length: MINUTES }, (_x, t) => `${n.appVersion(t)}|${n.chainId(t)}`))) {
        const [app, chain] = v.split('|');
        out.push({
          series: labels('vega_build_info', `,app_version="${app}",chain_id="${chain}"`),
          values: values(at((t) => (`${n.appVersion(t)}|${n.chainId(t)}` === v ? 1 : undefined))),
        });
      }
      info('vega_datanode_build_info', 'version', n.datanodeVersion);
    }
  });
  return out;
}

export function renderFleetTests(): string {
  const tests = LAYOUTS.map((layout) => ({
    name: `cross-node alerts, ${layout.name}`,
    interval: '1m',
    input_series: inputSeries(layout),
    alert_rule_test: FLEET_EXPECTED.map((e) => ({
      eval_time: `${e.at}m`,
      alertname: e.alert,
      exp_alerts: e.firing.map((f) => ({ exp_labels: f.labels, exp_annotations: f.annotations })),
    })),
    promql_expr_test: EXPECTED_SERIES.map((e) => ({ expr: e.expr, eval_time: `${e.at}m`, exp_samples: e.samples })),
  }));
  const head = [
    '# Generated by `npm run kit:sync` from scripts/fleet-tests.ts: edit that file, not this one.',
    '# The cross-node recording rules and alerts give the same alerts for one exporter, three shards',
    '# and two replicas watching the same fleet (promtool test rules prometheus/fleet.test.yml).',
  ].join('\n');
  return `${head}\n${stringify({ rule_files: ['alerts.yml'], evaluation_interval: '1m', tests }, { lineWidth: 0 })}`;
}
