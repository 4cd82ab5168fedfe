/**
 * Row isolation: a row with a bad field (or an id that can never be one) is skipped and counted; the
 * other rows are exported and the collector succeeds. The runner keeps the running count and logs
 * each (field, reason) once, not once per poll.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PositionsCollector } from '../../../../src/exporter/vega/collectors/positions.js';
import { MarketsCollector } from '../../../../src/exporter/vega/collectors/markets.js';
import { Directory } from '../../../../src/exporter/vega/directory.js';
import { CollectorRunner } from '../../../../src/exporter/engine/runner.js';
import { SeriesStore } from '../../../../src/exporter/engine/store.js';
import { renderStore } from '../../../helpers/render.js';
import { createLogger } from '../../../../src/exporter/logger.js';
import type { CollectContext } from '../../../../src/exporter/engine/types.js';

const H = (c: string): string => c.repeat(64);
const page = (key: string, nodes: unknown[]) => ({
  [key]: { edges: nodes.map((node) => ({ node, cursor: 'c' })), pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' } },
});
const position = (party: string, pnl: unknown) => ({
  marketId: H('a'),
  partyId: party,
  openVolume: '1',
  realisedPnl: pnl,
  unrealisedPnl: '0',
  averageEntryPrice: '1',
  lossSocialisationAmount: '0',
  positionStatus: 'POSITION_STATUS_UNSPECIFIED',
  updatedAt: '0',
});
const BODY = page('positions', [position(H('1'), '10000000000000000000'), position(H('2'), 12), position('', '1'), position(H('3'), '-5')]);

function ctx(json: unknown): CollectContext {
  const client: CollectContext['client'] = { get: async () => ({ json, headers: {}, status: 200 }) };
  return { target: 'net', client, signal: new AbortController().signal, pageSize: 100, maxPages: 5 };
}

function directory(): Directory {
  const d = new Directory({ [H('e')]: 18 });
  d.setMarkets([{ id: H('a'), decimalPlaces: 0, positionDecimalPlaces: 0, settlementAsset: H('e') }]);
  return d;
}

describe('row isolation', () => {
  it('positions: the bad rows are skipped with their reason, the others exported', async () => {
    const r = await new PositionsCollector([H('1')], [], directory()).collect(ctx(BODY));
    const pnl = r.samples.filter((s) => s.metric.name === 'vega_position_realised_pnl').map((s) => [s.values[2], s.value]);
    expect(pnl).toEqual([
      [H('1'), 10],
      [H('3'), -5e-18],
    ]);
    expect(r.skipped).toEqual([
      { reason: 'bad_field', field: 'positions.edges[].node.realisedPnl' },
      { reason: 'bad_id', field: 'positions.edges[].node.partyId' },
    ]);
  });

  it('markets: a market with a bad field loses its own series only', async () => {
    const good = {
      id: H('a'),
      state: 'STATE_ACTIVE',
      tradingMode: 'TRADING_MODE_CONTINUOUS',
      decimalPlaces: '0',
      positionDecimalPlaces: '0',
      tradableInstrument: { instrument: { code: 'A', name: 'A', future: { settlementAsset: H('e'), quoteName: 'X' } } },
      fees: { factors: { makerFee: '0', infrastructureFee: '0', liquidityFee: '0' } },
      marketTimestamps: {},
    };
    const badFee = { ...good, id: H('b'), fees: { factors: { makerFee: 'x', infrastructureFee: '0', liquidityFee: '0' } } };
    const badId = { ...good, id: '' }; // an id is any non-empty string: only what can never be one is bad
    const c = new MarketsCollector({ maxMarkets: 10, allow: [], countsOnly: false }, directory());
    const r = await c.collect(ctx({ markets: [good, badFee, badId] }));
    expect(r.samples.find((s) => s.metric.name === 'vega_markets' && s.values[1] === 'STATE_ACTIVE')?.value).toBe(2);
    expect(r.samples.filter((s) => s.metric.name === 'vega_market_info').map((s) => s.values[1])).toEqual([H('a')]);
    expect(r.skipped?.map((s) => s.reason).sort()).toEqual(['bad_field', 'bad_id']);
  });

  it('the runner counts skips across polls and logs each (field, reason) once', async () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write: (c, _e, cb) => {
          lines.push(String(c));
          cb();
        },
      }),
    );
    const store = new SeriesStore();
    const inst = new PositionsCollector([H('1')], [], directory());
    const runner = new CollectorRunner({
      scopeValue: 'net',
      collector: { name: 'positions', scope: 'network' },
      instance: inst,
      candidates: () => [{ target: 'dn1', client: ctx(BODY).client }],
      store,
      log,
      settings: {
        intervalMs: 60_000,
        timeoutMs: 5_000,
        maxAgeMs: 120_000,
        pageSize: 100,
        maxPages: 5,
        seriesLimit: Infinity,
        seriesShare: Infinity,
      },
    });
    await runner.runOnce();
    await runner.runOnce();
    await runner.runOnce();
    const text = await renderStore(store);
    expect(text).toContain('datanode_exporter_network_collector_rows_skipped_total{network="net",collector="positions",reason="bad_field"} 3');
    expect(text).toContain('datanode_exporter_network_collector_rows_skipped_total{network="net",collector="positions",reason="bad_id"} 3');
    expect(text).toContain('datanode_exporter_network_collector_success{network="net",collector="positions"} 1');
    expect(lines.filter((l) => l.includes('rows with a bad field')).length).toBe(2);
  });
});
