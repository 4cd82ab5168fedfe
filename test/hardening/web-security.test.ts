/**
 * Protecting /metrics: TLS, mutual TLS, basic auth with bcrypt, and slow or hostile clients, tested
 * with real TLS clients (node:https) against the real server.
 */
import bcrypt from 'bcryptjs';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/exporter/cli.js';
import { loadWebConfig } from '../../src/exporter/web/auth.js';
import { BcryptPool } from '../../src/exporter/web/bcrypt-pool.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { makeCerts, type Certs } from '../helpers/certs.js';
import { startExporter, waitFor, type RunningExporter } from '../helpers/exporter.js';
import { ManualClock } from '../helpers/sim.js';

let certs: Certs;
let sim: Simulator;
const PASSWORD = 'CANARY-pa55word-7d3f';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
beforeAll(async () => {
  certs = makeCerts();
  sim = await startSimulator({ seed: 90, now: new ManualClock().now });
});
afterAll(() => sim.close());

async function exporterWith(web: string, extra: object = {}): Promise<RunningExporter & { logsText: () => string }> {
  const file = join(certs.dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, web);
  const loaded = loadWebConfig(file);
  const { configSchema } = await import('../../src/exporter/config/schema.js');
  const { Exporter } = await import('../../src/exporter/exporter.js');
  const { createLogger } = await import('../../src/exporter/logger.js');
  const { LogCapture } = await import('../helpers/exporter.js');
  const logs = new LogCapture();
  const config = configSchema().parse({
    targets: [{ name: 'n', url: sim.url }],
    log: { level: 'trace' },
    collectors: { markets: { enabled: false }, key_rotations: { enabled: false }, consistency: { enabled: false } },
    ...extra,
  });
  const exporter = new Exporter(config, createLogger('trace', logs));
  const url = await exporter.start('127.0.0.1:0', loaded);
  cleanup.push(() => exporter.stop());
  return { exporter, url, logs, stop: () => exporter.stop(), poll: async () => {}, logsText: () => logs.text };
}

interface Reply {
  status?: number;
  body?: string;
  error?: string;
}

function get(url: string, opts: https.RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve) => {
    const req = https.request(url, { ca: certs.read('ca.crt'), ...opts }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

const tlsOnly = (): string => `tls_server_config:\n  cert_file: ${certs.path('server.crt')}\n  key_file: ${certs.path('server.key')}\n`;
const mtls = (): string => `${tlsOnly()}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${certs.path('ca.crt')}\n`;

describe('TLS', () => {
  it('serves HTTPS to a client that trusts the CA; a client that does not refuses the server', async () => {
    const e = await exporterWith(tlsOnly());
    expect(e.url).toMatch(/^https:/);
    // Scrape once the first polls have ended (the start does not wait for them).
    await waitFor(async () => (await get(`${e.url}/readyz`)).status === 200);
    const ok = await get(`${e.url}/metrics`);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('vega_up{target="n"} 1');
    const untrusting = await get(`${e.url}/metrics`, { ca: certs.read('other-ca.crt') });
    expect(untrusting.error).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|unable to verify/i);
    // The key's bytes never reach the output or the logs.
    for (const line of certs
      .read('server.key')
      .toString()
      .split('\n')
      .filter((l) => l.length > 20 && !l.startsWith('-----'))) {
      expect(ok.body).not.toContain(line);
      expect(e.logsText()).not.toContain(line);
    }
  });

  it('a minimum TLS version is enforced', async () => {
    const e = await exporterWith(`${tlsOnly()}  min_version: TLS13\n`);
    expect((await get(`${e.url}/healthz`, { maxVersion: 'TLSv1.2' })).error).toBeDefined();
    expect((await get(`${e.url}/healthz`, { minVersion: 'TLSv1.3' })).status).toBe(200);
  });

  it("mutual TLS: a good client certificate passes; none, an expired one or another CA's are refused", async () => {
    const e = await exporterWith(mtls());
    expect((await get(`${e.url}/metrics`, { cert: certs.read('client.crt'), key: certs.read('client.key') })).status).toBe(200);
    for (const cert of [undefined, 'client-expired.crt', 'client-other.crt']) {
      const r = await get(`${e.url}/metrics`, cert ? { cert: certs.read(cert), key: certs.read('client.key') } : {});
      expect(r.status, String(cert)).toBeUndefined();
      expect(r.error, String(cert)).toBeDefined();
    }
  });
});

describe('basic auth', () => {
  it('right password passes, wrong or missing is 401, health endpoints stay open; the password never reaches logs or metrics', async () => {
    const hash = bcrypt.hashSync(PASSWORD, 10).replace(/^\$2b\$/, '$2y$'); // as htpasswd writes them
    const e = await exporterWith(`${tlsOnly()}basic_auth_users:\n  prometheus: ${hash}\n`);
    const auth = (u: string, p: string): https.RequestOptions => ({ headers: { authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` } });
    const good = await get(`${e.url}/metrics`, auth('prometheus', PASSWORD));
    expect(good.status).toBe(200);
    expect((await get(`${e.url}/metrics`, auth('prometheus', 'nope'))).status).toBe(401);
    expect((await get(`${e.url}/metrics`, auth('someone', PASSWORD))).status).toBe(401);
    const none = await get(`${e.url}/metrics`);
    expect(none.status).toBe(401);
    expect((await get(`${e.url}/healthz`)).status).toBe(200);
    expect((await get(`${e.url}/readyz`)).status).toBe(200);
    expect((await get(`${e.url}/`)).status).toBe(401);
    expect(good.body).not.toContain(PASSWORD);
    expect(e.logsText()).not.toContain(PASSWORD);
    expect(e.logsText()).not.toContain(Buffer.from(`prometheus:${PASSWORD}`).toString('base64'));
  });

  it('a telemetry path differing from /healthz only by case or a trailing slash: unauthenticated /healthz still answers ok, never the metrics (n09)', async () => {
    const hash = bcrypt.hashSync(PASSWORD, 4);
    for (const telemetry_path of ['/Healthz', '/healthz/', '/HEALTHZ/']) {
      const e = await exporterWith(`${tlsOnly()}basic_auth_users:\n  prometheus: ${hash}\n`, { web: { telemetry_path } });
      const open = await get(`${e.url}${telemetry_path.toLowerCase().replace(/\/$/, '')}`);
      expect(open.status, telemetry_path).toBe(200);
      expect(open.body, telemetry_path).toBe('ok\n');
      expect((await get(`${e.url}${telemetry_path}`)).status, telemetry_path).toBe(401);
      const auth = { headers: { authorization: `Basic ${Buffer.from(`prometheus:${PASSWORD}`).toString('base64')}` } };
      expect((await get(`${e.url}${telemetry_path}`, auth)).body, telemetry_path).toContain('vega_up');
      await e.stop();
    }
  });

  it('a verified password is cached: repeated scrapes do not pay bcrypt each time', async () => {
    const hash = bcrypt.hashSync(PASSWORD, 12);
    const e = await exporterWith(`basic_auth_users:\n  prometheus: ${hash}\n`);
    const headers = { authorization: `Basic ${Buffer.from(`prometheus:${PASSWORD}`).toString('base64')}` };
    // Counted, not timed: how many bcrypt comparisons 21 scrapes cost.
    const compare = vi.spyOn(BcryptPool.prototype, 'compare');
    try {
      for (let i = 0; i < 21; i++) expect((await fetch(`${e.url}/metrics`, { headers })).status).toBe(200);
      expect(compare).toHaveBeenCalledTimes(1);
    } finally {
      compare.mockRestore();
    }
  });
});

describe('web-config errors stop startup, naming the field, without quoting secrets', () => {
  const cases: [string, string, RegExp][] = [
    ['a plain password instead of a hash', 'basic_auth_users:\n  prometheus: CANARY-plaintext\n', /basic_auth_users\.prometheus: expected a bcrypt hash/],
    [
      'a missing certificate',
      'tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n',
      /tls_server_config\.cert_file: cannot read \/nonexistent\.crt: ENOENT/,
    ],
    [
      'mutual TLS without a CA',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n',
      /tls_server_config\.client_ca_file: client_ca_file is required/,
    ],
    ['an unknown TLS version', 'tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS99\n', /tls_server_config\.min_version/],
    ['an unknown key', 'basic_auth_user: {}\n', /basic_auth_user/],
    // bcrypt costs outside 4-31: 99 was accepted before, and then never matched.
    [
      'a bcrypt cost above 31',
      `basic_auth_users:\n  prometheus: $2b$99$${'a'.repeat(53)}\n`,
      /basic_auth_users\.prometheus: expected a bcrypt cost from 04 to 31/,
    ],
    [
      'a bcrypt cost below 4',
      `basic_auth_users:\n  prometheus: $2b$03$${'a'.repeat(53)}\n`,
      /basic_auth_users\.prometheus: expected a bcrypt cost from 04 to 31/,
    ],
    ['a web-config file that is a device', '', /web\.config\.file: cannot read \/dev\/zero: not a regular file/],
  ];
  it.each(cases)('%s', async (_n, text, message) => {
    const file = text === '' ? '/dev/zero' : join(certs.dir, `bad-${Math.random().toString(36).slice(2)}.yml`);
    if (text !== '') writeFileSync(file, text);
    let stderr = '';
    const { vi } = await import('vitest');
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      stderr += String(c);
      return true;
    });
    const code = await main(['--datanode.url', sim.url, '--web.config.file', file]).finally(() => spy.mockRestore());
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('CANARY');
  });

  it('a key file that is not a key is refused without echoing its bytes', () => {
    const file = join(certs.dir, 'bad-key.yml');
    writeFileSync(join(certs.dir, 'garbage.key'), 'CANARY-not-a-key-material');
    writeFileSync(file, `tls_server_config:\n  cert_file: ${certs.path('server.crt')}\n  key_file: ${certs.path('garbage.key')}\n`);
    expect(() => loadWebConfig(file)).toThrow(/certificate or key cannot be used/);
    try {
      loadWebConfig(file);
    } catch (err) {
      expect((err as Error).message).not.toContain('CANARY');
    }
  });
});

describe('slow or hostile clients', () => {
  it('a client that trickles its headers is cut off; scrapes on other connections are served meanwhile', async () => {
    const e = await startExporter(
      sim.url,
      {
        web: { read_header_timeout: '3s', request_timeout: '4s' },
        collectors: { markets: { enabled: false }, key_rotations: { enabled: false }, consistency: { enabled: false } },
      },
      'silent',
    );
    cleanup.push(() => e.stop());
    const { port } = new URL(e.url);
    const slow = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => slow.once('connect', r));
    slow.write('GET /metrics HTTP/1.1\r\nHost: x\r\n'); // and never finishes
    let answer = '';
    slow.on('data', (d: Buffer) => (answer += d.toString()));
    let cut = false;
    const closed = new Promise<void>((r) => {
      slow.on('close', () => ((cut = true), r()));
      slow.on('error', () => {});
    });
    // Served while the slow client still holds its connection (not after it was cut).
    for (let i = 0; i < 10; i++) expect((await fetch(`${e.url}/metrics`)).status).toBe(200);
    expect(cut).toBe(false);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('beyond web.max_connections the oldest connection that never sent a request is closed, not the newcomer', async () => {
    const e = await startExporter(
      sim.url,
      { web: { max_connections: 3 }, collectors: { markets: { enabled: false }, key_rotations: { enabled: false }, consistency: { enabled: false } } },
      'silent',
    );
    cleanup.push(() => e.stop());
    const { port } = new URL(e.url);
    const idle: net.Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const s = net.connect(Number(port), '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      idle.push(s);
    }
    const closed = (s: net.Socket): Promise<void> =>
      new Promise<void>((r) => {
        s.once('close', () => r());
        s.on('error', () => {});
      });
    // A newcomer takes the place of the connection idle longest (web/server.test.ts has the order).
    const oldest = closed(idle[0]!);
    const extra = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => extra.once('connect', r));
    await oldest;
    expect(extra.destroyed).toBe(false);
    // The newcomer is served.
    const reply = new Promise<string>((r) => {
      let buf = '';
      extra.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('vega_up')) r(buf);
      });
    });
    extra.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await reply).toMatch(/^HTTP\/1\.1 200/);
    idle.push(extra);
    for (const s of idle) s.destroy();
  });
});
