/** The HTTP face with fake dependencies: every route and method, over a real socket on 127.0.0.1. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_TYPE } from '../../../src/exporter/exposition/render.js';
import { SelfMetrics } from '../../../src/exporter/exposition/self-metrics.js';
import { Gauge, Registry } from '../../../src/exporter/process/lean/prom-client.js';
import { createHandler, listen, type RunnerStatus, type ServerDeps } from '../../../src/exporter/web/server.js';

const POLLED = 'vega_up{target="dn1"} 1\n';

/** What the fakes were asked, and what they answer. */
const fake = {
  pending: [] as string[],
  status: [] as RunnerStatus[],
  probeCalls: [] as { query: string; timeout: number | undefined }[],
  probeAnswer: { status: 200, body: 'vega_up{target="p"} 1\n' },
  reloadError: undefined as Error | undefined,
  reloads: 0,
};

let server: http.Server;
let base: { host: string; port: number };

beforeAll(async () => {
  const registry = new Registry();
  new Gauge({ name: 'test_self_gauge', help: 'A self metric.', registers: [registry] }).set(7);
  const self = new SelfMetrics(registry, 60_000);
  await self.refresh();
  const deps: ServerDeps = {
    polled: () => ({ plain: Buffer.from(POLLED), gzip: gzipSync(POLLED), version: 1 }),
    self,
    status: () => fake.status,
    pending: () => fake.pending,
    probe: async (query, timeout) => {
      fake.probeCalls.push({ query: query.toString(), timeout });
      return fake.probeAnswer;
    },
    reload: async () => {
      fake.reloads += 1;
      if (fake.reloadError) throw fake.reloadError;
    },
    // The lifecycle API is off by default (server-hardening.test.ts); these routes test it on.
    lifecycle: () => true,
  };
  server = await listen(createHandler(deps), { address: '127.0.0.1:0', maxConnections: 16, headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
  const a = server.address() as AddressInfo;
  base = { host: a.address, port: a.port };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  Object.assign(fake, { pending: [], status: [], probeCalls: [], probeAnswer: { status: 200, body: 'vega_up{target="p"} 1\n' }, reloadError: undefined, reloads: 0 });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A raw request: no automatic decompression, so the bytes on the wire are what we check. */
function request(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ ...base, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/metrics', () => {
  it('GET plain: the polled body then the self-metrics, with length and type', async () => {
    const r = await request('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers['cache-control']).toBe('no-store');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.text.startsWith(POLLED)).toBe(true);
    expect(r.text).toContain('test_self_gauge 7\n');
  });

  it('GET gzip: one valid gzip stream of the same text, and a query string is accepted', async () => {
    const plain = (await request('GET', '/metrics')).text;
    const r = await request('GET', '/metrics?x=1', { 'accept-encoding': 'deflate, gzip;q=1.0' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(gunzipSync(r.body).toString('utf8')).toBe(plain);
  });

  it('HEAD: the GET headers and no body', async () => {
    for (const enc of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      const get = await request('GET', '/metrics', enc);
      const head = await request('HEAD', '/metrics', enc);
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers['content-type']).toBe(CONTENT_TYPE);
      expect(head.headers['content-encoding']).toBe(get.headers['content-encoding']);
    }
  });
});

describe('health', () => {
  it('GET /healthz: 200 ok', async () => {
    const r = await request('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe('ok\n');
  });

  it('GET /readyz: 200 when nothing is pending, 503 naming the pending collectors', async () => {
    const ready = await request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.text).toBe('ready\n');
    fake.pending = ['dn1/statistics', 'main/markets'];
    const waiting = await request('GET', '/readyz');
    expect(waiting.status).toBe(503);
    expect(waiting.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(waiting.text).toBe('waiting for the first poll of: dn1/statistics, main/markets\n');
  });
});

describe('landing page', () => {
  it('GET /: one row per runner, states spelled out, names HTML-escaped', async () => {
    fake.status = [
      { scope: '<script>alert("x")</script>', collector: 'statistics', runs: 3, success: true, lastSuccessMs: Date.UTC(2026, 0, 2, 3, 4, 5), lastErrorCode: undefined },
      { scope: 'dn&2', collector: "mar'kets", runs: 2, success: false, lastSuccessMs: undefined, lastErrorCode: 'POLL_TIMEOUT' },
      { scope: 'dn3', collector: 'orders', runs: 0, success: undefined, lastSuccessMs: undefined, lastErrorCode: undefined },
    ];
    const r = await request('GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).not.toContain('<script>');
    expect(r.text).toContain('<td>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;</td><td>statistics</td><td>ok</td><td>2026-01-02T03:04:05.000Z</td>');
    expect(r.text).toContain('<td>dn&#38;2</td><td>mar&#39;kets</td><td>failing (POLL_TIMEOUT)</td><td>-</td>');
    expect(r.text).toContain('<td>dn3</td><td>orders</td><td>pending</td><td>-</td>');
  });
});

describe('/probe', () => {
  it('passes the query and the scrape timeout header through; 200 is exposition text', async () => {
    const r = await request('GET', '/probe?target=dn1&collector=statistics', { 'x-prometheus-scrape-timeout-seconds': '4.5' });
    expect(fake.probeCalls).toEqual([{ query: 'target=dn1&collector=statistics', timeout: 4.5 }]);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(r.text).toBe('vega_up{target="p"} 1\n');
  });

  it('a missing or unusable timeout header is passed as undefined', async () => {
    await request('GET', '/probe?target=a');
    await request('GET', '/probe?target=b', { 'x-prometheus-scrape-timeout-seconds': 'soon' });
    await request('GET', '/probe?target=c', { 'x-prometheus-scrape-timeout-seconds': '0' });
    expect(fake.probeCalls.map((c) => c.timeout)).toEqual([undefined, undefined, undefined]);
  });

  it("the probe's error status and message come back as plain text", async () => {
    fake.probeAnswer = { status: 400, body: 'unknown target "zz"\n' };
    const r = await request('GET', '/probe?target=zz');
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe('unknown target "zz"\n');
  });
});

describe('/-/reload', () => {
  it('POST: 200 when the reload succeeds', async () => {
    const r = await request('POST', '/-/reload');
    expect(r.status).toBe(200);
    expect(r.text).toBe('reloaded\n');
    expect(fake.reloads).toBe(1);
  });

  it('POST: 400 with the message when the reload throws', async () => {
    fake.reloadError = new Error('targets.0.url: expected a URL');
    const r = await request('POST', '/-/reload');
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text).toBe('reload failed: targets.0.url: expected a URL\n');
  });

  it('GET does not reload (404 today: express has no route for it)', async () => {
    const r = await request('GET', '/-/reload');
    expect(r.status).toBe(404);
    expect(fake.reloads).toBe(0);
  });
});

describe('anything else', () => {
  it('an unknown path is 404; so is POST /metrics', async () => {
    expect((await request('GET', '/nope')).status).toBe(404);
    expect((await request('POST', '/metrics')).status).toBe(404);
  });
});
