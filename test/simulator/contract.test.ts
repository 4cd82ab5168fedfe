/**
 * Contract tests: every operation of the simulated data node over real HTTP, against the encodings
 * real nodes use. The simulator's clock is manual, so the network stands still unless a test moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkShape, type Shape } from '../helpers/shape.js';
import { ManualClock, withSim } from '../helpers/sim.js';
import { MARKET, NETWORK_HISTORY, ORDER, PAGE_INFO, PARTY, POSITION, ROTATION, SIGNATURE, STATISTICS } from './shapes.js';

type Sim = Awaited<ReturnType<typeof withSim>>;
let sim: Sim;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await withSim({ seed: 42, now: clock.now, rotations: 137, parties: 53, markets: 12, positions: 71, orders: 9, validators: 4, signatureResources: 4 });
});
afterAll(() => sim.close());

function expectShape(value: unknown, shape: Shape): void {
  expect(checkShape(value, shape)).toEqual([]);
}

describe('shapes', () => {
  it('statistics carries every field, encoded as real nodes encode them, and the freshness headers', async () => {
    const { status, body, headers } = await sim.json('/statistics');
    expect(status).toBe(200);
    expectShape(body.statistics, STATISTICS);
    expect(headers.get('x-block-height')).toBe(body.statistics.blockHeight);
    expect(headers.get('x-block-timestamp')).toMatch(/^\d{19}$/);
    expect(body.statistics.vegaTime).toMatch(/\.\d{1,9}Z$/);
    expect(headers.get('ratelimit-limit')).toBe('20');
  });

  it('network history is unwrapped and lists peers with duplicates, shuffled per call', async () => {
    const a = await sim.json('/api/v2/networkhistory');
    expectShape(a.body, NETWORK_HISTORY);
    const peers: string[] = a.body.connectedPeers;
    expect(peers.length).toBeGreaterThan(new Set(peers).size); // seed 42 yields duplicates
    for (const p of peers) expect(p).toMatch(/^\/ip4\/[\d.]+\/tcp\/\d+\/p2p\/12D3KooW\w+$/);
    const b = await sim.json('/api/v2/networkhistory');
    expect(new Set(b.body.connectedPeers)).toEqual(new Set(peers));
    expect(b.body.connectedPeers).not.toEqual(peers);
  });

  const lists: [string, string, Shape][] = [
    ['/api/v2/vega/keys/rotations', 'rotations', ROTATION],
    ['/api/v2/chain/keys/rotations', 'rotations', ROTATION],
    ['/api/v2/parties', 'parties', PARTY],
    ['/api/v2/positions', 'positions', POSITION],
    ['/api/v2/markets', 'markets', MARKET],
  ];
  it.each(lists)('%s pages carry full records and opaque cursors', async (path, key, shape) => {
    const { status, body } = await sim.json(`${path}?pagination.first=50`);
    expect(status).toBe(200);
    expectShape(body[key].pageInfo, PAGE_INFO);
    expect(body[key].edges.length).toBeGreaterThan(0);
    for (const e of body[key].edges) {
      expectShape(e.node, shape);
      expect(e.cursor).toMatch(/[+/]/);
      expect(e.cursor).toMatch(/=$/);
    }
  });

  it('signatures need an id; a known id lists its signatures; an unknown one is an empty page', async () => {
    const state = await sim.json('/__sim/state');
    const ids: string[] = state.body.signatureResources;
    let total = 0;
    for (const id of ids) {
      const { status, body } = await sim.json(`/api/v2/node/signatures?id=${id}`);
      expect(status).toBe(200);
      for (const e of body.signatures.edges) {
        expectShape(e.node, SIGNATURE);
        expect(e.node.id).toBe(id);
      }
      total += body.signatures.edges.length;
    }
    expect(total).toBeGreaterThan(0);
    const empty = await sim.json(`/api/v2/node/signatures?id=${'ab'.repeat(32)}`);
    expect(empty.status).toBe(200);
    expect(empty.body.signatures).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' } });
  });

  it('markets: /markets by default as the specification has it, unpaginated with ?market=; 404 with marketsCore off (a data node); /api/v2/market/{id}', async () => {
    const all = await sim.json('/markets');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['markets']);
    expect(all.body.markets).toHaveLength(12);
    for (const m of all.body.markets) expectShape(m, MARKET);
    const products = new Set(
      all.body.markets.map((m: any) => Object.keys(m.tradableInstrument.instrument).find((k) => ['future', 'perpetual', 'spot'].includes(k))),
    );
    expect(products).toEqual(new Set(['future', 'perpetual', 'spot']));
    expect(all.body.markets.some((m: any) => Number(m.positionDecimalPlaces) < 0)).toBe(true);
    const one = await sim.json(`/markets?market=${all.body.markets[3].id}`);
    expect(one.body.markets).toEqual([all.body.markets[3]]);
    expect((await sim.json(`/markets?market=${'0'.repeat(64)}`)).body).toEqual({ markets: [] });
    const single = await sim.json(`/api/v2/market/${all.body.markets[3].id}`);
    expect(single.body.market).toEqual(all.body.markets[3]);
    expect((await sim.json('/api/v2/markets')).status).toBe(200);
    sim.patchFaults({ marketsCore: false });
    const gone = await sim.json('/markets');
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 5, message: 'Not Found', details: [] });
    expect((await sim.json('/api/v2/markets')).status).toBe(200);
    sim.patchFaults({ marketsCore: true });
  });

  it('orders: latest version by default, every version by number, rejection reason only when rejected', async () => {
    const state = await sim.json('/__sim/state');
    for (const id of state.body.orders as string[]) {
      const latest = await sim.json(`/api/v2/order/${id}`);
      expect(latest.status).toBe(200);
      expectShape(latest.body.order, ORDER);
      expect('reason' in latest.body.order).toBe(latest.body.order.status === 'STATUS_REJECTED');
      const v1 = await sim.json(`/api/v2/order/${id}?version=1`);
      expect(v1.body.order.version).toBe('1');
      expect(v1.body.order.createdAt).toMatch(/000$/); // microsecond truncation
    }
  });

  it('parties: a known partyId is a one-row page', async () => {
    const first = await sim.json('/api/v2/parties?pagination.first=1');
    const id = first.body.parties.edges[0].node.id;
    const one = await sim.json(`/api/v2/parties?partyId=${id}`);
    expect(one.body.parties.edges.map((e: any) => e.node.id)).toEqual([id]);
  });

  it('positions filter by party and market, repeated or comma-separated', async () => {
    const all = (await sim.json('/api/v2/positions?pagination.first=5000')).body.positions.edges.map((e: any) => e.node);
    const [a, b] = [all[0], all[1]];
    const rep = await sim.json(`/api/v2/positions?filter.partyIds=${a.partyId}&filter.partyIds=${b.partyId}`);
    const csv = await sim.json(`/api/v2/positions?filter.partyIds=${a.partyId},${b.partyId}`);
    const expected = all.filter((p: any) => p.partyId === a.partyId || p.partyId === b.partyId);
    expect(rep.body.positions.edges.map((e: any) => e.node)).toEqual(expected);
    expect(csv.body.positions.edges.map((e: any) => e.node)).toEqual(expected);
    const both = await sim.json(`/api/v2/positions?filter.partyIds=${a.partyId}&filter.marketIds=${a.marketId}`);
    expect(both.body.positions.edges.map((e: any) => e.node)).toEqual([a]);
    const network = await sim.json('/api/v2/positions?filter.partyIds=network');
    expect(network.status).toBe(200);
  });

  it('rotations filter by nodeId; an unknown node is an empty page', async () => {
    const all = (await sim.json('/api/v2/vega/keys/rotations?pagination.first=5000')).body.rotations.edges.map((e: any) => e.node);
    const node = all[0].nodeId;
    const mine = await sim.json(`/api/v2/vega/keys/rotations?nodeId=${node}&pagination.first=5000`);
    expect(mine.body.rotations.edges.map((e: any) => e.node)).toEqual(all.filter((r: any) => r.nodeId === node));
    const none = await sim.json(`/api/v2/vega/keys/rotations?nodeId=${'0'.repeat(64)}`);
    expect(none.status).toBe(200);
    expect(none.body.rotations.edges).toEqual([]);
    // Newest first by default: block heights never increase down the page.
    const heights = all.map((r: any) => Number(r.blockHeight));
    expect([...heights].sort((x, y) => y - x)).toEqual(heights);
  });
});

/** Walk a list to its end; returns the row keys in the order they came. */
async function walk(path: string, key: string, rowKey: (n: any) => string, dir: 'forward' | 'backward', newestFirst: boolean, size: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  const sep = path.includes('?') ? '&' : '?';
  for (let i = 0; i < 10_000; i++) {
    let q = `${sep}pagination.newestFirst=${newestFirst}&pagination.${dir === 'forward' ? 'first' : 'last'}=${size}`;
    if (cursor) q += `&pagination.${dir === 'forward' ? 'after' : 'before'}=${encodeURIComponent(cursor)}`;
    const { status, body } = await sim.json(path + q);
    expect(status).toBe(200);
    const conn = body[key];
    const keys = conn.edges.map((e: any) => rowKey(e.node));
    if (dir === 'forward') {
      out.push(...keys);
      if (!conn.pageInfo.hasNextPage) return out;
      cursor = conn.pageInfo.endCursor;
    } else {
      out.unshift(...keys);
      if (!conn.pageInfo.hasPreviousPage) return out;
      cursor = conn.pageInfo.startCursor;
    }
  }
  throw new Error('walk did not end');
}

describe('pagination', () => {
  const sigPath = async (): Promise<string> => {
    const state = await sim.json('/__sim/state');
    // The resource with the most signatures, so the walk spans pages.
    let best = state.body.signatureResources[0];
    let n = -1;
    for (const id of state.body.signatureResources) {
      const c = (await sim.json(`/api/v2/node/signatures?id=${id}`)).body.signatures.edges.length;
      if (c > n) [best, n] = [id, c];
    }
    return `/api/v2/node/signatures?id=${best}`;
  };
  const cases: [string, string | (() => Promise<string>), string, (n: any) => string, number][] = [
    ['rotations', '/api/v2/vega/keys/rotations', 'rotations', (n) => n.newPubKey, 137],
    ['parties', '/api/v2/parties', 'parties', (n) => n.id, 53],
    ['positions', '/api/v2/positions', 'positions', (n) => `${n.partyId}/${n.marketId}`, 71],
    ['markets', '/api/v2/markets', 'markets', (n) => n.id, 12],
    ['signatures', sigPath, 'signatures', (n) => n.sig, -1],
  ];
  it.each(cases)('%s: first/after and last/before, both orders, cover the same rows once each', async (_name, p, key, rowKey, expected) => {
    const path = typeof p === 'string' ? p : await p();
    const size = 2;
    const fwdNew = await walk(path, key, rowKey, 'forward', true, size);
    const fwdOld = await walk(path, key, rowKey, 'forward', false, size);
    const backNew = await walk(path, key, rowKey, 'backward', true, size);
    const backOld = await walk(path, key, rowKey, 'backward', false, size);
    if (expected > 0) expect(fwdNew).toHaveLength(expected);
    expect(new Set(fwdNew).size).toBe(fwdNew.length);
    expect(fwdOld).toEqual([...fwdNew].reverse());
    expect(backNew).toEqual(fwdNew);
    expect(backOld).toEqual(fwdOld);
  });

  it('default page is 1000 rows and 5000 is the maximum', async () => {
    const big = await withSim({ seed: 3, now: clock.now, rotations: 6000 });
    try {
      const def = await big.json('/api/v2/vega/keys/rotations');
      expect(def.body.rotations.edges).toHaveLength(1000);
      expect(def.body.rotations.pageInfo.hasNextPage).toBe(true);
      expect((await big.json('/api/v2/vega/keys/rotations?pagination.first=5000')).body.rotations.edges).toHaveLength(5000);
      expect((await big.json('/api/v2/vega/keys/rotations?pagination.first=5001')).status).toBe(400);
    } finally {
      await big.close();
    }
  });

  it('an un-encoded cursor (its + read as a space) is rejected, not silently misread', async () => {
    const p = await sim.json('/api/v2/parties?pagination.first=2');
    const raw = p.body.parties.pageInfo.endCursor as string;
    expect(raw).toContain('+');
    const res = await sim.json(`/api/v2/parties?pagination.first=2&pagination.after=${raw}`);
    expect(res.status).toBe(400);
  });
});

describe('bad input gets the documented status and error body', () => {
  const hex = 'ab'.repeat(32);
  const cases: [string, number, number][] = [
    ['/api/v2/parties?pagination.first=0', 400, 3],
    ['/api/v2/parties?pagination.first=5001', 400, 3],
    ['/api/v2/parties?pagination.last=0', 400, 3],
    ['/api/v2/parties?pagination.first=abc', 400, 3],
    ['/api/v2/parties?pagination.first=1&pagination.first=2', 400, 3],
    ['/api/v2/parties?pagination.first=2&pagination.last=2', 400, 3],
    ['/api/v2/parties?pagination.after=x&pagination.before=y', 400, 3],
    ['/api/v2/parties?pagination.after=bm90LWEtY3Vyc29y', 400, 3],
    ['/api/v2/parties?pagination.newestFirst=maybe', 400, 3],
    [`/api/v2/parties?partyId=${hex}`, 404, 5],
    ['/api/v2/order/not-hex', 404, 5], // any string is an id in the specification; the datanode profile's 400: id-shapes.test.ts
    [`/api/v2/order/${hex}`, 404, 5],
    [`/api/v2/market/${hex}`, 404, 5],
    ['/api/v2/node/signatures', 400, 3],
    ['/no/such/route', 404, 5],
  ];
  it.each(cases)('%s → %i (gRPC %i)', async (path, http, grpc) => {
    const { status, body, headers } = await sim.json(path);
    expect(status).toBe(http);
    expect(body.code).toBe(grpc);
    expect(typeof body.message).toBe('string');
    expect(Array.isArray(body.details)).toBe(true);
    for (const d of body.details) expect(d['@type']).toBe('type.googleapis.com/vega.ErrorDetail');
    expect(headers.get('x-block-height')).toMatch(/^\d+$/); // errors carry freshness headers too
  });

  it('order versions: 0 and negatives are 400, beyond the latest is 404', async () => {
    const id = (await sim.json('/__sim/state')).body.orders[0];
    expect((await sim.json(`/api/v2/order/${id}?version=0`)).status).toBe(400);
    expect((await sim.json(`/api/v2/order/${id}?version=-2`)).status).toBe(400);
    expect((await sim.json(`/api/v2/order/${id}?version=999`)).status).toBe(404);
  });

  it('wrong method is 501 Unimplemented', async () => {
    const res = await sim.get('/statistics', { method: 'POST' });
    expect(res.status).toBe(501);
    expect(((await res.json()) as any).code).toBe(12);
  });
});

describe('a living, seeded network', () => {
  it('is deterministic: the same seed and clock give the same bytes', async () => {
    const c1 = new ManualClock();
    const c2 = new ManualClock();
    const a = await withSim({ seed: 9, now: c1.now });
    const b = await withSim({ seed: 9, now: c2.now });
    try {
      c1.advance(45_000);
      c2.advance(45_000);
      for (const p of ['/statistics', '/api/v2/markets', '/api/v2/vega/keys/rotations', '/api/v2/positions', '/api/v2/parties']) {
        expect(await (await a.get(p)).text()).toBe(await (await b.get(p)).text());
      }
      const c = await withSim({ seed: 10, now: new ManualClock().now });
      expect(await (await c.get('/api/v2/markets')).text()).not.toBe(await (await a.get('/api/v2/markets')).text());
      await c.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('moves with the clock: height, block time, epochs, rotations, orders, positions', async () => {
    const c = new ManualClock();
    const s = await withSim({ seed: 5, now: c.now, blockIntervalMs: 1000, epochBlocks: 50, rotationEveryBlocks: 20, orders: 5, validators: 3 });
    try {
      const before = (await s.json('/statistics')).body.statistics;
      const rotBefore = s.net.rotations.length;
      const versionsBefore = s.net.orders.reduce((n, o) => n + o.versions.length, 0);
      const posBefore = JSON.stringify((await s.json('/api/v2/positions')).body);
      c.advance(600_000); // 600 blocks
      const after = (await s.json('/statistics')).body.statistics;
      expect(Number(after.blockHeight) - Number(before.blockHeight)).toBe(600);
      expect(Date.parse(after.vegaTime) - Date.parse(before.vegaTime)).toBeGreaterThan(590_000);
      expect(Number(after.epochSeq)).toBeGreaterThanOrEqual(Number(before.epochSeq) + 11);
      expect(BigInt(after.totalOrders)).toBeGreaterThan(BigInt(before.totalOrders));
      expect(s.net.rotations.length).toBeGreaterThan(rotBefore);
      expect(s.net.orders.reduce((n, o) => n + o.versions.length, 0)).toBeGreaterThan(versionsBefore);
      expect(JSON.stringify((await s.json('/api/v2/positions')).body)).not.toBe(posBefore);
    } finally {
      await s.close();
    }
  });

  it('with 22,000 rotations (five pages, the last one short) a first=5000 walk returns each exactly once and a mid-walk cursor resumes', async () => {
    const big = await withSim({ seed: 77, now: new ManualClock().now, rotations: 22_000 });
    try {
      const seen = new Set<string>();
      let cursor = '';
      let pages = 0;
      let midCursor = '';
      const tail: string[] = [];
      for (;;) {
        const q = `/api/v2/vega/keys/rotations?pagination.first=5000&pagination.newestFirst=false${cursor ? `&pagination.after=${encodeURIComponent(cursor)}` : ''}`;
        const conn = (await big.json(q)).body.rotations;
        pages++;
        for (const e of conn.edges) {
          expect(seen.has(e.node.newPubKey)).toBe(false);
          seen.add(e.node.newPubKey);
          if (pages > 2) tail.push(e.node.newPubKey);
        }
        if (pages === 2) midCursor = conn.pageInfo.endCursor;
        if (!conn.pageInfo.hasNextPage) break;
        cursor = conn.pageInfo.endCursor;
      }
      expect(seen.size).toBe(22_000);
      expect(pages).toBe(5);
      // Resume from the cursor saved after page 2: exactly the remaining rows, in order.
      const resumed: string[] = [];
      cursor = midCursor;
      for (;;) {
        const conn = (
          await big.json(`/api/v2/vega/keys/rotations?pagination.first=5000&pagination.newestFirst=false&pagination.after=${encodeURIComponent(cursor)}`)
        ).body.rotations;
        resumed.push(...conn.edges.map((e: any) => e.node.newPubKey));
        if (!conn.pageInfo.hasNextPage) break;
        cursor = conn.pageInfo.endCursor;
      }
      expect(resumed).toEqual(tail);
    } finally {
      await big.close();
    }
  });
});
