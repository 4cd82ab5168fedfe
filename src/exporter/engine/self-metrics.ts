/** The exporter's own series (datanode_exporter_*): runners, exposition, reloads, probes, upstream requests. */
import { metricsOf, type MetricDef } from './metric.js';

const T = ['target'] as const;
const N = ['network'] as const;
const metric = metricsOf('exporter', '');

/** The exporter's own families, in exposition order (after every collector's and the fleet's). */
export const SELF = {
  collectorSuccess: metric('datanode_exporter_collector_success', [...T, 'collector'], '')
    .source('the exporter')
    .help("Whether the collector's last poll succeeded (1) or failed (0)."),
  collectorDuration: metric('datanode_exporter_collector_duration_seconds', [...T, 'collector'], 'seconds')
    .source('the exporter')
    .help("Duration of the collector's last poll."),
  collectorLastSuccess: metric('datanode_exporter_collector_last_success_timestamp_seconds', [...T, 'collector'], 'seconds since epoch')
    .source('the exporter')
    .help("When the collector's last successful poll finished."),
  netCollectorSuccess: metric('datanode_exporter_network_collector_success', [...N, 'collector'], '')
    .source('the exporter')
    .help("Whether the network-scoped collector's last poll succeeded on some target (1) or on none (0)."),
  collectorSeriesLimited: metric('datanode_exporter_collector_series_limited', [...T, 'collector'], '')
    .source('the exporter (limits.series_per_target)')
    .help("Whether the collector's last poll was cut at its share of the target's series limit (1): its further series are not exported."),
  netCollectorSeriesLimited: metric('datanode_exporter_network_collector_series_limited', [...N, 'collector'], '')
    .source('the exporter (limits.series_per_network)')
    .help("Whether the network-scoped collector's last poll was cut at its share of the network's series limit (1): its further series are not exported."),
  metricsTruncated: metric('datanode_exporter_metrics_truncated', [], '')
    .source('the exporter (limits.metrics_body_bytes)')
    .help('Present (1) when the polled part of /metrics reached limits.metrics_body_bytes and the families after that point were left out.'),
  configReloadSuccessful: metric('datanode_exporter_config_last_reload_successful', [], '')
    .source('the exporter (start, SIGHUP, POST /-/reload)')
    .help('Whether the last configuration load succeeded (1) or was refused, the running configuration kept (0).'),
  configReloadSuccessTimestamp: metric('datanode_exporter_config_last_reload_success_timestamp_seconds', [], 'seconds since epoch')
    .source('the exporter (start, SIGHUP, POST /-/reload)')
    .help('When the running configuration was loaded.'),
  configRestartNeeded: metric('datanode_exporter_config_restart_needed', [], '')
    .source('the exporter (SIGHUP, POST /-/reload)')
    .help(
      'Whether the loaded configuration changes a setting only a restart applies (1: web.* other than enable_lifecycle, log.*; the running value is kept, the log names it) or not (0).',
    ),
  netCollectorDuration: metric('datanode_exporter_network_collector_duration_seconds', [...N, 'collector'], 'seconds')
    .source('the exporter')
    .help("Duration of the network-scoped collector's last poll, fail-overs included."),
  netCollectorLastSuccess: metric('datanode_exporter_network_collector_last_success_timestamp_seconds', [...N, 'collector'], 'seconds since epoch')
    .source('the exporter')
    .help("When the network-scoped collector's last successful poll finished."),
  networkSource: metric('datanode_exporter_network_collector_source_info', [...N, 'collector', 'target'], '')
    .source('the exporter')
    .help("The target that answered the network-scoped collector's last successful poll; value always 1."),
  netUpstreamPages: metric('datanode_exporter_network_upstream_pages_total', [...N, 'collector'], 'pages')
    .source('the exporter')
    .help('Pages of paginated lists fetched by network-scoped collectors.'),
  netPaginationTruncated: metric('datanode_exporter_network_pagination_truncated', [...N, 'collector'], '')
    .source('the exporter')
    .help('Whether the last walk of a network-scoped list stopped early: 1 means the series are incomplete.'),
  rowsSkipped: metric('datanode_exporter_collector_rows_skipped_total', [...T, 'collector', 'reason'], 'rows')
    .source('the exporter')
    .help(
      'Rows of node-scoped answers left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.',
    ),
  netRowsSkipped: metric('datanode_exporter_network_collector_rows_skipped_total', [...N, 'collector', 'reason'], 'rows')
    .source('the exporter')
    .help(
      'Rows of network-scoped answers left out because a field was malformed (reason bad_field) or an id did not fit its published format (reason bad_id); the other rows are still exported. Each bad field is logged once per collector.',
    ),
  probeSuccess: metric('datanode_exporter_probe_success', T, '').source('the exporter (/probe)').help('Whether every collector the probe ran succeeded.'),
  probeDuration: metric('datanode_exporter_probe_duration_seconds', T, 'seconds').source('the exporter (/probe)').help('How long the probe took.'),
  upstreamRequests: metric('datanode_exporter_upstream_requests_total', [...T, 'endpoint', 'status'], 'requests')
    .source('the exporter')
    .help(
      'Requests to the data node by endpoint and HTTP status: the statuses the exporter handles apart (200, 400, 403, 404, 429, 500-504) by code, the others by class (2xx to 5xx); "error" when no status came back.',
    ),
  upstreamBackoffUntil: metric('datanode_exporter_upstream_backoff_until_timestamp_seconds', T, 'seconds since epoch')
    .source('the exporter (RateLimit-Reset, Retry-After, RateLimit-Retry-After, capped by http.max_backoff)')
    .help('While the node has asked the exporter to back off: when the back-off ends. Absent otherwise; a reload lifts it.'),
  upstreamPages: metric('datanode_exporter_upstream_pages_total', [...T, 'collector'], 'pages')
    .source('the exporter')
    .help('Pages of paginated lists fetched.'),
  paginationTruncated: metric('datanode_exporter_pagination_truncated', [...T, 'collector'], '')
    .source('the exporter')
    .help('Whether the last walk of a paginated list stopped early (page cap or cursor loop): 1 means the series are incomplete.'),
} as const satisfies Record<string, MetricDef>;
