/** The catalogue follows Prometheus naming rules, avoids the node software's names, and matches the docs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, NETWORK_SCOPED, RESERVED_PREFIXES } from '../../src/exporter/exposition/catalogue.js';
import { renderMetricDoc } from '../../scripts/metric-doc.js';

describe('metric catalogue', () => {
  it.each(CATALOGUE.map((m) => [m.name, m] as const))('%s follows the naming rules', (_n, m) => {
    expect(m.name).toMatch(/^vega_[a-z0-9_]+$/);
    if (m.type === 'counter') expect(m.name).toMatch(/_total$/);
    else expect(m.name).not.toMatch(/_total$/);
    if (m.unit === 'seconds since epoch') expect(m.name).toMatch(/_timestamp_seconds$/);
    if (m.unit === 'seconds') expect(m.name).toMatch(/_seconds$/);
    if (m.unit === 'bytes') expect(m.name).toMatch(/_bytes$/);
    for (const p of RESERVED_PREFIXES) expect(m.name.startsWith(p), `${m.name} collides with ${p}*`).toBe(false);
    expect(m.help).toContain('Source:');
    // Node-scoped series say which target they describe; network-scoped ones which network.
    if (NETWORK_SCOPED.has(m.collector)) expect(m.labels[0]).toBe('network');
    else if (m.collector === 'statistics' || m.collector === 'network_history') expect(m.labels[0]).toBe('target');
    if (m.collector !== 'exporter' && m.collector !== 'fleet') expect(m.help).toContain('Polled and cached');
  });

  it('names are unique', () => {
    const names = CATALOGUE.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('docs/metrics.md is generated from the catalogue (run `npm run docs:metrics`)', () => {
    expect(readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')).toBe(renderMetricDoc());
    for (const m of CATALOGUE) expect(renderMetricDoc()).toContain(`\`${m.name}\``);
  });
});
