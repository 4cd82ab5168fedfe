/** The catalogue follows Prometheus naming rules, avoids the node software's names, and matches the docs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, COLLECTORS } from '../../../src/exporter/collectors/index.js';
import { BUILTIN_METRICS, RESERVED_PREFIXES } from '../../../src/exporter/exposition/catalogue.js';

const SCOPE = new Map<string, string>(COLLECTORS.map((c) => [c.name, c.scope]));
import { renderMetricDoc } from '../../../scripts/metric-doc.js';

describe('metric catalogue', () => {
  it.each(CATALOGUE.map((m) => [m.name, m] as const))('%s follows the naming rules', (_n, m) => {
    // The exporter's series about itself carry its own name (as node_exporter_build_info); the rest vega_.
    if (m.collector === 'exporter' && m.labels.length === 0) expect(m.name).toMatch(/^datanode_exporter_[a-z0-9_]+$/);
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

  it('every metric defined is in the running catalogue, under the collector that owns it', () => {
    expect(new Set(CATALOGUE)).toEqual(new Set(BUILTIN_METRICS));
    for (const c of COLLECTORS) for (const m of c.metrics) expect(m.collector).toBe(c.name);
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
