/**
 * The bundled simulator, as a black box over HTTP, against the published v0.79 contract.
 * Part of `npm test` (`npx vitest run test/contract/simulator.contract.test.ts` alone).
 *
 * It starts the simulator's bin, `simulator/bin/datanode-simulator.js --port <free port> --seed 7` (its source is not read),
 * calls every endpoint the exporter reads (every page of the paginated ones), plus error answers and a few
 * of the documented run-time faults, and checks each body against ENDPOINTS_V079 (v0.79 enum names only:
 * the simulator claims v0.79.0) and each response's headers against datanode-api.md.
 * Every mismatch is collected as {endpoint, field, expected, got}; each test fails on its own mismatches
 * and the full list is printed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENDPOINTS, ENDPOINTS_V079, FRESHNESS_HEADERS, type RouteKey } from './schema.js';

interface Deviation {
  endpoint: string;
  field: string;
  expected: string;
  got: string;
}
const deviations: Deviation[] = [];
let child: ChildProcess | undefined;
let base = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const p = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['simulator/bin/datanode-simulator.js', '--port', String(port), '--seed', '7'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // own process group, so afterAll stops it and anything it starts
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/statistics`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`simulator did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 40_000);

afterAll(() => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const d of deviations) {
    const k = `${d.endpoint} | ${d.field} | expected ${d.expected} | got ${d.got}`;
    if (!seen.has(k)) {
      seen.add(k);
      lines.push(k);
    }
  }
  console.log(`\n${validated} simulator answers validated; deviations from the v0.79 contract (${lines.length}):\n` + lines.map((l) => '  - ' + l).join('\n'));
});

const fieldOf = (path: PropertyKey[]): string =>
  path
    .map((p) => (typeof p === 'number' ? '[]' : String(p)))
    .join('.')
    .replace(/\.\[\]/g, '[]');

function describeGot(body: unknown, path: PropertyKey[]): string {
  let cur: unknown = body;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return 'absent';
    cur = (cur as Record<PropertyKey, unknown>)[p as string];
  }
  if (cur === undefined) return 'absent';
  const s = JSON.stringify(cur);
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

/** validate a body; record every issue as a deviation; return this call's deviations */
let validated = 0;
function check(endpoint: string, schema: z.ZodType, body: unknown): Deviation[] {
  validated++;
  const r = schema.safeParse(body);
  if (r.success) return [];
  const out: Deviation[] = [];
  for (const i of r.error.issues) {
    const extra = (i as { keys?: string[] }).keys;
    if (i.code === 'unrecognized_keys' && extra) {
      for (const k of extra) {
        out.push({ endpoint, field: fieldOf([...i.path, k]), expected: 'no such field in v0.79 (strict object)', got: 'present' });
      }
    } else {
      out.push({ endpoint, field: fieldOf(i.path), expected: i.message, got: describeGot(body, i.path) });
    }
  }
  deviations.push(...out);
  return out;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}
async function get(path: string): Promise<Answer> {
  const r = await fetch(base + path);
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: r.status, headers: r.headers, body };
}

/** headers every data-node answer carries (datanode-api.md "Freshness headers", "Rate limits") */
function checkHeaders(endpoint: string, h: Headers): Deviation[] {
  const out: Deviation[] = [];
  const fresh = { 'x-block-height': h.get('x-block-height') ?? undefined, 'x-block-timestamp': h.get('x-block-timestamp') ?? undefined };
  for (const k of ['x-block-height', 'x-block-timestamp'] as const) {
    if (fresh[k] === undefined) out.push({ endpoint, field: `header ${k}`, expected: 'present on every data-node answer', got: 'absent' });
  }
  const r = FRESHNESS_HEADERS.safeParse(fresh);
  if (!r.success)
    for (const i of r.error.issues)
      out.push({ endpoint, field: `header ${String(i.path[0])}`, expected: 'decimal integer', got: String(fresh[i.path[0] as keyof typeof fresh]) });
  for (const k of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    if (h.get(k) === null) out.push({ endpoint, field: `header ${k}`, expected: 'present on every answer', got: 'absent' });
  }
  deviations.push(...out);
  return out;
}

async function expectOk(endpoint: string, path: string, route: RouteKey, mode: 'v079' | 'forward' = 'v079'): Promise<{ a: Answer; devs: Deviation[] }> {
  const a = await get(path);
  const devs: Deviation[] = [];
  if (a.status !== 200) {
    const d = { endpoint, field: 'HTTP status', expected: '200', got: `${a.status} ${JSON.stringify(a.body).slice(0, 80)}` };
    deviations.push(d);
    devs.push(d);
    return { a, devs };
  }
  devs.push(...check(endpoint, (mode === 'v079' ? ENDPOINTS_V079 : ENDPOINTS)[route], a.body), ...checkHeaders(endpoint, a.headers));
  return { a, devs };
}

/** an error answer: HTTP status, gRPC code, and the {code,message,details} envelope */
async function expectError(endpoint: string, path: string, http: number, grpc: number[], detail?: boolean): Promise<Deviation[]> {
  const a = await get(path);
  const devs: Deviation[] = [];
  const push = (d: Deviation): void => {
    deviations.push(d);
    devs.push(d);
  };
  if (a.status !== http) push({ endpoint, field: 'HTTP status', expected: String(http), got: String(a.status) });
  devs.push(...check(endpoint, ENDPOINTS_V079.error, a.body));
  const b = a.body as { code?: unknown; details?: unknown[]; message?: unknown };
  if (typeof b === 'object' && b && !grpc.includes(b.code as number))
    push({ endpoint, field: 'code', expected: `gRPC ${grpc.join(' or ')}`, got: JSON.stringify(b.code) });
  if (detail === true && typeof b === 'object' && b && !(Array.isArray(b.details) && b.details.length > 0)) {
    push({ endpoint, field: 'details', expected: 'details[0] = vega.ErrorDetail (data-node error)', got: JSON.stringify(b.details) });
  }
  if (detail === true && typeof b === 'object' && b && typeof b.message === 'string' && !/ error$/.test(b.message)) {
    push({ endpoint, field: 'message', expected: '"<CodeName> error"', got: JSON.stringify(b.message) });
  }
  devs.push(...checkHeaders(endpoint, a.headers));
  return devs;
}

/** walk every page with pagination.first=N&pagination.after=<endCursor> (cursor percent-encoded) */
async function walk(endpoint: string, path: string, route: RouteKey, key: string, first = 500): Promise<{ nodes: any[]; devs: Deviation[] }> {
  const nodes: any[] = [];
  const devs: Deviation[] = [];
  let after: string | undefined;
  for (let page = 0; page < 200; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const q = `${path}${sep}pagination.first=${first}` + (after ? `&pagination.after=${encodeURIComponent(after)}` : '');
    const { a, devs: d } = await expectOk(endpoint, q, route);
    devs.push(...d);
    const conn = (a.body as any)?.[key];
    if (a.status !== 200 || !conn) break;
    for (const e of conn.edges ?? []) nodes.push(e.node);
    if (!conn.pageInfo?.hasNextPage) break;
    after = conn.pageInfo.endCursor;
  }
  return { nodes, devs };
}

async function setFaults(f: unknown): Promise<void> {
  const r = await fetch(`${base}/__sim/faults`, { method: 'PUT', body: JSON.stringify(f), headers: { 'content-type': 'application/json' } });
  expect(r.ok).toBe(true);
}
async function clearFaults(): Promise<void> {
  await fetch(`${base}/__sim/faults`, { method: 'DELETE' });
}

const summary = (devs: Deviation[]): string[] => [...new Set(devs.map((d) => `${d.endpoint} ${d.field}: expected ${d.expected}; got ${d.got}`))];

let state: { orders: string[]; signatureResources: string[]; validators: string[] };
let marketIds: string[] = [];
const assetIds = new Set<string>();

describe('simulator against the v0.79 contract', () => {
  it('GET /statistics', async () => {
    const { devs } = await expectOk('GET /statistics', '/statistics', 'GET /statistics');
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/networkhistory', async () => {
    const { devs } = await expectOk('GET /api/v2/networkhistory', '/api/v2/networkhistory', 'GET /api/v2/networkhistory');
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/vega/keys/rotations and /api/v2/chain/keys/rotations (every page)', async () => {
    const r1 = await walk('GET /api/v2/vega/keys/rotations', '/api/v2/vega/keys/rotations', 'GET /api/v2/vega/keys/rotations', 'rotations', 37);
    const r2 = await walk('GET /api/v2/chain/keys/rotations', '/api/v2/chain/keys/rotations', 'GET /api/v2/chain/keys/rotations', 'rotations', 500);
    expect(r1.nodes.length).toBeGreaterThan(0);
    expect(r1.nodes.length).toBe(r2.nodes.length);
    // unknown node → 200 and the empty page {edges: [], pageInfo {false, false, "", ""}}
    const empty = await expectOk(
      'GET /api/v2/vega/keys/rotations?nodeId=<unknown>',
      `/api/v2/vega/keys/rotations?nodeId=${'0'.repeat(64)}`,
      'GET /api/v2/vega/keys/rotations',
    );
    const devs = [...r1.devs, ...r2.devs, ...empty.devs];
    const pi = (empty.a.body as any)?.rotations?.pageInfo;
    if (
      JSON.stringify((empty.a.body as any)?.rotations?.edges) !== '[]' ||
      JSON.stringify(pi) !== JSON.stringify({ hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' })
    ) {
      devs.push({
        endpoint: 'rotations?nodeId=<unknown>',
        field: 'rotations',
        expected: 'edges [] and pageInfo {false,false,"",""}',
        got: JSON.stringify((empty.a.body as any)?.rotations),
      });
      deviations.push(devs[devs.length - 1]!);
    }
    expect(summary(devs)).toEqual([]);
  });

  it("GET /markets (the specification's shape, the default) and GET /api/v2/markets (every page) and GET /api/v2/market/{id}", async () => {
    const devs: Deviation[] = [];
    const core = await expectOk('GET /markets', '/markets', 'GET /markets');
    devs.push(...core.devs);
    const v2 = await walk('GET /api/v2/markets', '/api/v2/markets', 'GET /api/v2/markets', 'markets', 3);
    devs.push(...v2.devs);
    marketIds = v2.nodes.map((m) => m.id);
    for (const m of v2.nodes) {
      const ins = m?.tradableInstrument?.instrument;
      for (const a of [ins?.future?.settlementAsset, ins?.perpetual?.settlementAsset, ins?.spot?.baseAsset, ins?.spot?.quoteAsset]) if (a) assetIds.add(a);
    }
    for (const id of marketIds) devs.push(...(await expectOk('GET /api/v2/market/{id}', `/api/v2/market/${id}`, 'GET /api/v2/market/{marketId}')).devs);
    devs.push(...(await expectError('GET /api/v2/market/<unknown id>', `/api/v2/market/${'0'.repeat(64)}`, 404, [5], true)));
    expect(marketIds.length).toBeGreaterThan(0);
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/asset/{id} for every asset the markets name', async () => {
    const devs: Deviation[] = [];
    for (const id of assetIds) {
      const a = await get(`/api/v2/asset/${id}`);
      if (a.status === 200)
        devs.push(
          ...check('GET /api/v2/asset/{id}', ENDPOINTS_V079['GET /api/v2/asset/{assetId}'], a.body),
          ...checkHeaders('GET /api/v2/asset/{id}', a.headers),
        );
      else if (a.status === 404) devs.push(...check('GET /api/v2/asset/{id} (404)', ENDPOINTS_V079.error, a.body));
      else {
        const d = { endpoint: 'GET /api/v2/asset/{id}', field: 'HTTP status', expected: '200 or 404', got: String(a.status) };
        deviations.push(d);
        devs.push(d);
      }
    }
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/positions (every page, with and without filters) and its errors', async () => {
    const all = await walk('GET /api/v2/positions', '/api/v2/positions', 'GET /api/v2/positions', 'positions', 97);
    const devs = [...all.devs];
    const p0 = all.nodes[0];
    if (p0) {
      const f = await walk(
        'GET /api/v2/positions?filter',
        `/api/v2/positions?filter.partyIds=${p0.partyId}&filter.marketIds=${p0.marketId}`,
        'GET /api/v2/positions',
        'positions',
      );
      devs.push(...f.devs);
    }
    devs.push(...(await expectOk('GET /api/v2/positions?filter.partyIds=network', '/api/v2/positions?filter.partyIds=network', 'GET /api/v2/positions')).devs);
    // The specification takes any string as an id (an unknown one lists nothing); a data node answers 400 (hexIds).
    devs.push(...(await expectOk('GET /api/v2/positions?filter.partyIds=<not hex>', '/api/v2/positions?filter.partyIds=nothex', 'GET /api/v2/positions')).devs);
    await setFaults({ hexIds: true });
    devs.push(
      ...(await expectError('GET /api/v2/positions?filter.partyIds=<not hex> (data node)', '/api/v2/positions?filter.partyIds=nothex', 400, [3], true)),
    );
    await clearFaults();
    devs.push(...(await expectError('GET /api/v2/positions?pagination.first=0', '/api/v2/positions?pagination.first=0', 400, [3])));
    devs.push(...(await expectError('GET /api/v2/positions?pagination.first=5001', '/api/v2/positions?pagination.first=5001', 400, [3])));
    devs.push(...(await expectError('GET /api/v2/positions?pagination.after&before', '/api/v2/positions?pagination.after=x&pagination.before=y', 400, [3])));
    devs.push(
      ...(await expectError(
        'GET /api/v2/positions?pagination.first=1&pagination.first=2',
        '/api/v2/positions?pagination.first=1&pagination.first=2',
        400,
        [3],
      )),
    );
    devs.push(...(await expectError('GET /api/v2/positions?pagination.first=abc', '/api/v2/positions?pagination.first=abc', 400, [3])));
    expect(all.nodes.length).toBeGreaterThan(0);
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/parties (every page, ?partyId=) and its 404', async () => {
    const all = await walk('GET /api/v2/parties', '/api/v2/parties', 'GET /api/v2/parties', 'parties', 33);
    const devs = [...all.devs];
    if (all.nodes[0]) devs.push(...(await expectOk('GET /api/v2/parties?partyId=', `/api/v2/parties?partyId=${all.nodes[0].id}`, 'GET /api/v2/parties')).devs);
    devs.push(...(await expectError('GET /api/v2/parties?partyId=<unknown>', `/api/v2/parties?partyId=${'0'.repeat(64)}`, 404, [5], true)));
    expect(all.nodes.length).toBeGreaterThan(0);
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/order/{id} (latest and ?version=1) and its errors', async () => {
    state = (await get('/__sim/state')).body as typeof state;
    const devs: Deviation[] = [];
    for (const id of state.orders.slice(0, 40)) {
      devs.push(...(await expectOk('GET /api/v2/order/{id}', `/api/v2/order/${id}`, 'GET /api/v2/order/{orderId}')).devs);
      devs.push(...(await expectOk('GET /api/v2/order/{id}?version=1', `/api/v2/order/${id}?version=1`, 'GET /api/v2/order/{orderId}')).devs);
    }
    devs.push(...(await expectError('GET /api/v2/order/<not hex>', '/api/v2/order/zz', 404, [5], true)));
    await setFaults({ hexIds: true });
    devs.push(...(await expectError('GET /api/v2/order/<not hex> (data node)', '/api/v2/order/zz', 400, [3], true)));
    await clearFaults();
    devs.push(...(await expectError('GET /api/v2/order/{id}?version=0', `/api/v2/order/${state.orders[0]}?version=0`, 400, [3])));
    devs.push(...(await expectError('GET /api/v2/order/<unknown>', `/api/v2/order/${'0'.repeat(64)}`, 404, [5], true)));
    expect(summary(devs)).toEqual([]);
  });

  it('GET /api/v2/node/signatures (each resource) and its errors', async () => {
    const devs: Deviation[] = [];
    for (const id of state.signatureResources) {
      devs.push(...(await walk('GET /api/v2/node/signatures', `/api/v2/node/signatures?id=${id}`, 'GET /api/v2/node/signatures', 'signatures')).devs);
    }
    devs.push(
      ...(await expectOk('GET /api/v2/node/signatures?id=<unknown>', `/api/v2/node/signatures?id=${'0'.repeat(64)}`, 'GET /api/v2/node/signatures')).devs,
    );
    devs.push(...(await expectError('GET /api/v2/node/signatures (no id)', '/api/v2/node/signatures', 400, [3], true)));
    expect(summary(devs)).toEqual([]);
  });

  it('other read endpoints: info, vega/time (and, when served, segments, markets/data, network/data, epoch, nodes)', async () => {
    const devs: Deviation[] = [];
    devs.push(...(await expectOk('GET /api/v2/info', '/api/v2/info', 'GET /api/v2/info')).devs);
    devs.push(...(await expectOk('GET /api/v2/vega/time', '/api/v2/vega/time', 'GET /api/v2/vega/time')).devs);
    // Served and read by the exporter (datanode_info, history_segments): required.
    devs.push(...(await expectOk('GET /api/v2/networkhistory/segments', '/api/v2/networkhistory/segments', 'GET /api/v2/networkhistory/segments')).devs);
    devs.push(...(await expectOk('GET /api/v2/markets/data', '/api/v2/markets/data', 'GET /api/v2/markets/data')).devs);
    devs.push(...(await expectOk('GET /api/v2/network/data', '/api/v2/network/data', 'GET /api/v2/network/data')).devs);
    devs.push(...(await expectOk('GET /api/v2/epoch', '/api/v2/epoch', 'GET /api/v2/epoch')).devs);
    const optional: [string, RouteKey][] = [['/api/v2/nodes', 'GET /api/v2/nodes']];
    for (const [p, route] of optional) {
      const a = await get(p);
      if (a.status === 200) devs.push(...check(route, ENDPOINTS_V079[route], a.body));
      else devs.push(...check(`${route} (${a.status}: not served)`, ENDPOINTS_V079.error, a.body));
    }
    expect(summary(devs)).toEqual([]);
  });

  it('gateway errors: unknown route, wrong method', async () => {
    const devs: Deviation[] = [];
    devs.push(...(await expectError('GET /api/v2/unknown-route', '/api/v2/unknown-route', 404, [5])));
    const r = await fetch(`${base}/api/v2/info`, { method: 'POST' });
    const body = await r.json().catch(() => undefined);
    if (r.status !== 501) {
      const d = { endpoint: 'POST /api/v2/info', field: 'HTTP status', expected: '501 (gRPC 12 Unimplemented)', got: String(r.status) };
      deviations.push(d);
      devs.push(d);
    }
    devs.push(...check('POST /api/v2/info', ENDPOINTS_V079.error, body));
    expect(summary(devs)).toEqual([]);
  });
});

describe('simulator against the behaviour notes of datanode-api.md', () => {
  it('order times truncated to µs, reason only on rejected orders, rotations newest first by default', async () => {
    const devs: Deviation[] = [];
    const push = (d: Deviation): void => {
      deviations.push(d);
      devs.push(d);
    };
    for (const id of state.orders.slice(0, 60)) {
      const o = ((await get(`/api/v2/order/${id}`)).body as any)?.order;
      if (!o) continue;
      for (const k of ['createdAt', 'updatedAt', 'expiresAt']) {
        if (/^-?[0-9]+$/.test(o[k]) && BigInt(o[k]) % 1000n !== 0n)
          push({ endpoint: 'GET /api/v2/order/{id}', field: k, expected: 'unix ns truncated to µs', got: o[k] });
      }
      if ('reason' in o && o.status !== 'STATUS_REJECTED')
        push({ endpoint: 'GET /api/v2/order/{id}', field: 'reason', expected: 'present only on rejected orders', got: `${o.reason} on ${o.status}` });
    }
    const rot = ((await get('/api/v2/vega/keys/rotations?pagination.first=5000')).body as any)?.rotations?.edges ?? [];
    const h = rot.map((e: any) => BigInt(e.node.blockHeight));
    if (h.some((x: bigint, i: number) => i > 0 && x > h[i - 1]!))
      push({ endpoint: 'GET /api/v2/vega/keys/rotations', field: 'order', expected: 'newest first by default', got: 'ascending somewhere' });
    expect(summary(devs)).toEqual([]);
  });
});

describe('simulator defaults carry the magnitudes real networks send (datanode-api.md "Magnitudes")', () => {
  it('18-decimal asset, PnL beyond 2^64, negative position decimals, a NaN double, lpPriceRange "" with an SLA range, fractional fees, an order price beyond 2^64', async () => {
    const markets = (await walk('coverage', '/api/v2/markets', 'GET /api/v2/markets', 'markets')).nodes;
    const positions = (await walk('coverage', '/api/v2/positions', 'GET /api/v2/positions', 'positions')).nodes;
    const decimals: string[] = [];
    for (const id of assetIds) {
      const a = await get(`/api/v2/asset/${id}`);
      if (a.status === 200) decimals.push((a.body as any).asset.details.decimals);
    }
    const prices: string[] = [];
    for (const id of state.orders) {
      const a = await get(`/api/v2/order/${id}`);
      if (a.status === 200) prices.push((a.body as any).order.price);
    }
    await setFaults({ nonFiniteDoubles: true }); // non-finite doubles on some markets, when asked
    const doubles = JSON.stringify((await walk('coverage (nonFiniteDoubles)', '/api/v2/markets', 'GET /api/v2/markets', 'markets')).nodes);
    await clearFaults();
    const versions = Math.max(
      ...(await Promise.all(state.orders.slice(0, 5).map(async (id) => Number(((await get(`/api/v2/order/${id}`)).body as any)?.order?.version ?? 0)))),
    );
    const has: [string, boolean][] = [
      ['an asset with 18 decimals', decimals.includes('18')],
      ['an asset with 6 decimals', decimals.includes('6')],
      [
        'a realised or unrealised PnL beyond 2^64 in magnitude',
        positions.some((p) => [p.realisedPnl, p.unrealisedPnl].some((v: string) => v !== '' && (BigInt(v) > 2n ** 64n || BigInt(v) < -(2n ** 64n)))),
      ],
      ['a PnL of 30+ digits', positions.some((p) => [p.realisedPnl, p.unrealisedPnl].some((v: string) => v.replace('-', '').length >= 30))],
      ['a negative positionDecimalPlaces', markets.some((m) => String(m.positionDecimalPlaces).startsWith('-'))],
      ['a non-finite double ("NaN"/"Infinity")', /"(NaN|-?Infinity)"/.test(doubles)],
      ['lpPriceRange "" with liquiditySlaParams.priceRange set', markets.some((m) => m.lpPriceRange === '' && m.liquiditySlaParams?.priceRange)],
      ['a fee field with fractional digits', positions.some((p) => /\./.test(p.takerFeesPaid ?? ''))],
      ['an order price beyond 2^64', prices.some((v) => v !== '' && BigInt(v) > 2n ** 64n)],
      ['a long-lived order with 50+ versions', versions >= 50],
    ];
    const missing = has.filter(([, ok]) => !ok).map(([what]) => what);
    for (const m of missing) deviations.push({ endpoint: 'simulator defaults (--seed 7)', field: 'magnitudes', expected: m, got: 'none found' });
    expect(missing).toEqual([]);
  });
});

describe('simulator faults (documented run-time switches) against the contract', () => {
  const clear = clearFaults;

  it('replaying: statistics still fits (genesisTime/chainId may be "")', async () => {
    await setFaults({ replaying: true });
    const { devs } = await expectOk('GET /statistics (replaying)', '/statistics', 'GET /statistics');
    await clear();
    expect(summary(devs)).toEqual([]);
  });

  it('networkHistoryDisabled: 500 with the error envelope', async () => {
    await setFaults({ networkHistoryDisabled: true });
    const devs = await expectError('GET /api/v2/networkhistory (disabled)', '/api/v2/networkhistory', 500, [13, 2]);
    await clear();
    expect(summary(devs)).toEqual([]);
  });

  it('as a data node (marketsCore off, the datanode profile) GET /markets answers 404 {"code":5,"message":"Not Found","details":[]}', async () => {
    await setFaults({ marketsCore: false });
    const a = await get('/markets');
    await clear();
    const devs: Deviation[] = [];
    if (a.status !== 404 || JSON.stringify(a.body) !== '{"code":5,"message":"Not Found","details":[]}') {
      const d = {
        endpoint: 'GET /markets (data node)',
        field: 'answer',
        expected: '404 {"code":5,"message":"Not Found","details":[]}',
        got: `${a.status} ${JSON.stringify(a.body)}`,
      };
      deviations.push(d);
      devs.push(d);
    }
    expect(summary(devs)).toEqual([]);
  });

  it('unknownEnums: answers still fit the forward-compatible schema', async () => {
    await setFaults({ endpoints: { '*': { unknownEnums: true } } });
    const devs: Deviation[] = [];
    devs.push(...(await expectOk('GET /statistics (unknownEnums)', '/statistics', 'GET /statistics', 'forward')).devs);
    devs.push(...(await expectOk('GET /api/v2/markets (unknownEnums)', '/api/v2/markets', 'GET /api/v2/markets', 'forward')).devs);
    devs.push(...(await expectOk('GET /api/v2/positions (unknownEnums)', '/api/v2/positions', 'GET /api/v2/positions', 'forward')).devs);
    if (state?.orders[0])
      devs.push(
        ...(await expectOk('GET /api/v2/order/{id} (unknownEnums)', `/api/v2/order/${state.orders[0]}`, 'GET /api/v2/order/{orderId}', 'forward')).devs,
      );
    await clear();
    expect(summary(devs)).toEqual([]);
  });

  // Every fault that changes the data but keeps the format (the others break the format on purpose:
  // malformedJson, truncatedBody, wrongTypes, oversizedBody's padding field, error answers).
  const FORMAT_KEEPING: [string, unknown][] = [
    ['halted', { halted: true }],
    ['datanodeLagBlocks', { datanodeLagBlocks: 12 }],
    ['peersZero', { peersZero: true }],
    ['fixedPeers', { fixedPeers: 3 }],
    ['nonFiniteDoubles', { nonFiniteDoubles: true }],
    ['marketsCore off (a data node)', { marketsCore: false }],
    ['stripFreshnessHeaders (bodies only)', { stripFreshnessHeaders: true }],
    ['latencyMs', { endpoints: { '*': { latencyMs: 5 } } }],
    ['pagination.duplicateRows', { endpoints: { '*': { pagination: { duplicateRows: true } } } }],
    ['pagination.stuckHasNext', { endpoints: { '*': { pagination: { stuckHasNext: true } } } }],
    ['pagination.cursorLoop', { endpoints: { '*': { pagination: { cursorLoop: true } } } }],
    ['segmentsStoppedBlocks, datanodeVersion', { segmentsStoppedBlocks: 2000, datanodeVersion: 'v0.78.9' }],
    ['longAuction, stakeBelowTarget, markPriceFrozen', { longAuction: true, stakeBelowTarget: true, markPriceFrozen: true }],
    ['validatorsLeft, validatorsInactive', { validatorsLeft: 1, validatorsInactive: 1 }],
  ];
  it.each(FORMAT_KEEPING)('%s: every endpoint the exporter reads still fits the v0.79 schema', async (_name, patch) => {
    await setFaults(patch);
    const devs: Deviation[] = [];
    const body = async (endpoint: string, path: string, route: RouteKey): Promise<void> => {
      const a = await get(path);
      if (a.status !== 200) devs.push({ endpoint, field: 'HTTP status', expected: '200', got: String(a.status) });
      else devs.push(...check(`${endpoint} (${_name})`, ENDPOINTS_V079[route], a.body));
    };
    await body('GET /statistics', '/statistics', 'GET /statistics');
    await body('GET /api/v2/networkhistory', '/api/v2/networkhistory', 'GET /api/v2/networkhistory');
    await body('GET /api/v2/info', '/api/v2/info', 'GET /api/v2/info');
    await body('GET /api/v2/networkhistory/segments', '/api/v2/networkhistory/segments', 'GET /api/v2/networkhistory/segments');
    await body('GET /api/v2/markets/data', '/api/v2/markets/data', 'GET /api/v2/markets/data');
    await body('GET /api/v2/network/data', '/api/v2/network/data', 'GET /api/v2/network/data');
    await body('GET /api/v2/epoch', '/api/v2/epoch', 'GET /api/v2/epoch');
    await body('GET /api/v2/vega/keys/rotations', '/api/v2/vega/keys/rotations?pagination.first=7', 'GET /api/v2/vega/keys/rotations');
    await body('GET /api/v2/markets', '/api/v2/markets?pagination.first=4', 'GET /api/v2/markets');
    if (marketIds[0]) await body('GET /api/v2/market/{id}', `/api/v2/market/${marketIds[0]}`, 'GET /api/v2/market/{marketId}');
    await body('GET /api/v2/positions', '/api/v2/positions?pagination.first=50', 'GET /api/v2/positions');
    await body('GET /api/v2/parties', '/api/v2/parties?pagination.first=50', 'GET /api/v2/parties');
    for (const id of state.orders.slice(0, 5)) await body('GET /api/v2/order/{id}', `/api/v2/order/${id}`, 'GET /api/v2/order/{orderId}');
    for (const id of state.signatureResources.slice(0, 2))
      await body('GET /api/v2/node/signatures', `/api/v2/node/signatures?id=${id}`, 'GET /api/v2/node/signatures');
    if ((patch as { marketsCore?: boolean }).marketsCore !== false) await body('GET /markets', '/markets', 'GET /markets');
    await clear();
    expect(summary(devs)).toEqual([]);
  });

  it('error faults map HTTP status to the documented gRPC code', async () => {
    const devs: Deviation[] = [];
    for (const [http, grpc] of [
      [500, [13, 2]],
      [503, [14]],
      [504, [4]],
      [429, [8]],
      [403, [7]],
    ] as const) {
      await setFaults({ endpoints: { statistics: { error: http } } });
      devs.push(...(await expectError(`GET /statistics (error ${http})`, '/statistics', http, [...grpc])));
      await clear();
    }
    expect(summary(devs)).toEqual([]);
  });
});
