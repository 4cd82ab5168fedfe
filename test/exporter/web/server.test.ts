/** The HTTP face with fake dependencies: every route and method, over a real socket on 127.0.0.1. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { M } from '../../helpers/metrics.js';
import { Exposition } from '../../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { createApp, listen, type RunnerStatus, type ServerDeps } from '../../../src/exporter/web/server.js';
import { CATALOGUE, TEST_BUILD } from '../../helpers/render.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const OPENMETRICS = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
/** What Prometheus sends. */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const TEXT = 'text/plain; charset=utf-8';

/**
 * A gzip decoder that reads exactly one member, as curl and many libraries do: the 10-byte header
 * (no optional fields), one raw deflate stream, and the CRC-32 and length of the whole text last.
 */
function gunzipOneMember(gz: Buffer): Buffer {
  expect([...gz.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
  const text = inflateRawSync(gz.subarray(10, gz.length - 8));
  expect(gz.readUInt32LE(gz.length - 8)).toBe(crc32(text));
  expect(gz.readUInt32LE(gz.length - 4)).toBe(text.length);
  return text;
}

/** What the fakes were asked, and what they answer. */
const fake = {
  pending: [] as string[],
  status: [] as RunnerStatus[],
  probeCalls: [] as { query: string; timeout: number | undefined; format?: string }[],
  probeAnswer: { status: 200, body: 'vega_up{target="p"} 1\n', contentType: CONTENT_TYPE },
  reloadError: undefined as Error | undefined,
  restartNeeded: [] as string[],
  reloads: 0,
  targets: [] as { name: string; url: string }[],
};

let server: http.Server;
let base: { host: string; port: number };
let deps: ServerDeps;

beforeAll(async () => {
  const store = new SeriesStore();
  store.set({ scope: 'target', id: 'dn1', source: 'statistics' }, [{ metric: M.up, values: ['dn1'], value: 1 }], 0, Infinity);
  const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => 1 });
  deps = {
    metrics: (format) => expo.body(format),
    status: () => fake.status,
    pending: () => fake.pending,
    probe: async (query, timeout, format) => {
      fake.probeCalls.push({ query: query.toString(), timeout, ...(format === 'text' ? {} : { format }) });
      return fake.probeAnswer;
    },
    reload: async () => {
      fake.reloads += 1;
      if (fake.reloadError) throw fake.reloadError;
      return fake.restartNeeded;
    },
    // The lifecycle API is off by default (server-hardening.test.ts); these routes test it on.
    lifecycle: () => true,
    about: () => ({ build: TEST_BUILD, targets: fake.targets }),
  };
  server = await listen(createApp(deps), { address: '127.0.0.1:0', maxConnections: 16, headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
  const a = server.address() as AddressInfo;
  base = { host: a.address, port: a.port };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  Object.assign(fake, {
    pending: [],
    status: [],
    probeCalls: [],
    probeAnswer: { status: 200, body: 'vega_up{target="p"} 1\n', contentType: CONTENT_TYPE },
    reloadError: undefined,
    restartNeeded: [],
    reloads: 0,
    targets: [],
  });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A raw request: no automatic decompression, so the bytes on the wire are what we check. */
function request(method: string, path: string, headers: Record<string, string> = {}, to = base): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ ...to, method, path, headers, agent: false }, (res) => {
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
  it('GET plain: the polled series then the process metrics, with length and type', async () => {
    const r = await request('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers['cache-control']).toBe('no-store');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.text.startsWith(`# HELP vega_up ${M.up.help}\n# TYPE vega_up gauge\nvega_up{target="dn1"} 1\n`)).toBe(true);
    expect(r.text).toMatch(/\nprocess_cpu_seconds_total [0-9.e-]+\n/);
    expect(r.text).toContain('\ndatanode_exporter_build_info{version="test",revision="r1",branch="b1",nodejs_version="v0"} 1\n');
  });

  it('GET gzip: one gzip member of exactly the plain text (a single-member decoder, as curl, reads it all)', async () => {
    const plain = (await request('GET', '/metrics')).body;
    const r = await request('GET', '/metrics?x=1', { 'accept-encoding': 'deflate, gzip;q=1.0' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept, Accept-Encoding');
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(gunzipOneMember(r.body).equals(plain)).toBe(true);
    expect(gunzipSync(r.body).equals(plain)).toBe(true);
  });

  it('OpenMetrics when Prometheus asks for it: its content type, counters without _total in TYPE, # EOF last', async () => {
    const r = await request('GET', '/metrics', { accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip' });
    expect(r.headers['content-type']).toBe(OPENMETRICS);
    const text = gunzipOneMember(r.body).toString('utf8');
    expect(text).toContain('# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total ');
    expect(text).toContain('vega_up{target="dn1"} 1\n');
    expect(text).not.toContain('\n\n');
    expect(text.endsWith('\n# EOF\n')).toBe(true);
  });

  it.each([
    [PROMETHEUS_ACCEPT, 'openmetrics'],
    ['application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    ['text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5', 'text'],
    ['*/*', 'text'],
    [undefined, 'text'],
    ['application/openmetrics-text;q=0', 'text'],
  ])('Accept %s: %s', async (accept, format) => {
    const r = await request('GET', '/metrics', accept === undefined ? {} : { accept });
    expect(r.headers['content-type']).toBe(format === 'openmetrics' ? OPENMETRICS : CONTENT_TYPE);
  });

  it('HEAD: the GET headers and no body', async () => {
    for (const enc of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      const get = await request('GET', '/metrics', enc);
      const head = await request('HEAD', '/metrics', enc);
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(Math.abs(Number(head.headers['content-length']) - Number(get.headers['content-length']))).toBeLessThan(enc['accept-encoding'] ? 200 : 2); // the process metrics may have moved
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
      {
        scope: '<script>alert("x")</script>',
        collector: 'statistics',
        runs: 3,
        success: true,
        lastSuccessMs: Date.UTC(2026, 0, 2, 3, 4, 5),
        lastErrorCode: undefined,
      },
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

  it('GET /: the version, each target with its URL cut to scheme, host and path, a probe of the first target', async () => {
    fake.targets = [
      { name: 'dn:1', url: 'http://operator:s3cret@dn1.example:3008/api/?key=k3y#frag' },
      { name: 'dn2', url: 'https://dn2.example/' },
    ];
    const r = await request('GET', '/');
    expect(r.text).toContain('<p>version test (branch: b1, revision: r1), Node.js v0</p>');
    expect(r.text).toContain('<p><a href="/metrics">Metrics</a> · <a href="/probe?target=dn%3A1">Probe dn:1</a> · <a href="/healthz">healthz</a>');
    expect(r.text).toContain('<tr><td>dn:1</td><td>http://dn1.example:3008/api/</td></tr>\n<tr><td>dn2</td><td>https://dn2.example/</td></tr>');
    for (const secret of ['operator', 's3cret', 'k3y', 'frag']) expect(r.text).not.toContain(secret);
  });
});

describe('--web.telemetry-path', () => {
  it('serves the metrics there, not on /metrics, and the landing page links to it', async () => {
    const other = await listen(createApp({ ...deps, telemetryPath: '/exporter/metrics' }), {
      address: '127.0.0.1:0',
      maxConnections: 16,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
    });
    try {
      const to = { host: '127.0.0.1', port: (other.address() as AddressInfo).port };
      const m = await request('GET', '/exporter/metrics', {}, to);
      expect(m.status).toBe(200);
      expect(m.text).toContain('\nvega_up{target="dn1"} 1\n');
      expect((await request('GET', '/metrics', {}, to)).status).toBe(404);
      expect((await request('GET', '/', {}, to)).text).toContain('<a href="/exporter/metrics">Metrics</a>');
    } finally {
      other.closeAllConnections();
      await new Promise<void>((r) => other.close(() => r()));
    }
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

  it('the format is negotiated as for /metrics: OpenMetrics when Prometheus ranks it first, gzipped as one member when accepted', async () => {
    fake.probeAnswer = { status: 200, body: '# TYPE vega_up gauge\nvega_up{target="p"} 1\n# EOF\n', contentType: OPENMETRICS };
    const r = await request('GET', '/probe?target=dn1', { accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip' });
    expect(fake.probeCalls).toEqual([{ query: 'target=dn1', timeout: undefined, format: 'openmetrics' }]);
    expect(r.headers['content-type']).toBe(OPENMETRICS);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept, Accept-Encoding');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(gunzipOneMember(r.body).toString('utf8')).toBe('# TYPE vega_up gauge\nvega_up{target="p"} 1\n# EOF\n');
    const plain = await request('GET', '/probe?target=dn1', { accept: 'text/plain;version=0.0.4', 'accept-encoding': 'identity' });
    expect(fake.probeCalls[1]).toEqual({ query: 'target=dn1', timeout: undefined });
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('a refusal stays one line of plain text whatever the client accepts', async () => {
    fake.probeAnswer = { status: 400, body: 'unknown target "zz"\n', contentType: TEXT };
    const r = await request('GET', '/probe?target=zz', { accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip' });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe(TEXT);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.text).toBe('unknown target "zz"\n');
  });

  it('a missing or unusable timeout header is passed as undefined', async () => {
    await request('GET', '/probe?target=a');
    await request('GET', '/probe?target=b', { 'x-prometheus-scrape-timeout-seconds': 'soon' });
    await request('GET', '/probe?target=c', { 'x-prometheus-scrape-timeout-seconds': '0' });
    expect(fake.probeCalls.map((c) => c.timeout)).toEqual([undefined, undefined, undefined]);
  });

  it('without a target: 400 asking for one, and no probe', async () => {
    for (const path of ['/probe', '/probe?target=', '/probe?collectors=statistics']) {
      const r = await request('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.text).toBe('missing target: /probe?target=<configured target name or allowed URL>\n');
    }
    expect(fake.probeCalls).toEqual([]);
  });

  it("the probe's error status and message come back as plain text", async () => {
    fake.probeAnswer = { status: 400, body: 'unknown target "zz"\n', contentType: TEXT };
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

  it('POST: 200 naming the settings that need a restart, when the reload changed some', async () => {
    fake.restartNeeded = ['web.listen_address'];
    const r = await request('POST', '/-/reload');
    expect(r.status).toBe(200);
    expect(r.text).toBe('reloaded; needs a restart (running value kept): web.listen_address\n');
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

describe('connection limits', () => {
  const BIG = Buffer.alloc(48 * 1024 * 1024, 'x'); // more than loopback buffers take without a reader
  const bigDeps = (): ServerDeps => ({ ...deps, metrics: async () => ({ contentType: TEXT, plain: BIG, gzip: BIG }) });
  const serveWith = (o: Partial<Parameters<typeof listen>[1]>, d: ServerDeps = deps) =>
    listen(createApp(d), { address: '127.0.0.1:0', maxConnections: 3, headersTimeoutMs: 2000, requestTimeoutMs: 5000, ...o });
  const stop = async (s: http.Server): Promise<void> => {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  };
  const open = async (port: number, send?: string): Promise<{ sock: net.Socket; closed: Promise<void>; data: () => string }> => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.on('error', () => {});
    await new Promise((r) => sock.once('connect', r));
    if (send !== undefined) {
      sock.on('data', (d: Buffer) => (text += d.toString('latin1')));
      sock.write(send);
    }
    return { sock, closed, data: () => text };
  };
  const until = async (cond: () => boolean): Promise<void> => {
    while (!cond()) await new Promise((r) => setImmediate(r));
  };
  const connections = (s: http.Server): Promise<number> => new Promise((r, j) => s.getConnections((e, c) => (e ? j(e) : r(c))));

  it('over web.max_connections a newcomer is never refused: the connection idle longest is closed instead', async () => {
    const s = await serveWith({});
    const port = (s.address() as AddressInfo).port;
    try {
      const idle = [await open(port), await open(port), await open(port)];
      await until(() => true);
      while ((await connections(s)) !== 3) await new Promise((r) => setImmediate(r));
      const probe = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await idle[0]!.closed;
      await until(() => probe.data().includes('\r\n\r\nok\n'));
      expect(probe.data()).toMatch(/^HTTP\/1.1 200 /);
      expect(idle.slice(1).every((c) => !c.sock.destroyed)).toBe(true);
      for (const c of [...idle, probe]) c.sock.destroy();
    } finally {
      await stop(s);
    }
  });

  it('over web.max_connections an idle connection goes before one being answered, and a connection its client does not read before the newcomer', async () => {
    const s = await serveWith({ maxConnections: 2 }, bigDeps());
    const port = (s.address() as AddressInfo).port;
    try {
      // Never read: its 48 MiB answer waits in the connection.
      const stuck = await open(port);
      stuck.sock.pause();
      stuck.sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      const other = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => other.data().includes('ok\n'));
      // Both held; `other` is now idle, `stuck` still being answered: the idle one goes first.
      const a = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await other.closed;
      await until(() => a.data().includes('ok\n'));
      expect(stuck.sock.destroyed).toBe(false);
      // With both held by clients that do not read, the newcomer takes the place of one of them.
      a.sock.destroy();
      while ((await connections(s)) !== 1) await new Promise((r) => setTimeout(r, 20));
      const stuck2 = await open(port);
      stuck2.sock.pause();
      stuck2.sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      while (stuck2.sock.bytesRead === 0) await new Promise((r) => setTimeout(r, 10));
      const n = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => n.data().includes('ok\n'));
      stuck.sock.resume();
      stuck2.sock.resume();
      await Promise.race([stuck.closed, stuck2.closed]);
      expect(n.sock.destroyed).toBe(false);
      for (const x of [stuck, stuck2, n]) x.sock.destroy();
    } finally {
      await stop(s);
    }
  });

  it("a client that does not read its answer loses its own connection at the write deadline; another's answer is served meanwhile", async () => {
    const s = await serveWith({ maxConnections: 16, writeTimeoutMs: 300 }, bigDeps());
    const port = (s.address() as AddressInfo).port;
    try {
      const stuck = await open(port);
      stuck.sock.pause();
      stuck.sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      const reader = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => reader.data().includes('ok\n'));
      // A paused client learns of the close once it reads.
      while ((await connections(s)) !== 1) await new Promise((r) => setTimeout(r, 20));
      stuck.sock.resume();
      await stuck.closed;
      expect(reader.sock.destroyed).toBe(false);
      reader.sock.destroy();
    } finally {
      await stop(s);
    }
  });

  it('unread answers over web.max_unsent_bytes: the connection unread longest is closed, the asker served', async () => {
    const s = await serveWith({ maxConnections: 16, maxUnsentBytes: 40 * 1024 * 1024 }, bigDeps());
    const port = (s.address() as AddressInfo).port;
    try {
      const stuck = await open(port);
      stuck.sock.pause();
      stuck.sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      // Its answer handed over and (mostly) unread.
      while (stuck.sock.bytesRead === 0) await new Promise((r) => setTimeout(r, 10));
      const second = await open(port);
      second.sock.pause();
      second.sock.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      while ((await connections(s)) !== 1) await new Promise((r) => setTimeout(r, 20));
      stuck.sock.resume();
      await stuck.closed;
      second.sock.resume();
      let got = 0;
      second.sock.on('data', (d: Buffer) => (got += d.length));
      await until(() => got > BIG.length);
      second.sock.destroy();
    } finally {
      await stop(s);
    }
  });

  it('more requests at once than max_requests: 503 with Retry-After, /healthz still answered', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow: ServerDeps = {
      ...deps,
      maxRequests: 1,
      metrics: async (f) => {
        await gate;
        return deps.metrics(f);
      },
    };
    const s = await serveWith({ maxConnections: 16 }, slow);
    const port = (s.address() as AddressInfo).port;
    try {
      const first = await open(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      const second = await open(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => second.data().includes('\r\n\r\n'));
      expect(second.data()).toMatch(/^HTTP\/1.1 503 /);
      expect(second.data()).toMatch(/\r\nretry-after: 1\r\n/i);
      const health = await open(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => health.data().includes('ok\n'));
      release();
      await until(() => first.data().includes('vega_up'));
      expect(first.data()).toMatch(/^HTTP\/1.1 200 /);
      for (const x of [first, second, health]) x.sock.destroy();
    } finally {
      await stop(s);
    }
  });
});

describe('anything else', () => {
  it('an unknown path is 404; so is POST /metrics', async () => {
    expect((await request('GET', '/nope')).status).toBe(404);
    expect((await request('POST', '/metrics')).status).toBe(404);
  });
});
