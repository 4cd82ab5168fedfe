/**
 * The promtool tests of when each alert fires and resolves (prometheus/resolve.test.yml): per
 * alert, one fault with a start and an end, the minute it must fire (its `for` after the fault
 * starts) and the minute it must resolve (the first evaluation after the fault clears, or what
 * docs/runbook.md states for the alerts that look back over a window). Read from the ALERTS
 * series. The cross-node alerts have theirs in prometheus/fleet.test.yml. `npm run kit:sync`
 * writes the file; test/kit fails when it drifts from this one.
 */
import { stringify } from 'yaml';
import { values } from './fleet-tests.js';

const S = 'job="datanode-exporter",instance="exporter-a:80"';
const T = `${S},target="dn1"`;
const N = `${S},network="main"`;
const M = `${N},market_id="m1"`;

type Fault = {
  alert: string;
  severity: string;
  /** Each input series (selector) and its value at minute t (undefined: absent). */
  series: Record<string, (t: number) => number | undefined>;
  /** The labels the alert carries besides alertname, alertstate and severity. */
  labels: string;
  fires: number;
  resolves: number;
  minutes?: number;
};
const during = (from: number, to: number, inside: number, outside: number) => (t: number) => (t >= from && t < to ? inside : outside);
const always = (v: number) => () => v;

export const RESOLVE_CASES: Fault[] = [
  { alert: 'DatanodeExporterDown', severity: 'critical', series: { [`up{${S}}`]: during(1, 7, 0, 1) }, labels: S, fires: 3, resolves: 7 },
  {
    alert: 'DatanodeExporterConfigReloadFailed',
    severity: 'warning',
    series: { [`datanode_exporter_config_last_reload_successful{${S}}`]: during(1, 9, 0, 1) },
    labels: S,
    fires: 6,
    resolves: 9,
  },
  { alert: 'VegaDataNodeDown', severity: 'critical', series: { [`vega_up{${T}}`]: during(1, 7, 0, 1) }, labels: T, fires: 3, resolves: 7 },
  {
    alert: 'VegaCollectorFailing',
    severity: 'warning',
    series: { [`datanode_exporter_collector_success{${T},collector="markets"}`]: during(1, 15, 0, 1), [`vega_up{${T}}`]: always(1) },
    labels: `${T},collector="markets"`,
    fires: 11,
    resolves: 15,
  },
  {
    // Height 3 from minute 3 to 11: no change in the 2 minutes up to minute 5, held a minute.
    alert: 'VegaBlockHeightStalled',
    severity: 'critical',
    series: { [`vega_block_height{${T}}`]: (t) => (t < 4 ? t : t < 12 ? 3 : t - 8), [`vega_up{${T}}`]: always(1) },
    labels: T,
    fires: 6,
    resolves: 12,
  },
  {
    alert: 'VegaBlockTimeStale',
    severity: 'warning',
    series: { [`vega_block_time_staleness_seconds{${T}}`]: during(2, 10, 300, 5) },
    labels: T,
    fires: 4,
    resolves: 10,
  },
  {
    alert: 'VegaDataNodeLagging',
    severity: 'warning',
    series: { [`vega_datanode_lag_blocks{${T}}`]: during(1, 10, 200, 3) },
    labels: T,
    fires: 6,
    resolves: 10,
  },
  { alert: 'VegaConsensusPeersLow', severity: 'warning', series: { [`vega_peers{${T}}`]: during(1, 15, 2, 10) }, labels: T, fires: 11, resolves: 15 },
  { alert: 'VegaConsensusPeersZero', severity: 'critical', series: { [`vega_peers{${T}}`]: during(1, 7, 0, 10) }, labels: T, fires: 3, resolves: 7 },
  {
    alert: 'VegaNetworkHistoryDown',
    severity: 'warning',
    series: { [`vega_network_history_up{${T}}`]: during(1, 15, 0, 1) },
    labels: T,
    fires: 11,
    resolves: 15,
  },
  {
    alert: 'VegaNetworkHistoryNoPeers',
    severity: 'warning',
    series: { [`vega_network_history_connected_peers{${T}}`]: during(1, 20, 0, 4), [`vega_network_history_up{${T}}`]: always(1) },
    labels: T,
    fires: 16,
    resolves: 20,
  },
  {
    // A rotation at minute 5: fires at once (no for), resolves when it leaves the hour's window.
    alert: 'VegaValidatorKeyRotated',
    severity: 'info',
    series: { [`vega_key_rotation_last_block_height{${N},node_id="v1"}`]: (t) => (t < 5 ? 100 : 200) },
    labels: `${N},node_id="v1"`,
    fires: 5,
    resolves: 65,
    minutes: 70,
  },
  {
    alert: 'VegaHistorySegmentsStale',
    severity: 'warning',
    series: { [`vega_history_segment_lag_blocks{${T},network="main"}`]: during(1, 15, 4000, 500) },
    labels: `${T},network="main"`,
    fires: 11,
    resolves: 15,
  },
  {
    // The auction started 59 minutes before minute 0: an hour old after minute 1; it ends at minute 12.
    alert: 'VegaMarketLongAuction',
    severity: 'warning',
    series: {
      [`vega_market_auction_timestamp_seconds{${M},event="start"}`]: always(-3540),
      [`vega_market_data_trading_mode{${M},trading_mode="TRADING_MODE_MONITORING_AUCTION"}`]: during(0, 12, 1, 0),
    },
    labels: `${M},event="start"`,
    fires: 7,
    resolves: 12,
  },
  {
    alert: 'VegaMarketStakeBelowTarget',
    severity: 'warning',
    series: { [`vega_market_stake{${M},kind="supplied"}`]: during(1, 20, 50, 200), [`vega_market_stake{${M},kind="target"}`]: always(100) },
    labels: M, // ignoring (kind): the comparison drops it
    fires: 16,
    resolves: 20,
  },
  {
    // The price last moves at minute 5 and again at 50: 30 minutes without a change at 35, held 10.
    alert: 'VegaMarkPriceStale',
    severity: 'warning',
    series: {
      [`vega_market_data_price{${M},kind="mark"}`]: (t) => (t <= 5 ? t : t < 50 ? 5 : t - 44),
      [`vega_market_data_trading_mode{${M},trading_mode="TRADING_MODE_CONTINUOUS"}`]: always(1),
    },
    labels: `${M},kind="mark"`,
    fires: 45,
    resolves: 50,
    minutes: 55,
  },
  {
    // A validator leaves at minute 10 and is back at 20.
    alert: 'VegaValidatorSetShrank',
    severity: 'warning',
    series: { [`vega_network_validators{${N},set="tendermint"}`]: during(10, 20, 4, 5) },
    labels: `${N},set="tendermint"`,
    fires: 15,
    resolves: 20,
  },
  {
    alert: 'VegaListTruncated',
    severity: 'warning',
    series: { [`datanode_exporter_pagination_truncated{${T},collector="orders"}`]: during(1, 35, 1, 0) },
    labels: `${T},collector="orders"`,
    fires: 31,
    resolves: 35,
  },
  {
    // A row skipped every minute up to minute 19: resolves when the last one leaves the 15-minute window.
    alert: 'VegaRowsSkipped',
    severity: 'warning',
    series: { [`datanode_exporter_collector_rows_skipped_total{${T},collector="markets",reason="id"}`]: (t) => Math.min(t, 19) },
    labels: `${T},collector="markets",reason="id"`,
    fires: 16,
    resolves: 34,
  },
];

export function renderResolveTests(): string {
  const tests = RESOLVE_CASES.map((c) => {
    const firing = `ALERTS{alertname="${c.alert}",alertstate="firing"}`;
    const sample = [{ labels: `ALERTS{alertname="${c.alert}",alertstate="firing",severity="${c.severity}",${c.labels}}`, value: 1 }];
    const minutes = c.minutes ?? Math.max(c.resolves + 5, 25);
    return {
      name: `${c.alert} fires at minute ${c.fires} and resolves at minute ${c.resolves}`,
      interval: '1m',
      input_series: Object.entries(c.series).map(([series, v]) => ({ series, values: values(v, minutes) })),
      promql_expr_test: [
        { expr: firing, eval_time: `${c.fires - 1}m`, exp_samples: [] },
        { expr: firing, eval_time: `${c.fires}m`, exp_samples: sample },
        { expr: firing, eval_time: `${c.resolves - 1}m`, exp_samples: sample },
        { expr: firing, eval_time: `${c.resolves}m`, exp_samples: [] },
      ],
    };
  });
  const head = [
    '# Generated by `npm run kit:sync` from scripts/resolve-tests.ts: edit that file, not this one.',
    '# When each alert fires and resolves (docs/runbook.md): promtool test rules prometheus/resolve.test.yml.',
  ].join('\n');
  return `${head}\n${stringify({ rule_files: ['alerts.yml'], evaluation_interval: '1m', tests }, { lineWidth: 0 })}`;
}
