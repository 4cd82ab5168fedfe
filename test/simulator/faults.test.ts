/** Each simulator fault, switched on, changes the responses as described; switched off, restores them. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSimulatorArgs } from '@datanode-exporter/simulator/cli';
import { ManualClock, withSim } from '../helpers/sim.js';

type Sim = Awaited<ReturnType<typeof withSim>>;
let sim: Sim;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await withSim({ seed: 11, now: clock.now, rotations: 30 });
});
afterAll(() => sim.close());
beforeEach(() => sim.clearFaults());

async function stats(): Promise<{ status: number; body: any; headers: Headers }> {
  return sim.json('/statistics');
}

describe('network faults', () => {
  it('chain halt freezes height and block time; clearing it resumes', async () => {
    const h0 = (await stats()).body.statistics;
    sim.patchFaults({ halted: true });
    clock.advance(10_000);
    const h1 = (await stats()).body.statistics;
    expect(h1.blockHeight).toBe(h0.blockHeight);
    expect(h1.vegaTime).toBe(h0.vegaTime);
    expect(h1.currentTime).not.toBe(h0.currentTime); // the wall clock still moves
    sim.patchFaults({ halted: false });
    clock.advance(3_000);
    expect(Number((await stats()).body.statistics.blockHeight)).toBe(Number(h0.blockHeight) + 3);
  });

  it('data-node lag puts X-Block-Height behind core', async () => {
    sim.patchFaults({ datanodeLagBlocks: 200 });
    const r = await stats();
    expect(Number(r.headers.get('x-block-height'))).toBe(Number(r.body.statistics.blockHeight) - 200);
    const lagTs = BigInt(r.headers.get('x-block-timestamp')!);
    sim.clearFaults();
    const r2 = await stats();
    expect(r2.headers.get('x-block-height')).toBe(r2.body.statistics.blockHeight);
    expect(BigInt(r2.headers.get('x-block-timestamp')!) - lagTs).toBeGreaterThan(190n * 1_000_000_000n);
  });

  it('consensus peers drop to zero, or stay pinned to a number', async () => {
    sim.patchFaults({ fixedPeers: 2 });
    expect((await stats()).body.statistics.totalPeers).toBe('2');
    sim.patchFaults({ fixedPeers: null, peersZero: true });
    expect((await stats()).body.statistics.totalPeers).toBe('0');
    sim.clearFaults();
    expect(Number((await stats()).body.statistics.totalPeers)).toBeGreaterThan(0);
  });

  it('network history disabled answers 500 with the real error text', async () => {
    sim.patchFaults({ networkHistoryDisabled: true });
    const r = await sim.json('/api/v2/networkhistory');
    expect(r.status).toBe(500);
    expect(r.body.code).toBe(13);
    expect(r.body.details[0].message).toBe('network history service not initialised');
    sim.clearFaults();
    expect((await sim.json('/api/v2/networkhistory')).status).toBe(200);
  });

  it('replaying: unset sentinels for genesis time, chain id and epoch expiry', async () => {
    sim.patchFaults({ replaying: true });
    const s = (await stats()).body.statistics;
    expect(s.genesisTime).toBe('');
    expect(s.chainId).toBe('');
    expect(s.epochExpiryTime).toBe('0001-01-01T00:00:00Z');
    expect(s.status).toBe('CHAIN_STATUS_REPLAYING');
  });

  it('freshness headers can be stripped everywhere or for one endpoint', async () => {
    sim.patchFaults({ stripFreshnessHeaders: true });
    expect((await stats()).headers.has('x-block-height')).toBe(false);
    sim.patchFaults({ stripFreshnessHeaders: false, endpoints: { statistics: { missingFreshnessHeaders: true } } });
    expect((await stats()).headers.has('x-block-timestamp')).toBe(false);
    expect((await sim.json('/api/v2/parties')).headers.has('x-block-height')).toBe(true);
    sim.clearFaults();
    expect((await stats()).headers.has('x-block-height')).toBe(true);
  });
});

describe('endpoint faults', () => {
  const errors: [number, number][] = [
    [500, 13],
    [503, 14],
    [504, 4],
    [429, 8],
    [403, 7],
  ];
  it.each(errors)('error %i answers with gRPC code %i and the error body', async (http, grpc) => {
    sim.patchFaults({ endpoints: { statistics: { error: http } } });
    const r = await stats();
    expect(r.status).toBe(http);
    expect(r.body.code).toBe(grpc);
    if (http === 429) expect(r.headers.get('ratelimit-remaining')).toBe('0');
    if (http === 403) expect(r.headers.get('ratelimit-retry-after')).toBe('600');
    expect((await sim.json('/api/v2/parties')).status).toBe(200); // other endpoints untouched
    sim.clearFaults();
    expect((await stats()).status).toBe(200);
  });

  it('the rate-limit fault answers 429 three times, then bans with 403', async () => {
    sim.patchFaults({ endpoints: { statistics: { error: 'ratelimit' } } });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await stats()).status);
    expect(statuses).toEqual([429, 429, 429, 403, 403]);
  });

  it('latency delays the response', async () => {
    sim.patchFaults({ endpoints: { statistics: { latencyMs: 300 } } });
    const t = performance.now();
    await stats();
    expect(performance.now() - t).toBeGreaterThanOrEqual(290);
  });

  it('malformed JSON', async () => {
    sim.patchFaults({ endpoints: { statistics: { malformedJson: true } } });
    const text = await (await sim.get('/statistics')).text();
    expect(() => JSON.parse(text)).toThrow();
    sim.clearFaults();
    expect(() => JSON.parse(text)).toThrow();
  });

  it('truncated body drops the connection half way', async () => {
    sim.patchFaults({ endpoints: { statistics: { truncatedBody: true } } });
    await expect(sim.get('/statistics').then((r) => r.text())).rejects.toThrow();
  });

  it('a slow body trickles', async () => {
    sim.patchFaults({ endpoints: { statistics: { slowBody: { chunkBytes: 100, intervalMs: 60 } } } });
    const t = performance.now();
    const body: any = await (await sim.get('/statistics')).json();
    expect(performance.now() - t).toBeGreaterThanOrEqual(400);
    expect(body.statistics.blockHeight).toMatch(/^\d+$/);
  });

  it('an oversized body is valid JSON of the requested size', async () => {
    sim.patchFaults({ endpoints: { statistics: { oversizedBody: 3_000_000 } } });
    const res = await sim.get('/statistics');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(3_000_000);
    const body: any = await res.json();
    expect(body.padding).toHaveLength(3_000_000);
    expect(body.statistics.blockHeight).toMatch(/^\d+$/);
  });

  it('wrong types in fields', async () => {
    sim.patchFaults({ endpoints: { statistics: { wrongTypes: true } } });
    const s = (await stats()).body.statistics;
    expect(typeof s.blockHeight).toBe('boolean');
    expect(typeof s.orderSubscriptions).toBe('string');
  });

  it('unknown enum values come as integers', async () => {
    sim.patchFaults({ endpoints: { '*': { unknownEnums: true } } });
    expect((await stats()).body.statistics.status).toBe(99);
    const m = (await sim.json('/api/v2/markets')).body.markets.edges[0].node;
    expect(m.state).toBe(99);
    expect(m.tradingMode).toBe(99);
  });

  it('pagination faults: cursor loop, hasNextPage stuck true, duplicate rows', async () => {
    const first = (await sim.json('/api/v2/parties?pagination.first=10')).body.parties;
    const after = encodeURIComponent(first.pageInfo.endCursor);
    sim.patchFaults({ endpoints: { parties: { pagination: { cursorLoop: true } } } });
    const loop = (await sim.json(`/api/v2/parties?pagination.first=10&pagination.after=${after}`)).body.parties;
    expect(loop.pageInfo.endCursor).toBe(first.pageInfo.endCursor);
    expect(loop.pageInfo.hasNextPage).toBe(true);

    sim.patchFaults({ endpoints: { parties: { pagination: { cursorLoop: false, stuckHasNext: true } } } });
    const all = (await sim.json('/api/v2/parties?pagination.first=5000')).body.parties;
    expect(all.pageInfo.hasNextPage).toBe(true);

    sim.patchFaults({ endpoints: { parties: { pagination: { stuckHasNext: false, duplicateRows: true } } } });
    const dup = (await sim.json(`/api/v2/parties?pagination.first=10&pagination.after=${after}`)).body.parties;
    expect(dup.edges[0].node.id).toBe(first.edges[9].node.id);

    sim.clearFaults();
    const clean = (await sim.json(`/api/v2/parties?pagination.first=10&pagination.after=${after}`)).body.parties;
    expect(clean.edges[0].node.id).not.toBe(first.edges[9].node.id);
    expect(clean.pageInfo.endCursor).not.toBe(first.pageInfo.endCursor);
  });
});

describe('rate limiting like a real node', () => {
  it('refuses past the burst with 429, then bans with 403 and RateLimit-Retry-After', async () => {
    sim.patchFaults({ rateLimit: { enabled: true, rps: 1, burst: 5, banAfter: 3, banSeconds: 60 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 10; i++) {
      const r = await stats();
      statuses.push(r.status);
      if (r.status === 403) retryAfter = r.headers.get('ratelimit-retry-after');
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5, 8)).toEqual([429, 429, 429]);
    expect(statuses.slice(8)).toEqual([403, 403]);
    expect(Number(retryAfter)).toBeGreaterThan(50);
  });
});

describe('fault control', () => {
  it('the admin endpoint takes a JSON patch and names a bad field', async () => {
    const put = await sim.get('/__sim/faults', { method: 'PUT', body: JSON.stringify({ endpoints: { statistics: { error: 503 } } }) });
    expect(put.status).toBe(200);
    expect((await stats()).status).toBe(503);
    const bad = await sim.get('/__sim/faults', { method: 'PUT', body: JSON.stringify({ endpoints: { statistics: { eror: 1 } } }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toContain('endpoints.statistics.eror');
    await sim.get('/__sim/faults', { method: 'DELETE' });
    expect((await stats()).status).toBe(200);
  });

  it('startup flags map to faults and scale knobs', () => {
    const o = parseSimulatorArgs([
      '--port',
      '0',
      '--seed',
      '3',
      '--rotations',
      '100000',
      '--halt',
      '--datanode-lag',
      '12',
      '--profile',
      'datanode',
      '--non-finite-doubles',
      '--faults',
      '{"endpoints":{"statistics":{"latencyMs":5}}}',
    ]);
    expect(o).toMatchObject({
      port: 0,
      seed: 3,
      rotations: 100000,
      profile: 'datanode',
      faults: { halted: true, datanodeLagBlocks: 12, nonFiniteDoubles: true, endpoints: { statistics: { latencyMs: 5 } } },
    });
    expect(parseSimulatorArgs(['--markets-404'])).toMatchObject({ profile: 'datanode' }); // old scripts' name for it
    expect(parseSimulatorArgs(['--markets-core'])).not.toHaveProperty('profile'); // the default now
    expect(() => parseSimulatorArgs(['--profile', 'core'])).toThrow(/--profile: expected spec or datanode/);
    expect(() => parseSimulatorArgs(['--rotations', 'many'])).toThrow(/--rotations/);
  });

  it('profiles: spec serves GET /markets, datanode answers 404 there, and clearing faults returns to the profile', async () => {
    const spec = await withSim({ now: new ManualClock().now });
    const dn = await withSim({ now: new ManualClock().now, profile: 'datanode' });
    try {
      expect((await spec.json('/markets')).status).toBe(200);
      const gone = await dn.json('/markets');
      expect([gone.status, gone.body]).toEqual([404, { code: 5, message: 'Not Found', details: [] }]);
      expect((await dn.json('/api/v2/markets')).status).toBe(200);
      dn.patchFaults({ marketsCore: true });
      expect((await dn.json('/markets')).status).toBe(200);
      await dn.get('/__sim/faults', { method: 'DELETE' });
      expect((await dn.json('/markets')).status).toBe(404);
      spec.patchFaults({ marketsCore: false });
      await spec.get('/__sim/faults', { method: 'DELETE' });
      expect((await spec.json('/markets')).status).toBe(200);
    } finally {
      await spec.close();
      await dn.close();
    }
  });

  it('startup faults are in force from the first request', async () => {
    const s = await withSim({ now: new ManualClock().now, faults: { peersZero: true, networkHistoryDisabled: true } });
    try {
      expect((await s.json('/statistics')).body.statistics.totalPeers).toBe('0');
      expect((await s.json('/api/v2/networkhistory')).status).toBe(500);
    } finally {
      await s.close();
    }
  });
});
