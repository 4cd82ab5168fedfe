/** Renders the metric reference (docs/metrics.md) from the catalogue, so the docs cannot drift. */
import type { AnyCollectorModule } from '../src/exporter/collectors/define.js';
import { COLLECTORS } from '../src/exporter/collectors/index.js';
import { ownedBy, type MetricDef } from '../src/exporter/exposition/catalogue.js';

/** Sections beyond the collectors': their titles, and the metrics they hold. */
const OTHERS: { title: string; metrics: readonly MetricDef[] }[] = [
  { title: 'fleet signals (computed across targets after each statistics and consistency poll)', metrics: ownedBy('fleet') },
  { title: 'the exporter itself', metrics: ownedBy('exporter') },
];

const cell = (s: string): string => s.replace(/\|/g, '\\|');

export function renderMetricDoc(collectors: readonly AnyCollectorModule[] = COLLECTORS): string {
  const out: string[] = [
    '# Metric reference',
    '',
    '<!-- Generated from the collector registry (src/exporter/collectors/index.ts) and src/exporter/exposition/catalogue.ts by `npm run docs:metrics`; a test fails when this file is stale. -->',
    '',
    'Every polled series carries `target`, the configured name of the data node. Values are cached between',
    'polls and dropped once older than the collector\'s maximum age (three intervals by default), so Prometheus',
    'marks them stale instead of seeing old values forever. Unset upstream values (`""`, `"0001-01-01T00:00:00Z"`,',
    'a missing header) are absent series, never 0.',
    '',
  ];
  for (const section of [...collectors, ...OTHERS]) {
    if (section.metrics.length === 0) continue;
    out.push(`## ${section.title}`, '', '| name | type | labels | unit | source | description |', '|---|---|---|---|---|---|');
    for (const m of section.metrics) {
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
    '## Not exported',
    '',
    '- `statistics.blockHash`: a new value every block; as a label it would create a series per block.',
    '- `networkhistory.swarmKey`, `swarmKeySeed`: the private swarm\'s secret; never read into metrics, logs or errors.',
    '- `networkhistory.ipfsAddress` and peer addresses: peer ids are unbounded label values.',
    '',
  );
  return out.join('\n');
}
