/** The HTTP client and the paginator against the simulator: error decoding, caps, back-off, walks. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeyRotationsCollector } from '../../../src/exporter/vega/collectors/key-rotations.js';
import { ExporterError, UpstreamHttpError } from '../../../src/exporter/errors.js';
import { HttpClient, type ClientOptions } from '../../../src/exporter/http/client.js';
import { ByteBudget } from '../../../src/exporter/http/budget.js';
import { clientOptions } from '../../helpers/client-options.js';
import { walkPages } from '../../../src/exporter/vega/paginate.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { ManualClock } from '../../helpers/sim.js';

let sim: Simulator;
const statuses: string[] = [];
const opts = (over: Partial<ClientOptions> = {}): ClientOptions => clientOptions(sim.url, { onRequest: (_e, s) => statuses.push(s), ...over });
const signal = (): AbortSignal => AbortSignal.timeout(10_000);

beforeAll(async () => {
  sim = await startSimulator({ seed: 40, now: new ManualClock().now, rotations: 1234 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.clearFaults();
  statuses.length = 0;
});

describe('client', () => {
  it('decodes the node error body into a typed error', async () => {
    const c = new HttpClient(opts({ retries: 0 }));
    sim.patchFaults({ networkHistoryDisabled: true });
    const err = await c.get('/api/v2/networkhistory', [], 'networkhistory', signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamHttpError);
    expect(err).toMatchObject({ status: 500, grpcCode: 13, detailText: 'network history service not initialised', code: 'UPSTREAM_HTTP' });
    expect(typeof (err as UpstreamHttpError).detailCode).toBe('number');
    await c.close();
  });

  it('retries 5xx a bounded number of times, then gives up', async () => {
    const c = new HttpClient(opts({ retries: 2 }));
    sim.patchFaults({ endpoints: { statistics: { error: 503 } } });
    await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({ status: 503, grpcCode: 14 });
    expect(statuses).toEqual(['503', '503', '503']);
    await c.close();
  });

  it('a 403 ban with RateLimit-Retry-After stops further requests until it ends', async () => {
    const c = new HttpClient(opts());
    sim.patchFaults({ endpoints: { statistics: { error: 403 } } });
    await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({
      status: 403,
      code: 'UPSTREAM_RATE_LIMITED',
      retryAfterSeconds: 600,
    });
    const before = sim.requestCounts.get('statistics') ?? 0;
    sim.clearFaults();
    await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    expect(sim.requestCounts.get('statistics') ?? 0).toBe(before); // nothing sent: the ban is not extended
    await c.close();
  });

  it('cuts an oversized body at the cap, plain or gzip', async () => {
    const c = new HttpClient(opts({ maxResponseBytes: 64 * 1024 }));
    sim.patchFaults({ endpoints: { statistics: { oversizedBody: 5_000_000 } } });
    await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' });
    sim.clearFaults();
    // The markets list is gzip-compressed by the node; the cap applies to the decompressed size too.
    const small = new HttpClient(opts({ maxResponseBytes: 4 * 1024 }));
    await expect(small.get('/api/v2/markets', [], 'markets', signal())).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' });
    const ok = await c.get('/api/v2/markets', [], 'markets', signal());
    expect((ok.json as { markets: { edges: unknown[] } }).markets.edges.length).toBe(10);
    await c.close();
    await small.close();
  });

  it('a trickling body is cut at the deadline', async () => {
    const c = new HttpClient(opts({ bodyTimeoutMs: 300, retries: 0 }));
    sim.patchFaults({ endpoints: { statistics: { slowBody: { chunkBytes: 1, intervalMs: 1000 } } } });
    // At a byte a second the body would take half an hour, and no other deadline is set: a timeout
    // at all is the body deadline's cut.
    await expect(c.get('/statistics', [], 'statistics', new AbortController().signal)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await c.close();
  });

  it('percent-encodes cursors (they contain + / =)', async () => {
    const c = new HttpClient(opts());
    const first = (await c.get('/api/v2/parties', [['pagination.first', '3']], 'parties', signal())).json as any;
    const cursor: string = first.parties.pageInfo.endCursor;
    expect(cursor).toMatch(/[+/=]/);
    expect(c.pathFor('/x', [['pagination.after', cursor]])).not.toMatch(/after=[^&]*[+/=]/);
    const next = (
      await c.get(
        '/api/v2/parties',
        [
          ['pagination.first', '3'],
          ['pagination.after', cursor],
        ],
        'parties',
        signal(),
      )
    ).json as any;
    expect(next.parties.edges[0].node.id).not.toBe(first.parties.edges[2].node.id);
    await c.close();
  });
});

describe('walks', () => {
  const ctx = (client: HttpClient, maxPages = 100) => ({ target: 't', client, signal: signal(), pageSize: 100, maxPages });

  it('a cursor loop stops the walk and is reported as truncation', async () => {
    const c = new HttpClient(opts());
    sim.patchFaults({ endpoints: { rotations: { pagination: { cursorLoop: true } } } });
    const r = await new KeyRotationsCollector().collect(ctx(c));
    expect(r.truncated).toBe('cursor_loop');
    expect(r.pages).toBe(2);
    await c.close();
  });

  it('a page cap stops the walk, reports it, and the next poll carries on from there', async () => {
    const c = new HttpClient(opts());
    const col = new KeyRotationsCollector();
    const r1 = await col.collect(ctx(c, 5));
    expect(r1).toMatchObject({ truncated: 'page_cap', pages: 5 });
    expect(r1.samples.filter((s) => s.metric.name === 'vega_key_rotations_total').reduce((a, s) => a + s.value, 0)).toBe(500);
    const r2 = await col.collect(ctx(c, 100));
    expect(r2.truncated).toBeUndefined();
    expect(r2.samples.filter((s) => s.metric.name === 'vega_key_rotations_total').reduce((a, s) => a + s.value, 0)).toBe(1234);
    await c.close();
  });

  it('duplicate rows across pages are counted once', async () => {
    const c = new HttpClient(opts());
    sim.patchFaults({ endpoints: { rotations: { pagination: { duplicateRows: true } } } });
    const r = await new KeyRotationsCollector().collect(ctx(c));
    expect(r.samples.filter((s) => s.metric.name === 'vega_key_rotations_total').reduce((a, s) => a + s.value, 0)).toBe(1234);
    expect(r.truncated).toBeUndefined();
    await c.close();
  });

  it('hasNextPage stuck true ends on the empty page that follows', async () => {
    const c = new HttpClient(opts());
    sim.patchFaults({ endpoints: { rotations: { pagination: { stuckHasNext: true } } } });
    const r = await new KeyRotationsCollector().collect(ctx(c));
    expect(r.samples.filter((s) => s.metric.name === 'vega_key_rotations_total').reduce((a, s) => a + s.value, 0)).toBe(1234);
    expect(r).toMatchObject({ truncated: undefined, pages: 14 }); // 13 full pages and the empty one
    await c.close();
  });

  it('walkPages follows cursors to the end', async () => {
    let calls = 0;
    const res = await walkPages(
      async (after) => {
        calls++;
        const n = after ? Number(after) : 0;
        return { edges: [{ node: n }], pageInfo: { hasNextPage: n < 4, endCursor: String(n + 1) } };
      },
      () => {},
      { maxPages: 10 },
    );
    expect(res).toEqual({ pages: 5, truncated: undefined, lastCursor: '5' });
    expect(calls).toBe(5);
  });

  it('aborting the signal aborts the request with a timeout error', async () => {
    const c = new HttpClient(opts());
    sim.patchFaults({ endpoints: { statistics: { latencyMs: 2000 } } });
    const err = await c.get('/statistics', [], 'statistics', AbortSignal.timeout(200)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExporterError);
    expect((err as ExporterError).code).toBe('UPSTREAM_TIMEOUT');
    await c.close();
  });
});

describe('identity', () => {
  it('sends User-Agent datanode-exporter/<version>; a configured header replaces it', async () => {
    const seen: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers['user-agent']);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const plain = new HttpClient(opts({ url }));
      await plain.get('/statistics', [], 'statistics', signal());
      await plain.close();
      const custom = new HttpClient(opts({ url, headers: { 'User-Agent': 'my-gateway-key' } }));
      await custom.get('/statistics', [], 'statistics', signal());
      await custom.close();
    } finally {
      await new Promise((r) => server.close(r));
    }
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(seen).toEqual([`datanode-exporter/${version}`, 'my-gateway-key']);
  });
});

describe('encoding asked for', () => {
  it('a single message (statistics, info) is asked for as it is; a list gzipped, and both are read', async () => {
    const seen: [string, string | undefined][] = [];
    const server = http.createServer((req, res) => {
      seen.push([req.url!.split('?')[0]!, req.headers['accept-encoding']]);
      const body = Buffer.from(JSON.stringify({ segments: [], statistics: { blockHeight: '7' } }));
      if (req.headers['accept-encoding'] === 'gzip') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(body));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = new HttpClient(opts({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    try {
      for (const [path, endpoint] of [
        ['/statistics', 'statistics'],
        ['/api/v2/networkhistory/segments', 'networkhistory_segments'],
        ['/api/v2/info', 'info'],
        ['/api/v2/vega/keys/rotations', 'rotations'],
      ] as const)
        expect((await c.get(path, [], endpoint, signal())).json).toMatchObject({ statistics: { blockHeight: '7' } });
    } finally {
      await c.close();
      await new Promise((r) => server.close(r));
    }
    expect(seen).toEqual([
      ['/statistics', 'identity'],
      ['/api/v2/networkhistory/segments', 'gzip'],
      ['/api/v2/info', 'identity'],
      ['/api/v2/vega/keys/rotations', 'gzip'],
    ]);
  });
});

describe('gzip bodies', () => {
  /** A fake node that answers every request with `body`, gzip-labelled, without Content-Length (chunked) unless `declared`. */
  async function gzipNode(body: Buffer, run: (url: string) => Promise<void>, declared = false): Promise<void> {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', ...(declared ? { 'content-length': String(body.length) } : {}) });
      for (let off = 0; off < body.length; off += 16 * 1024) res.write(body.subarray(off, off + 16 * 1024));
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }
  const CAP = 64 * 1024;
  const get = async (url: string): Promise<unknown> => {
    const c = new HttpClient(opts({ url, maxResponseBytes: CAP, retries: 0 }));
    try {
      return (await c.get('/statistics', [], 'statistics', signal())).json;
    } finally {
      await c.close();
    }
  };

  it('decompresses a gzip body, chunked or of a declared length, small or inflating past one output chunk', async () => {
    const doc = { statistics: { blockHeight: '1234', chainId: 'test-chain' } };
    // Over 16 KiB once inflated, from a body of a few hundred bytes: more than one output chunk.
    const big = { statistics: { blockHeight: '1234', chainId: 'test-chain', peers: Array.from({ length: 15 }, (_, i) => `${i}:${'x'.repeat(3000)}`) } };
    for (const declared of [false, true]) {
      await gzipNode(gzipSync(JSON.stringify(doc)), async (url) => expect(await get(url)).toEqual(doc), declared);
      await gzipNode(gzipSync(JSON.stringify(big)), async (url) => expect(await get(url)).toEqual(big), declared);
    }
  });

  it('a body that inflates beyond the cap is refused with UPSTREAM_BODY_TOO_LARGE, chunked or of a declared length', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * CAP, 0x20)); // about 1 KiB that inflates to 640 KiB
    expect(bomb.length).toBeLessThan(CAP);
    for (const declared of [false, true])
      await gzipNode(bomb, async (url) => expect(get(url)).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' }), declared);
  });

  it('a compressed body beyond the cap is refused before it is inflated', async () => {
    const noise = gzipSync(Buffer.from(Array.from({ length: 2 * CAP }, (_, i) => (i * 7919) % 251)), { level: 0 });
    expect(noise.length).toBeGreaterThan(CAP);
    await gzipNode(noise, async (url) => expect(get(url)).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' }));
  });

  it('bytes that are not gzip, or a gzip stream cut short, are UPSTREAM_BAD_JSON "not valid gzip"', async () => {
    const notGzip = /statistics: response body is not valid gzip/;
    await gzipNode(Buffer.from('{"statistics":{}}'), async (url) => {
      await expect(get(url)).rejects.toMatchObject({ code: 'UPSTREAM_BAD_JSON', message: expect.stringMatching(notGzip) });
    });
    const whole = gzipSync(JSON.stringify({ statistics: { blockHeight: '1' } }));
    await gzipNode(whole.subarray(0, whole.length - 6), async (url) => {
      await expect(get(url)).rejects.toMatchObject({ code: 'UPSTREAM_BAD_JSON', message: expect.stringMatching(notGzip) });
    });
  });
});

describe('held-answer budget', () => {
  /** A node answering every request with `body` (200 unless `status`), counting requests in flight at once. */
  async function node(body: string, run: (url: string, peak: () => number) => Promise<void>, status = 200): Promise<void> {
    let open = 0;
    let peak = 0;
    const server = http.createServer((_req, res) => {
      peak = Math.max(peak, ++open);
      // Answered on the next turn: a second request sent meanwhile would be in flight alongside.
      setImmediate(() => {
        open--;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => peak);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }
  const SINGLE = 256 * 1024; // one message's bound (bounds.ts)

  it('an answer larger than the budget can hold (its sixth) is refused with UPSTREAM_BODY_TOO_LARGE, under max_response_bytes', async () => {
    const budget = new ByteBudget(6 * 64 * 1024);
    const body = JSON.stringify({ statistics: { peers: Array.from({ length: 40 }, () => 'x'.repeat(2_000)) } }); // about 80 KiB
    await node(body, async (url) => {
      const c = new HttpClient(opts({ url, retries: 0, budgets: [budget] }));
      await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' });
      await c.close();
    });
    expect(budget.held).toBe(0);
  });

  it('a request waits for the budget before it is sent; it is freed once the caller has taken the answer, or on an error', async () => {
    const budget = new ByteBudget(6 * SINGLE); // one message's worst case at a time
    await node('{"statistics":{}}', async (url, peak) => {
      const c = new HttpClient(opts({ url, retries: 0, budgets: [budget] }));
      const answers = await Promise.all([1, 2, 3].map(() => c.get('/statistics', [], 'statistics', signal())));
      expect(answers.map((a) => a.json)).toEqual([1, 2, 3].map(() => ({ statistics: {} })));
      expect(peak()).toBe(1);
      await new Promise((r) => setImmediate(r));
      expect(budget.held).toBe(0);
      await c.close();
    });
    await node(
      '{"code":5,"message":"Not Found"}',
      async (url) => {
        const c = new HttpClient(opts({ url, retries: 0, budgets: [budget] }));
        await expect(c.get('/markets', [], 'markets', signal())).rejects.toMatchObject({ status: 404 });
        expect(budget.held).toBe(0);
        await c.close();
      },
      404,
    );
  });

  it("the process-wide budget is shared: two targets' clients wait for each other", async () => {
    const shared = new ByteBudget(6 * SINGLE);
    await node('{"statistics":{}}', async (url, peak) => {
      const a = new HttpClient(opts({ url, retries: 0, budgets: [new ByteBudget(12 * SINGLE), shared] }));
      const b = new HttpClient(opts({ url, retries: 0, budgets: [new ByteBudget(12 * SINGLE), shared] }));
      await Promise.all([a, b, a, b].map((c) => c.get('/statistics', [], 'statistics', signal())));
      expect(peak()).toBe(1);
      await Promise.all([a.close(), b.close()]);
    });
  });
});
