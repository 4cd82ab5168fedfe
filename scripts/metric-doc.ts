/** Renders the metric reference (docs/metrics.md) from the catalogue, so the docs cannot drift. */
import { API_SLI_BUCKETS, API_SLI_CLASSES, API_SLI_HELP, API_SLI_NAME, API_SLI_OUTCOMES } from '../src/exporter/fleet/api-sli.js';
import { familiesOf, type AnyCollectorModule, type Families } from '../src/exporter/engine/define.js';
import { COLLECTORS } from '../src/exporter/vega/collectors/index.js';
import { SELF } from '../src/exporter/engine/self-metrics.js';
import { FLEET } from '../src/exporter/fleet/metrics.js';
import { COVERAGE, WHY, type ResourceCoverage } from './coverage.js';

/** Sections beyond the collectors': their titles, and the metrics they hold. */
const OTHERS: { title: string; families: Families }[] = [
  { title: 'fleet (what each target contributes to the cross-node recording rules, docs/fleet.md)', families: FLEET },
  { title: 'the exporter itself', families: SELF },
];

const cell = (s: string): string => s.replace(/\|/g, '\\|');

export function renderMetricDoc(collectors: readonly AnyCollectorModule[] = COLLECTORS): string {
  const out: string[] = [
    '# Metric reference',
    '',
    '<!-- Generated from the collector registry (src/exporter/vega/collectors/index.ts), src/exporter/fleet/metrics.ts and src/exporter/engine/self-metrics.ts by `npm run docs:metrics`; a test fails when this file is stale. -->',
    '',
    'Labels by scope: series scoped to a target (the node-scoped collectors, the per-target fleet signals) carry',
    '`target`, the configured name of the data node; series scoped to a network (the network-scoped collectors,',
    "polled once per network from one of its healthy targets) carry `network`, the target's configured `network:`",
    "or else the chain id it reports; the exporter's own series carry what their row lists. Join a per-target series",
    'to its network with `* on (target) group_left (network) vega_target_network_info`.',
    '',
    "Values are cached between polls and dropped once older than the collector's maximum age (three intervals by",
    'default), so Prometheus marks them stale instead of seeing old values forever. Unset upstream values (`""`,',
    '`"0001-01-01T00:00:00Z"`, a missing header) are absent series, never 0. Ids (market, party, order, asset, node, resource) are label',
    'values as the node sends them, whatever their shape: a value longer than `limits.label_value_bytes` is cut',
    'and suffixed with a hash of the whole; only an empty id, or one with control characters, skips its row',
    '(`reason="bad_id"`).',
    '',
  ];
  for (const section of [...collectors, ...OTHERS]) {
    const families = familiesOf(section);
    if (families.length === 0) continue;
    out.push(`## ${section.title}`, '');
    if ('scope' in section)
      out.push(section.scope === 'network' ? 'Scoped to a network: every series carries `network`.' : 'Scoped to a target: every series carries `target`.', '');
    out.push('| name | type | labels | unit | source | description |', '|---|---|---|---|---|---|');
    for (const m of families) {
      const desc = m.help.replace(/ Source: .*$/, '');
      out.push(`| \`${m.name}\` | ${m.type} | ${m.labels.map((l) => `\`${l}\``).join(', ')} | ${cell(m.unit || '-')} | ${cell(m.source)} | ${cell(desc)} |`);
    }
    out.push('');
  }
  out.push(
    '## Process metrics',
    '',
    "prom-client's default Node.js process metrics (`process_*`, `nodejs_*`) in the same registry, except the three",
    '`nodejs_active_*_total` gauges (a gauge named `_total` fails promtool), whose per-type twins remain; plus',
    '`datanode_exporter_build_info{version,revision,branch,nodejs_version}` and `datanode_exporter_series` (series served).',
    'They are sampled when the body is rendered: after each change, at most once a second.',
    '',
    '## Service levels of the API',
    '',
    `\`${API_SLI_NAME}{target,class,outcome}\` (histogram, seconds): ${API_SLI_HELP.replace(/ Source: .*$/, '')}`,
    `Buckets (\`le\`): ${API_SLI_BUCKETS.join(', ')}, +Inf. Series: ${API_SLI_CLASSES.length * API_SLI_OUTCOMES.length * (API_SLI_BUCKETS.length + 3)} per target at most`,
    `(${API_SLI_CLASSES.length} classes × ${API_SLI_OUTCOMES.length} outcomes × ${API_SLI_BUCKETS.length + 1} buckets, \`_sum\` and \`_count\`), made when first observed and`,
    "removed with the target. Requests of every collector count, a network-scoped one's on the node that answered. The",
    'objectives on it, their recording rules, burn-rate alerts and dashboard panel are generated from `prometheus/slos.yml`.',
    '',
  );
  out.push(...renderCoverage());
  return out.join('\n');
}

/** "Coverage of the query service": every field of the specification, from scripts/coverage.ts. */
export function renderCoverage(coverage: readonly ResourceCoverage[] = COVERAGE): string[] {
  const out: string[] = [
    '## Coverage of the query service',
    '',
    "Every field of every resource in the query service's specification, with the series that carry it or why it",
    'is not exported; fields marked *beyond the specification* are fields data nodes send that it does not list.',
    'A test reads the field list out of the specification and fails when one of its fields is missing here.',
    '',
    'Not exported, and why:',
    '',
    ...Object.entries(WHY).map(([k, why]) => `- *${k.replace('_', ' ')}*: ${why}.`),
    '',
  ];
  for (const r of coverage) {
    out.push(`### ${r.resource}`, '', `Read from ${r.source}.`, '', '| field | series | label | note |', '|---|---|---|---|');
    for (const f of r.fields) {
      const series = f.metrics ? f.metrics.map((m) => `\`${m.name}\``).join(', ') : `not exported: *${f.not!.replace('_', ' ')}*`;
      const note = [f.beyond ? `beyond the specification (${f.beyond})` : '', f.note ?? ''].filter((x) => x !== '').join('; ');
      out.push(`| \`${f.field}\` | ${series} | ${f.label ? `\`${cell(f.label)}\`` : '-'} | ${cell(note || '-')} |`);
    }
    out.push('');
  }
  return out;
}
