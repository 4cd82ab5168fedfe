/** The catalogue follows Prometheus naming rules, avoids the node software's names, and matches the docs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTORS, RESERVED_PREFIXES } from '../../../src/exporter/vega/collectors/index.js';
import { CATALOGUE } from '../../../src/exporter/fleet/metrics.js';

import { FamilyRegistry, storeSource } from '../../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { renderMetricDoc } from '../../../scripts/metric-doc.js';
import { TEST_BUILD } from '../../helpers/render.js';

const SCOPE = new Map<string, string>(COLLECTORS.map((c) => [c.name, c.scope]));
/** The exporter's own limit flags, written by the collectors that apply the limit. */
const LIMIT_FLAGS = ['datanode_exporter_markets_over_limit', 'datanode_exporter_market_data_over_limit'];

/**
 * The sample names each family type reserves beside its own name (OpenMetrics 1.0: counters are
 * named without `_total`; `_created` is the counter's, summary's and histogram's creation time).
 */
const RESERVED_SUFFIXES = ['_total', '_created', '_info', '_bucket', '_count', '_sum', '_gcount', '_gsum'];

interface Family {
  name: string;
  type: string;
}

/**
 * Pairs of families where one's name, in either format, is the other's name plus a reserved
 * suffix: a strict OpenMetrics parser rejects the whole body ("Clashing name"). Every suffix is
 * checked whatever the type, so that a gauge can become a histogram or an info without a rename.
 */
function clashes(families: readonly Family[]): string[] {
  // A family's names: its text-format name and its OpenMetrics name (a counter's without _total).
  const names = (f: Family): string[] => [...new Set([f.name, f.type === 'counter' ? f.name.replace(/_total$/, '') : f.name])];
  const owner = new Map<string, Family>();
  const out: string[] = [];
  for (const f of families)
    for (const n of names(f)) {
      const other = owner.get(n);
      if (other && other !== f) out.push(`${f.name} and ${other.name} are both ${n}`);
      owner.set(n, f);
    }
  for (const f of families)
    for (const n of names(f))
      for (const s of RESERVED_SUFFIXES) {
        const other = owner.get(n + s);
        if (other && other !== f) out.push(`${other.name} is ${f.name}'s ${s} sample`);
      }
  return out;
}

/** Every family /metrics serves: the catalogue's, the process metrics and the exporter's own gauges. */
const served = (): Family[] =>
  new FamilyRegistry('text', CATALOGUE, storeSource(new SeriesStore()), { build: TEST_BUILD, seriesCount: () => 0 }).registry
    .getMetricsAsArray()
    .map((m) => ({ name: m.name, type: String(m.type) }));

describe('metric catalogue', () => {
  it.each(CATALOGUE.map((m) => [m.name, m] as const))('%s follows the naming rules', (_n, m) => {
    // The exporter's series about itself (its polls, requests, limits, probes) carry its own name, as
    // node_exporter's node_scrape_collector_*; those about the data nodes vega_.
    if (m.collector === 'exporter' || LIMIT_FLAGS.includes(m.name)) expect(m.name).toMatch(/^datanode_exporter_[a-z0-9_]+$/);
    else expect(m.name).toMatch(/^vega_[a-z0-9_]+$/);
    if (m.type === 'counter') expect(m.name).toMatch(/_total$/);
    else expect(m.name).not.toMatch(/_total$/);
    if (m.unit === 'seconds since epoch') expect(m.name).toMatch(/_timestamp_seconds$/);
    if (m.unit === 'seconds') expect(m.name).toMatch(/_seconds$/);
    if (m.unit === 'bytes') expect(m.name).toMatch(/_bytes$/);
    for (const p of RESERVED_PREFIXES) expect(m.name.startsWith(p) && !m.name.startsWith('datanode_exporter_'), `${m.name} collides with ${p}*`).toBe(false);
    expect(m.help).toContain('Source:');
    // Node-scoped series say which target they describe; network-scoped ones which network.
    if (SCOPE.get(m.collector) === 'network') expect(m.labels[0]).toBe('network');
    else if (SCOPE.get(m.collector) === 'node') expect(m.labels[0]).toBe('target');
    else expect(['fleet', 'exporter']).toContain(m.collector);
    if (m.collector !== 'exporter' && m.collector !== 'fleet') expect(m.help).toContain('Polled and cached');
  });

  it('every family is declared once, under the collector that owns it', () => {
    expect(new Set(CATALOGUE.map((m) => m.name)).size).toBe(CATALOGUE.length);
    for (const c of COLLECTORS) for (const m of c.metrics) expect(m.collector).toBe(c.name);
  });

  it('the clash check finds a counter family whose _created sample is another counter, and a gauge beside a _count', () => {
    expect(
      clashes([
        { name: 'vega_chain_orders_total', type: 'counter' },
        { name: 'vega_chain_orders_created_total', type: 'counter' },
        { name: 'a', type: 'gauge' },
        { name: 'a_count', type: 'gauge' },
        { name: 'b', type: 'gauge' },
        { name: 'b_total', type: 'counter' },
      ]),
    ).toEqual([
      'b_total and b are both b',
      "vega_chain_orders_created_total is vega_chain_orders_total's _created sample",
      "a_count is a's _count sample",
      "b_total is b's _total sample",
    ]);
  });

  it("no family is another family's reserved sample (_total, _created, _info, _bucket, _count, _sum, _gcount, _gsum), in either format", () => {
    const families = served();
    expect(families.map((f) => f.name)).toEqual(
      expect.arrayContaining([...CATALOGUE.map((m) => m.name), 'process_cpu_seconds_total', 'datanode_exporter_build_info']),
    );
    expect(clashes(families)).toEqual([]);
  });

  it('identity series (value always 1) are info metrics: named _info', () => {
    const identity = CATALOGUE.filter((m) => m.help.includes('value always 1'));
    expect(identity.map((m) => m.name)).toContain('vega_target_network_info');
    for (const m of identity) expect(m.name, m.name).toMatch(/_info$/);
  });

  it('names are unique', () => {
    const names = CATALOGUE.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('docs/metrics.md is generated from the catalogue (run `npm run docs:metrics`)', () => {
    expect(readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8')).toBe(renderMetricDoc());
    for (const m of CATALOGUE) expect(renderMetricDoc()).toContain(`\`${m.name}\``);
  });
});
