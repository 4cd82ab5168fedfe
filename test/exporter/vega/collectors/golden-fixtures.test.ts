/**
 * Golden real-format fixtures (test/contract/fixtures): each collector runs on the hand-written
 * answers in the exact published shape, through a fake data node that serves them, and must produce
 * exactly the samples of the *.expected.json beside them (float64 value equality, Object.is), none
 * of the absent ones, and no line carrying a forbidden string. The expected files are the oracle.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../../src/exporter/vega/collectors/index.js';
import type { AnyCollectorModule } from '../../../../src/exporter/engine/define.js';
import type { CollectContext } from '../../../../src/exporter/engine/types.js';
import { UpstreamHttpError } from '../../../../src/exporter/errors.js';
import type { Sample } from '../../../../src/exporter/engine/labels.js';
import { renderSamples } from '../../../helpers/render.js';
import { Directory } from '../../../../src/exporter/vega/directory.js';

const dir = new URL('../../../contract/fixtures/', import.meta.url);
const load = (f: string): any => JSON.parse(readFileSync(new URL(f, dir), 'utf8'));

interface Expected {
  context: { target?: string; network?: string; config?: Record<string, unknown>; http_status?: number };
  samples: { name: string; labels: Record<string, string>; value: string }[];
  absent: { name: string; labels: Record<string, string> }[];
  forbiddenStrings: string[];
}

type Answer = { json: unknown; headers?: Record<string, string> } | { status: number; json: unknown };

/** A data node that serves the fixtures; `routes` maps a path to its answer. */
function fakeClient(routes: (path: string) => Answer | undefined): CollectContext['client'] {
  return {
    async get(path: string, _q: unknown, endpoint: string) {
      const a = routes(path) ?? { status: 404, json: load('error-gateway.json') };
      if ('status' in a) {
        const b = a.json as { code?: number; details?: { code?: number; message?: string }[] };
        throw new UpstreamHttpError(a.status, endpoint, b.code, b.details?.[0]?.code, b.details?.[0]?.message, undefined);
      }
      const headers = Object.fromEntries(Object.entries(a.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      return { json: a.json, headers, status: 200 };
    },
  };
}

/** The data node behind every fixture but statistics: markets from api-v2-markets.json, assets, orders. */
function network(markets: 'core' | 'v2'): (path: string) => Answer | undefined {
  const v2 = load('api-v2-markets.json');
  const byId = new Map<string, unknown>(v2.markets.edges.map((e: any) => [e.node.id, e.node]));
  return (path) => {
    if (path === '/markets') return markets === 'core' ? { json: load('markets.json') } : undefined;
    if (path === '/api/v2/markets') return { json: v2 };
    const market = /^\/api\/v2\/market\/([0-9a-f]{64})$/.exec(path);
    if (market) return byId.has(market[1]!) ? { json: { market: byId.get(market[1]!) } } : undefined;
    if (path === `/api/v2/asset/${load('asset.json').asset.id}`) return { json: load('asset.json') };
    if (path === '/api/v2/positions') return { json: load('positions.json') };
    if (path === '/api/v2/parties') return { json: load('parties.json') };
    if (path === '/api/v2/node/signatures') return { json: load('node-signatures.json') };
    if (path === '/api/v2/vega/keys/rotations') return { json: load('vega-keys-rotations.json') };
    if (path === '/api/v2/networkhistory') return { json: load('networkhistory.json') };
    if (path === '/api/v2/markets/data') return { json: load('markets-data.json') };
    if (path === '/api/v2/network/data') return { json: load('network-data.json') };
    if (path === '/api/v2/epoch') return { json: load('epoch.json') };
    if (path === `/api/v2/order/${load('order.json').order.id}`) return { json: load('order.json') };
    if (path.startsWith('/api/v2/order/')) return { status: 404, json: load('error.json') };
    return undefined;
  };
}

/**
 * The data node of the bodies recorded from fairground (v0.73; contract/fixtures/recorded/SOURCE.md), each
 * served where the exporter reads it: the market also as the one node of the list, the latest market data
 * as the one row of GET /api/v2/markets/data. Everything else answers 404.
 */
function recorded(): (path: string) => Answer | undefined {
  const market = load('recorded/market.json');
  const order = load('recorded/order.json');
  const one = { hasNextPage: false, hasPreviousPage: false, startCursor: '1', endCursor: '1' };
  return (path) => {
    if (path === '/api/v2/markets') return { json: { markets: { edges: [{ node: market.market, cursor: '1' }], pageInfo: one } } };
    if (path === `/api/v2/market/${encodeURIComponent(market.market.id)}`) return { json: market };
    if (path === '/api/v2/markets/data') return { json: { marketsData: [load('recorded/market-data-latest.json').marketData] } };
    if (path === '/api/v2/positions') return { json: load('recorded/positions.json') };
    if (path === `/api/v2/order/${encodeURIComponent(order.order.id)}`) return { json: order };
    return undefined;
  };
}

const CASES: [fixture: string, collector: string, routes: (path: string) => Answer | undefined][] = [
  ['statistics', 'statistics', (p) => (p === '/statistics' ? { json: load('statistics.json'), headers: load('statistics.headers.json') } : undefined)],
  [
    'statistics-replaying',
    'statistics',
    (p) => (p === '/statistics' ? { json: load('statistics-replaying.json'), headers: load('statistics-replaying.headers.json') } : undefined),
  ],
  ['networkhistory', 'network_history', network('v2')],
  ['info', 'datanode_info', (p) => (p === '/api/v2/info' ? { json: load('info.json') } : undefined)],
  [
    'networkhistory-segments',
    'history_segments',
    (p) => (p === '/api/v2/networkhistory/segments' ? { json: load('networkhistory-segments.json') } : undefined),
  ],
  ['vega-keys-rotations', 'key_rotations', network('v2')],
  ['markets', 'markets', network('core')],
  ['api-v2-markets', 'markets', network('v2')], // core's /markets answers 404 (error-gateway.json): the fallback
  ['positions', 'positions', network('v2')],
  ['markets-data', 'market_data', network('v2')],
  ['network-data', 'network_data', network('v2')],
  ['epoch', 'network_data', network('v2')],
  ['parties', 'parties', network('v2')],
  ['node-signatures', 'node_signatures', network('v2')],
  ['order', 'orders', network('v2')],
  ['error', 'orders', network('v2')],
  // Recorded v0.73 bodies (non-hex placeholder ids: exported as ids of any non-empty shape).
  ['recorded/market', 'markets', recorded()],
  ['recorded/market-data-latest', 'market_data', recorded()],
  ['recorded/positions', 'positions', recorded()],
  ['recorded/order', 'orders', recorded()],
];

async function run(module: AnyCollectorModule, e: Expected, routes: (path: string) => Answer | undefined): Promise<Sample[]> {
  const settings = module.config.parse(e.context.config ?? {});
  const directory = new Directory();
  const instance = module.create(settings, { shared: directory });
  const ctx: CollectContext = {
    target: e.context.target ?? e.context.network!,
    client: fakeClient(routes),
    signal: new AbortController().signal,
    pageSize: 1000,
    maxPages: 10,
  };
  if (module.name === 'positions' || module.name === 'orders' || module.name === 'market_data') {
    // What the markets collector would have filled in before, from the same data node.
    const markets = COLLECTORS.find((c) => c.name === 'markets')!;
    await markets.create(markets.config.parse({}), { shared: directory }).collect(ctx);
  }
  const r = await instance.collect(ctx);
  expect(r.skipped ?? []).toEqual([]);
  // The runner writes the collector's up metric from a successful poll (statistics, network history).
  return module.upMetric ? [...r.samples, { metric: module.upMetric, values: [ctx.target], value: r.up ?? 1 }] : r.samples;
}

const labelsOf = (s: Sample): Record<string, string> => Object.fromEntries(s.metric.labels.map((l, i) => [l, s.values[i] ?? '']).filter(([, v]) => v !== ''));
const drop = (l: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== ''));

describe('golden real-format fixtures: each collector against *.expected.json', () => {
  it.each(CASES)('%s.json through the %s collector', async (fixture, name, routes) => {
    const e = load(`${fixture}.expected.json`) as Expected;
    const module = COLLECTORS.find((c) => c.name === name)! as AnyCollectorModule;
    const samples = await run(module, e, routes);
    expect(e.samples.length + e.absent.length).toBeGreaterThan(0);
    for (const want of e.samples) {
      const hits = samples.filter(
        (s) => s.metric.name === want.name && JSON.stringify(labelsOf(s)) === JSON.stringify(drop(sortKeys(want.labels, s.metric.labels))),
      );
      expect(
        hits.map((h) => h.value),
        `${want.name} ${JSON.stringify(want.labels)}`,
      ).toHaveLength(1);
      expect(Object.is(hits[0]!.value, Number(want.value)), `${want.name} ${JSON.stringify(want.labels)}: ${hits[0]!.value} vs ${want.value}`).toBe(true);
    }
    for (const no of e.absent) {
      const hit = samples.find((s) => s.metric.name === no.name && Object.entries(no.labels).every(([k, v]) => (labelsOf(s)[k] ?? '') === v));
      expect(hit, `absent ${no.name} ${JSON.stringify(no.labels)}`).toBeUndefined();
    }
    const text = await renderSamples(samples);
    for (const f of e.forbiddenStrings) expect(text).not.toContain(f);
  });
});

/** Expected labels in the metric's label order, so the two JSON texts compare. */
function sortKeys(l: Record<string, string>, order: readonly string[]): Record<string, string> {
  return Object.fromEntries(order.filter((k) => k in l).map((k) => [k, l[k]!]));
}
