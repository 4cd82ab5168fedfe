/** Renders the metric reference (docs/metrics.md) from the catalogue, so the docs cannot drift. */
import { CATALOGUE, type MetricDef } from '../src/exporter/exposition/catalogue.js';

const TITLES: Record<MetricDef['collector'], string> = {
  statistics: 'statistics collector (`GET /statistics`, every 15 s by default)',
  consistency: 'consistency collector (no series of its own: a digest of the market set and latest key rotation, compared across targets)',
  network_history: 'network_history collector (`GET /api/v2/networkhistory`, every 15 s by default)',
  key_rotations: 'key_rotations collector (`GET /api/v2/vega/keys/rotations`, every 60 s by default)',
  markets: 'markets collector (`GET /markets`, falling back to `GET /api/v2/markets`; every 60 s by default)',
  positions: 'positions collector (`GET /api/v2/positions` for listed parties/markets; every 60 s)',
  parties: 'parties collector (`GET /api/v2/parties`; off by default, every 10 minutes when on)',
  node_signatures: 'node_signatures collector (`GET /api/v2/node/signatures` for listed ids; every 60 s)',
  orders: 'orders collector (`GET /api/v2/order/{id}` for listed ids; every 60 s)',
  fleet: 'fleet signals (computed across targets after each statistics and consistency poll)',
  exporter: 'the exporter itself',
};

const cell = (s: string): string => s.replace(/\|/g, '\\|');

export function renderMetricDoc(): string {
  const out: string[] = [
    '# Metric reference',
    '',
    '<!-- Generated from src/exporter/exposition/catalogue.ts by `npm run docs:metrics`; a test fails when this file is stale. -->',
    '',
    'Every polled series carries `target`, the configured name of the data node. Values are cached between',
    'polls and dropped once older than the collector\'s maximum age (three intervals by default), so Prometheus',
    'marks them stale instead of seeing old values forever. Unset upstream values (`""`, `"0001-01-01T00:00:00Z"`,',
    'a missing header) are absent series, never 0.',
    '',
  ];
  for (const collector of Object.keys(TITLES) as MetricDef['collector'][]) {
    const defs = CATALOGUE.filter((m) => m.collector === collector);
    if (defs.length === 0) continue;
    out.push(`## ${TITLES[collector]}`, '', '| name | type | labels | unit | source | description |', '|---|---|---|---|---|---|');
    for (const m of defs) {
      const desc = m.help.replace(/ Source: .*$/, '');
      out.push(`| \`${m.name}\` | ${m.type} | ${m.labels.map((l) => `\`${l}\``).join(', ')} | ${cell(m.unit || '-')} | ${cell(m.source)} | ${cell(desc)} |`);
    }
    out.push('');
  }
  out.push(
    '## Process metrics',
    '',
    "prom-client's default Node.js process metrics (`process_*`, `nodejs_*`, except the three `nodejs_active_*_total`",
    'gauges, whose per-type twins remain), plus `vega_exporter_build_info{version,nodejs_version}` and',
    '`vega_exporter_series` (series served from polled data), rendered live on each scrape.',
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
