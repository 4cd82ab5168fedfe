/**
 * Schema-driven property tests: bodies from the contract's arbitraries (built from the published
 * definitions, not from the simulator) go through each collector, served by a fake data node. Any
 * body the schema allows must never fail the collector (rows may be skipped) and must never give an
 * invalid exposition: every case's samples are finite, unique, and the whole corpus passes
 * `promtool check metrics`. At least 200 cases per collector.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../../src/exporter/vega/collectors/index.js';
import type { AnyCollectorModule } from '../../../../src/exporter/engine/define.js';
import type { CollectContext } from '../../../../src/exporter/engine/types.js';
import { SeriesStore } from '../../../../src/exporter/engine/store.js';
import { renderStore } from '../../../helpers/render.js';
import { Directory } from '../../../../src/exporter/vega/directory.js';
import { UpstreamHttpError } from '../../../../src/exporter/errors.js';
import { arbitraryFor } from '../../../contract/arbitraries.js';
import type { RouteKey } from '../../../contract/schema.js';

const RUNS = 200;
const POOL = ['0', '1', '2', '3'].map((c) => c.repeat(64));
/** Keys that hold ids: half the time one of a few valid ids, so rows reach the sample code. */
const ID_KEYS = new Set(['id', 'marketId', 'market', 'partyId', 'nodeId', 'settlementAsset', 'quoteAsset']);

/** Put valid ids into some id fields, deterministically from `seed` (the rest stay arbitrary). */
function withIds(body: unknown, seed: number): unknown {
  let x = seed >>> 0;
  const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  const go = (v: unknown, key: string): unknown => {
    if (Array.isArray(v)) return v.map((e) => go(e, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, go(e, k)]));
    if (typeof v === 'string' && ID_KEYS.has(key) && next() % 2 === 0) return POOL[next() % POOL.length];
    return v;
  };
  return go(body, '');
}

const body = (route: RouteKey) => fc.tuple(arbitraryFor(route, { mode: 'forward' }), fc.integer()).map(([b, s]) => withIds(b, s));

type Routes = Partial<Record<string, unknown>>;
/** The fake node: path → body; a path with no body answers 404 like a real single lookup. */
function client(routes: (path: string) => unknown): CollectContext['client'] {
  return {
    async get(path: string, _q: unknown, endpoint: string) {
      const json = routes(path);
      if (json === undefined) throw new UpstreamHttpError(404, endpoint, 5, undefined, undefined, undefined);
      return { json, headers: (json as { __headers?: Record<string, string> }).__headers ?? {}, status: 200 };
    },
  };
}

interface Case {
  name: string;
  config: Record<string, unknown>;
  bodies: fc.Arbitrary<Routes>;
  route: (r: Routes, path: string) => unknown;
  /** Samples the whole run must reach at least (default RUNS + 1); a one-series collector gives exactly RUNS. */
  minSamples?: number;
}

const single = (r: Routes, path: string, key: string): unknown => (path.startsWith(key) ? r[key] : undefined);
function orderAsked(body: unknown, path: string): unknown {
  const o = (body as { order?: unknown } | undefined)?.order;
  return o && typeof o === 'object' ? { ...(body as object), order: { ...o, id: path.slice('/api/v2/order/'.length) } } : body;
}

const CASES: Case[] = [
  {
    name: 'statistics',
    config: {},
    bodies: fc
      .record({ '/statistics': body('GET /statistics'), h: fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), { nil: undefined }) })
      .map((r) => ({
        '/statistics': { ...(r['/statistics'] as object), __headers: r.h === undefined ? {} : { 'x-block-height': r.h, 'x-block-timestamp': r.h } },
      })),
    route: (r, p) => r[p],
  },
  { name: 'network_history', config: {}, bodies: fc.record({ '/api/v2/networkhistory': body('GET /api/v2/networkhistory') }), route: (r, p) => r[p] },
  { name: 'datanode_info', config: {}, bodies: fc.record({ '/api/v2/info': body('GET /api/v2/info') }), route: (r, p) => r[p], minSamples: RUNS },
  {
    name: 'history_segments',
    config: {},
    bodies: fc.record({ '/api/v2/networkhistory/segments': body('GET /api/v2/networkhistory/segments') }),
    route: (r, p) => r[p],
  },
  { name: 'key_rotations', config: {}, bodies: fc.record({ '/api/v2/vega/keys/rotations': body('GET /api/v2/vega/keys/rotations') }), route: (r, p) => r[p] },
  {
    name: 'market_data',
    config: {},
    // Market and asset lookups answer from the schema too, so some rows get decimals and some do not.
    bodies: fc.record({
      '/api/v2/markets/data': body('GET /api/v2/markets/data'),
      '/api/v2/market/': body('GET /api/v2/market/{marketId}'),
      '/api/v2/asset/': body('GET /api/v2/asset/{assetId}'),
    }),
    route: (r, p) => r[p] ?? single(r, p, '/api/v2/market/') ?? single(r, p, '/api/v2/asset/'),
  },
  {
    name: 'network_data',
    config: {},
    bodies: fc.record({ '/api/v2/network/data': body('GET /api/v2/network/data'), '/api/v2/epoch': body('GET /api/v2/epoch') }),
    route: (r, p) => r[p],
  },
  {
    name: 'markets',
    config: {},
    bodies: fc.record({ '/markets': fc.option(body('GET /markets'), { nil: undefined }), '/api/v2/markets': body('GET /api/v2/markets') }),
    route: (r, p) => r[p],
  },
  {
    name: 'positions',
    config: { party_ids: [POOL[1]], asset_decimals: { [POOL[2]!]: 18 } },
    bodies: fc.record({
      '/api/v2/positions': body('GET /api/v2/positions'),
      '/api/v2/market/': body('GET /api/v2/market/{marketId}'),
      '/api/v2/asset/': body('GET /api/v2/asset/{assetId}'),
    }),
    route: (r, p) => r[p] ?? single(r, p, '/api/v2/market/') ?? single(r, p, '/api/v2/asset/'),
  },
  {
    name: 'parties',
    config: { enabled: true, party_ids: [POOL[1]] },
    bodies: fc.record({ '/api/v2/parties': body('GET /api/v2/parties') }),
    route: (r, p) => r[p],
  },
  {
    name: 'node_signatures',
    config: { ids: [POOL[3]] },
    bodies: fc.record({ '/api/v2/node/signatures': body('GET /api/v2/node/signatures') }),
    route: (r, p) => r[p],
  },
  {
    name: 'orders',
    config: { ids: [POOL[0], `${POOL[1]}@2`] },
    bodies: fc.record({ '/api/v2/order/': body('GET /api/v2/order/{orderId}'), '/api/v2/market/': body('GET /api/v2/market/{marketId}') }),
    // A node answers with the order asked for: the body's id is the requested one.
    route: (r, p) => orderAsked(single(r, p, '/api/v2/order/'), p) ?? single(r, p, '/api/v2/market/'),
  },
];

const corpus = new SeriesStore();
const counts: Record<string, { cases: number; samples: number; skipped: number }> = {};

describe('any response the schema allows: never a failed collector, never an invalid exposition', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const module = COLLECTORS.find((m) => m.name === c.name)! as AnyCollectorModule;
    const stat = (counts[c.name] = { cases: 0, samples: 0, skipped: 0 });
    await fc.assert(
      fc.asyncProperty(c.bodies, async (routes) => {
        const id = `${c.name}-${stat.cases++}`;
        const instance = module.create(module.config.parse(c.config), { shared: new Directory() });
        const ctx: CollectContext = { target: id, client: client((p) => c.route(routes, p)), signal: new AbortController().signal, pageSize: 100, maxPages: 3 };
        const r = await instance.collect(ctx); // must not throw
        const lines = r.samples.map((s) => `${s.metric.name}${JSON.stringify(s.values)} ${s.value}`);
        expect(r.samples.every((s) => Number.isFinite(s.value))).toBe(true);
        expect(new Set(lines.map((l) => l.slice(0, l.lastIndexOf(' ')))).size).toBe(lines.length);
        stat.samples += r.samples.length;
        stat.skipped += r.skipped?.length ?? 0;
        corpus.set({ scope: module.scope === 'node' ? 'target' : 'network', id, source: c.name }, r.samples, 0, Infinity);
      }),
      { numRuns: RUNS },
    );
    expect(stat.cases).toBeGreaterThanOrEqual(RUNS);
    expect(stat.samples).toBeGreaterThanOrEqual(c.minSamples ?? RUNS + 1); // the bodies reach the sample code, not only the skips
  });

  it('promtool check metrics accepts the whole corpus', async () => {
    const r = spawnSync('promtool', ['check', 'metrics'], { input: await renderStore(corpus), encoding: 'utf8' });
    if (r.error) throw new Error(`promtool is required: ${r.error.message}`);
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });
});

afterAll(() => {
  console.log(`property cases per collector: ${JSON.stringify(counts)}`);
});
