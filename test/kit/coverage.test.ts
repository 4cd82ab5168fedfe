/**
 * Every field of the query service's specification is accounted for: the field
 * list is read out of the specification file (test/reference/query-service-spec.md), and each
 * field must have a row in scripts/coverage.ts (rendered into docs/metrics.md,
 * "Coverage of the query service") with the series that carry it or why it is not exported.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/exporter/fleet/metrics.js';
import { COVERAGE, WHY, type ResourceCoverage } from '../../scripts/coverage.js';
import { renderCoverage } from '../../scripts/metric-doc.js';
import { readSpec, specResources, type SpecResource } from '../helpers/spec-fields.js';

/** Specification fields with no row, per resource ("Market: fees.factors.makerFee"). */
function missing(spec: readonly SpecResource[], coverage: readonly ResourceCoverage[]): string[] {
  const out: string[] = [];
  for (const r of spec) {
    const rows = new Set(coverage.find((c) => c.resource === r.name)?.fields.map((f) => f.field) ?? []);
    for (const f of r.fields) if (!rows.has(f)) out.push(`${r.name}: ${f}`);
  }
  return out;
}

const SPEC = specResources();
const SCHEMA = readFileSync(new URL('../reference/datanode-schema-v0.79.md', import.meta.url), 'utf8');

describe('the specification, read', () => {
  it('every resource with a field table, every row of each table', () => {
    expect(SPEC.map((r) => r.name)).toEqual([
      'Common: page envelope',
      'Node signature',
      'Party',
      'Order',
      'Market',
      'Statistics',
      'Network history status',
      'Position',
      'Key rotation',
    ]);
    // Each table row gives at least one field: count the rows of each table in the document itself.
    const text = readSpec();
    for (const r of SPEC) {
      const block = text.slice(text.indexOf(`### ${r.name}`));
      const rows =
        block
          .split('\n')
          .slice(1)
          .filter((l, i, all) => l.startsWith('|') && all.slice(0, i).every((p) => !p.startsWith('### '))).length - 2;
      expect(r.fields.length, r.name).toBeGreaterThanOrEqual(rows);
    }
  });

  it('nested paths: comma lists, objects in the type or the notes, arrays, the data-source spec', () => {
    const of = (name: string): string[] => SPEC.find((r) => r.name === name)!.fields;
    expect(of('Statistics')).toHaveLength(38); // status, 8 subscription counts, 29 strings
    expect(of('Market')).toEqual(
      expect.arrayContaining([
        'fees.factors.infrastructureFee',
        'fees.factors.liquidityFee',
        'fees.factors.makerFee',
        'marketTimestamps.close',
        'openingAuction.volume',
        'priceMonitoringSettings.parameters.triggers[].horizon',
        'priceMonitoringSettings.parameters.triggers[].probability',
        'priceMonitoringSettings.parameters.triggers[].auctionExtension',
        'tradableInstrument.logNormalRiskModel.params.sigma',
        'tradableInstrument.simpleRiskModel.params.probabilityOfTrading',
        'tradableInstrument.instrument.future.dataSourceSpecBinding.tradingTerminationProperty',
        'tradableInstrument.instrument.future.dataSourceSpecForSettlementData.data.external.oracle.filters[].conditions[].value',
        'tradableInstrument.instrument.future.dataSourceSpecForTradingTermination.data.internal.time.conditions[].operator',
        'tradableInstrument.instrument.future.dataSourceSpecForTradingTermination.data.external.oracle.signers[].pubKey.key',
      ]),
    );
    expect(of('Order')).toEqual(expect.arrayContaining(['peggedOrder.offset', 'peggedOrder.reference']));
    expect(of('Common: page envelope')).toEqual([
      'edges[].cursor',
      'edges[].node',
      'pageInfo.startCursor',
      'pageInfo.endCursor',
      'pageInfo.hasNextPage',
      'pageInfo.hasPreviousPage',
    ]);
    expect(of('Network history status')).toEqual(['connectedPeers', 'ipfsAddress', 'swarmKey', 'swarmKeySeed']);
  });
});

describe('coverage of the query service', () => {
  it('every field of the specification has a row', () => {
    expect(missing(SPEC, COVERAGE)).toEqual([]);
  });

  it('the check fails when a field is dropped from the table, or added to the specification', () => {
    const dropped = COVERAGE.map((r) =>
      r.resource === 'Market' ? { ...r, fields: r.fields.filter((f) => f.field !== 'liquidityMonitoringParameters.triggeringRatio') } : r,
    );
    expect(missing(SPEC, dropped)).toEqual(['Market: liquidityMonitoringParameters.triggeringRatio']);
    const grown = readSpec().replace('| blockHeight | uint64 |', '| blockHeight | uint64 |\n| finalisedHeight | uint64 | |');
    expect(missing(specResources(grown), COVERAGE)).toEqual(['Key rotation: finalisedHeight']);
  });

  it('no row names a field the specification does not have, unless it says which release sends it (and that release does)', () => {
    const schemaPrefix: Record<string, string> = { Market: 'markets.edges[].node.', Position: 'positions.edges[].node.' };
    for (const r of COVERAGE) {
      const spec = SPEC.find((s) => s.name === r.resource);
      expect(spec, r.resource).toBeDefined();
      for (const f of r.fields) {
        if (f.beyond === undefined) expect(spec!.fields, `${r.resource}: ${f.field}`).toContain(f.field);
        else {
          expect(spec!.fields, `${r.resource}: ${f.field}`).not.toContain(f.field);
          expect(SCHEMA, `${r.resource}: ${f.field} in the v0.79 schema`).toContain(`${schemaPrefix[r.resource]}${f.field}:`);
        }
      }
      const names = r.fields.map((f) => f.field);
      expect(new Set(names).size, `${r.resource}: a field listed twice`).toBe(names.length);
    }
  });

  it('each row names series of the catalogue and labels they have, or a reason', () => {
    for (const r of COVERAGE) {
      for (const f of r.fields) {
        const at = `${r.resource}: ${f.field}`;
        expect((f.metrics === undefined) !== (f.not === undefined), `${at}: series or a reason, not both`).toBe(true);
        if (f.not !== undefined) expect(Object.keys(WHY), at).toContain(f.not);
        for (const m of f.metrics ?? []) {
          expect(CATALOGUE, `${at}: ${m.name}`).toContain(m);
          if (f.label !== undefined) expect(m.labels, `${at}: ${m.name} has label ${f.label}`).toContain(f.label.replace(/=.*$/, ''));
        }
      }
    }
  });

  it('docs/metrics.md lists every row', () => {
    const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    expect(doc).toContain(renderCoverage().join('\n'));
    for (const r of COVERAGE) for (const f of r.fields) expect(doc).toContain(`| \`${f.field}\` |`);
  });
});
