/**
 * The HTTP face: /metrics (pre-rendered body plus live self-metrics, gzip when asked), a landing
 * page, /healthz (no upstream calls) and /readyz (every enabled collector has polled once).
 */
import express, { type Request, type Response } from 'express';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Registry } from 'prom-client';
import { CONTENT_TYPE } from './render.js';
import type { CollectorRunner } from './runner.js';
import type { SeriesStore } from './store.js';

export interface ServerDeps {
  store: SeriesStore;
  self: Registry;
  runners: () => readonly CollectorRunner[];
  /** Collectors still waiting for their first poll. */
  pending: () => string[];
  probe: (query: URLSearchParams, scrapeTimeoutSeconds: number | undefined) => Promise<{ status: number; body: string }>;
  reload: () => Promise<void>;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createApp(deps: ServerDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/metrics', async (req: Request, res: Response) => {
    deps.store.expire(Date.now());
    const self = Buffer.from(await deps.self.metrics(), 'utf8');
    const gzip = /\bgzip\b/.test(req.get('accept-encoding') ?? '');
    // Two gzip members back to back form one valid gzip stream (RFC 1952), so the large polled
    // body is compressed once per poll and only the small live part per scrape.
    const body = gzip ? Buffer.concat([deps.store.renderGzip(), gzipSync(self)]) : Buffer.concat([deps.store.render(), self]);
    res.writeHead(200, {
      'content-type': CONTENT_TYPE,
      'content-length': String(body.length),
      'cache-control': 'no-store',
      ...(gzip ? { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } : {}),
    });
    res.end(body);
  });

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });

  app.get('/probe', async (req, res) => {
    const raw = Number(req.get('x-prometheus-scrape-timeout-seconds'));
    const query = new URL(req.originalUrl, 'http://x').searchParams;
    const out = await deps.probe(query, Number.isFinite(raw) && raw > 0 ? raw : undefined);
    res.status(out.status).set('content-type', out.status === 200 ? CONTENT_TYPE : 'text/plain; charset=utf-8').send(out.body);
  });

  app.post('/-/reload', async (_req, res) => {
    try {
      await deps.reload();
      res.type('text/plain').send('reloaded\n');
    } catch (err) {
      // The old configuration stays in force.
      res.status(400).type('text/plain').send(`reload failed: ${(err as Error).message}\n`);
    }
  });

  app.get('/readyz', (_req, res) => {
    const pending = deps.pending();
    if (pending.length === 0) res.type('text/plain').send('ready\n');
    else res.status(503).type('text/plain').send(`waiting for the first poll of: ${pending.join(', ')}\n`);
  });

  app.get('/', (_req, res) => {
    const rows = deps
      .runners()
      .map((r) => {
        const s = r.state;
        const status = s.runs === 0 ? 'pending' : s.success ? 'ok' : `failing (${s.lastErrorCode ?? 'error'})`;
        const last = s.lastSuccessMs ? new Date(s.lastSuccessMs).toISOString() : '-';
        return `<tr><td>${esc(r.scopeValue)}</td><td>${esc(r.collector.name)}</td><td>${esc(status)}</td><td>${esc(last)}</td></tr>`;
      })
      .join('\n');
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>datanode-exporter</title></head><body>
<h1>datanode-exporter</h1>
<p><a href="/metrics">Metrics</a> · <a href="/healthz">healthz</a> · <a href="/readyz">readyz</a></p>
<table border="1" cellpadding="4"><tr><th>target</th><th>collector</th><th>state</th><th>last success</th></tr>
${rows}
</table></body></html>
`);
  });
  return app;
}

export async function listen(app: express.Express, address: string, maxConnections: number): Promise<http.Server> {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[|\]$/g, '') || undefined;
  const port = Number(address.slice(i + 1));
  const server = http.createServer(app);
  // A slow or hostile client cannot hold a connection open indefinitely.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 15_000;
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
