/** The hot paths and express routes against hostile or careless requests (issue "Bounded under attack"), with stub dependencies. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/exporter/logger.js';
import { createApp, type ServerDeps } from '../../../src/exporter/web/server.js';
import { LogCapture } from '../../helpers/exporter.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(over: Partial<ServerDeps> = {}): Promise<{ url: string; logs: LogCapture; reloads: number[] }> {
  const logs = new LogCapture();
  const reloads: number[] = [];
  const deps: ServerDeps = {
    metrics: async () => ({ contentType: 'text/plain', plain: Buffer.from('x 1\n'), gzip: Buffer.alloc(0) }),
    status: () => [],
    pending: () => [],
    probe: async () => ({ status: 200, body: '', contentType: 'text/plain' }),
    reload: async () => void reloads.push(1),
    log: createLogger('info', logs),
    ...over,
  };
  const server = http.createServer(createApp(deps));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logs, reloads };
}

describe('probe paths', () => {
  it('HEAD /healthz and /readyz answer as GET; a query string is ignored', async () => {
    const { url } = await serve();
    for (const [method, path] of [
      ['HEAD', '/healthz'],
      ['HEAD', '/readyz'],
      ['GET', '/readyz?x=1'],
      ['GET', '/healthz?probe=1'],
      ['HEAD', '/readyz?x=1'],
    ] as const) {
      const r = await fetch(`${url}${path}`, { method });
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(await r.text(), `${method} ${path}`).toBe(method === 'HEAD' ? '' : path.startsWith('/healthz') ? 'ok\n' : 'ready\n');
    }
    const { url: waiting } = await serve({ pending: () => ['n/statistics'] });
    expect((await fetch(`${waiting}/readyz?x=1`, { method: 'HEAD' })).status).toBe(503);
  });
});

describe('no stack traces on any route', () => {
  it('an error in a route is a one-line text 500, logged as one JSON line', async () => {
    const { url, logs } = await serve({
      probe: async () => {
        throw new Error('boom at /srv/secret/install/path');
      },
    });
    const r = await fetch(`${url}/probe?target=x`);
    expect(r.status).toBe(500);
    const body = await r.text();
    expect(body).toBe('internal error\n');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(body).not.toMatch(/<html|at |\/srv\//i);
    const line = logs.parsed().find((l) => l.code === 'HTTP_HANDLER');
    expect(line?.err).toMatch(/boom/);
    expect(JSON.stringify(line)).not.toMatch(/\n\s+at /);
  });

  it('an unknown route is a one-line text 404, not an HTML page', async () => {
    const { url } = await serve();
    const r = await fetch(`${url}/nope/%E0%A4%A`);
    expect(r.status).toBe(404);
    expect(await r.text()).toBe('not found\n');
  });
});

describe('lifecycle endpoint', () => {
  it('POST /-/reload is refused (403) unless the lifecycle API is enabled', async () => {
    const off = await serve();
    const r = await fetch(`${off.url}/-/reload`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(r.status).toBe(403);
    expect(await r.text()).toMatch(/not enabled/);
    expect(off.reloads).toHaveLength(0);
    const on = await serve({ lifecycle: () => true });
    expect((await fetch(`${on.url}/-/reload`, { method: 'POST' })).status).toBe(200);
    expect(on.reloads).toHaveLength(1);
  });
});
