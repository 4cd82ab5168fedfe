/**
 * The HTTP face. /metrics and /healthz are answered straight from node:http with cached buffers
 * (express costs several times the raw server's throughput on a hot path like this); everything
 * else (landing page, /readyz, /probe, /-/reload) goes through express.
 */
import type express from 'express';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { http, https } from '../process/lean/http.js';
import type net from 'node:net';
import { CONTENT_TYPE } from '../exposition/render.js';
import type { SelfMetrics } from '../exposition/self-metrics.js';
import type { Logger } from '../process/logger.js';
import type { RunnerStatus } from '../schedule/runner.js';

export type { RunnerStatus };

/** The polled part of /metrics, rendered and gzipped when it changes, with a version to compare. */
export interface PolledBody {
  plain: Buffer;
  gzip: Buffer;
  version: number;
}

export interface ServerDeps {
  polled: () => PolledBody;
  self: SelfMetrics;
  status: () => RunnerStatus[];
  /** Collectors still waiting for their first poll. */
  pending: () => string[];
  probe: (query: URLSearchParams, scrapeTimeoutSeconds: number | undefined) => Promise<{ status: number; body: string }>;
  reload: () => Promise<void>;
  /** Where request errors go: one JSON line each, never a stack trace in a response. */
  log?: Logger | undefined;
  /** POST /-/reload (and any future lifecycle route) answers only when this is true (--web.enable-lifecycle). */
  lifecycle?: (() => boolean) | undefined;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The /metrics answer: the polled body (rendered and gzipped once per change) and the self-metrics
 * (re-rendered once a second), with their headers, rebuilt per encoding only when either part
 * changes and that encoding is asked for (Prometheus only ever asks for gzip). Small bodies are
 * joined into one buffer (one write per scrape is what keeps up with a raw server at 1,000
 * series); larger ones are written as two parts: copying a megabyte-sized body once a second would
 * churn the allocator into fragmentation for no measurable gain. Two gzip members back to back are
 * one valid gzip stream (RFC 1952).
 */
const JOIN_BELOW = 512 * 1024;

interface Prepared {
  /** The versions of the polled body and of the self-metrics it was built from. */
  polled: number;
  self: number;
  parts: Buffer[];
  headers: Http.OutgoingHttpHeaders;
}

export class MetricsResponse {
  private plain: Prepared = { polled: -1, self: -1, parts: [], headers: {} };
  private gzip: Prepared = { polled: -1, self: -1, parts: [], headers: {} };

  constructor(private readonly deps: Pick<ServerDeps, 'polled' | 'self'>) {}

  get(gzip: boolean): Prepared {
    const p = this.deps.polled();
    const s = this.deps.self;
    s.touch();
    const cached = gzip ? this.gzip : this.plain;
    if (cached.polled === p.version && cached.self === s.version) return cached;
    const [a, b] = gzip ? [p.gzip, s.gzip] : [p.plain, s.plain];
    const prepared: Prepared = {
      polled: p.version,
      self: s.version,
      parts: a.length + b.length < JOIN_BELOW ? [Buffer.concat([a, b])] : [a, b],
      headers: { ...(gzip ? GZIP_HEADERS : PLAIN_HEADERS), 'content-length': a.length + b.length },
    };
    if (gzip) this.gzip = prepared;
    else this.plain = prepared;
    return prepared;
  }
}

const PLAIN_HEADERS: Http.OutgoingHttpHeaders = { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' };
const GZIP_HEADERS: Http.OutgoingHttpHeaders = { ...PLAIN_HEADERS, 'content-encoding': 'gzip', vary: 'Accept-Encoding' };

export async function createApp(deps: ServerDeps): Promise<express.Express> {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/probe', async (req, res) => {
    const raw = Number(req.get('x-prometheus-scrape-timeout-seconds'));
    const query = new URL(req.originalUrl, 'http://x').searchParams;
    const out = await deps.probe(query, Number.isFinite(raw) && raw > 0 ? raw : undefined);
    res.status(out.status).set('content-type', out.status === 200 ? CONTENT_TYPE : 'text/plain; charset=utf-8').send(out.body);
  });

  app.post('/-/reload', async (_req, res) => {
    // As Prometheus: off unless enabled, so a cross-origin form post from any web page cannot reach it.
    if (!deps.lifecycle?.()) {
      res.status(403).type('text/plain').send('Lifecycle API is not enabled (--web.enable-lifecycle).\n');
      return;
    }
    try {
      await deps.reload();
      res.type('text/plain').send('reloaded\n');
    } catch (err) {
      // The old configuration stays in force.
      res.status(400).type('text/plain').send(`reload failed: ${(err as Error).message}\n`);
    }
  });

  app.get('/', (_req, res) => {
    const rows = deps
      .status()
      .map((r) => {
        const status = r.runs === 0 ? 'pending' : r.success ? 'ok' : `failing (${r.lastErrorCode ?? 'error'})`;
        const last = r.lastSuccessMs ? new Date(r.lastSuccessMs).toISOString() : '-';
        return `<tr><td>${esc(r.scope)}</td><td>${esc(r.collector)}</td><td>${esc(status)}</td><td>${esc(last)}</td></tr>`;
      })
      .join('\n');
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>datanode-exporter</title></head><body>
<h1>datanode-exporter</h1>
<p><a href="/metrics">Metrics</a> · <a href="/healthz">healthz</a> · <a href="/readyz">readyz</a></p>
<table border="1" cellpadding="4"><tr><th>target or network</th><th>collector</th><th>state</th><th>last success</th></tr>
${rows}
</table></body></html>
`);
  });
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  // The production error handler: a one-line text answer, the error as one JSON log line; express's
  // default handler would answer with an HTML page holding the stack trace and install paths.
  app.use((err: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = httpStatusOf(err);
    if (status >= 500) deps.log?.error({ code: 'HTTP_HANDLER', path: req.path, err: err instanceof Error ? err.message : String(err) }, 'request failed');
    if (res.headersSent) return void res.end();
    res.status(status).type('text/plain').send(status >= 500 ? 'internal error\n' : 'bad request\n');
  });
  return app;
}

/** The status an error asks for (body-parser style `status`), else 500. */
function httpStatusOf(err: unknown): number {
  const s = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === 'number' && s >= 400 && s < 600 ? s : 500;
}

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The request listener: the hot paths (what Prometheus and Kubernetes call) by hand; the rest
 * through express, loaded on first use so an exporter nobody browses never pays for it.
 */
export function createHandler(deps: ServerDeps): Http.RequestListener {
  let app: Promise<express.Express> | undefined;
  const metrics = new MetricsResponse(deps);
  return (req, res) => {
    const url = req.url ?? '/';
    if ((req.method === 'GET' || req.method === 'HEAD') && (url === '/metrics' || url.startsWith('/metrics?'))) {
      const { parts, headers } = metrics.get(/\bgzip\b/.test(req.headers['accept-encoding'] ?? ''));
      res.writeHead(200, headers);
      if (req.method === 'HEAD') return void res.end();
      if (parts.length === 1) return void res.end(parts[0]);
      res.cork();
      res.write(parts[0]);
      res.end(parts[1]);
      return;
    }
    // Probes answer HEAD as GET, and ignore a query string (some probers add one).
    const path = pathOf(url);
    const probe = req.method === 'GET' || req.method === 'HEAD';
    if (probe && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : 'ok\n');
      return;
    }
    if (probe && path === '/readyz') {
      const pending = deps.pending();
      res.writeHead(pending.length === 0 ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : pending.length === 0 ? 'ready\n' : `waiting for the first poll of: ${pending.join(', ')}\n`);
      return;
    }
    app ??= createApp(deps);
    app.then(
      (a) => a(req, res),
      (err: unknown) => {
        deps.log?.error({ code: 'HTTP_HANDLER', err: err instanceof Error ? err.message : String(err) }, 'web application failed to load');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('internal error\n');
      },
    );
  };
}

export interface ListenOptions {
  address: string;
  maxConnections: number;
  /** Of maxConnections, how many only connections that have sent a whole request may hold. */
  reservedConnections?: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** HTTPS when given (from the web-config file). */
  tls?: Https.ServerOptions | undefined;
}

export async function listen(handler: Http.RequestListener, o: ListenOptions): Promise<Http.Server> {
  const i = o.address.lastIndexOf(':');
  const host = o.address.slice(0, i).replace(/^\[|\]$/g, '') || undefined;
  const port = Number(o.address.slice(i + 1));
  // Node checks those timeouts only every connectionsCheckingInterval (30 s by default).
  const check = { connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(o.headersTimeoutMs / 2))) };
  const server: Http.Server = o.tls ? https.createServer({ ...o.tls, ...check }, handler) : http.createServer(check, handler);
  // A slow or hostile client cannot hold a connection open indefinitely, and there is a cap on how
  // many it may hold at once; scrapes on other connections are served meanwhile.
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = o.requestTimeoutMs;
  server.keepAliveTimeout = 15_000;
  guardConnections(server, o.maxConnections, o.reservedConnections ?? 0);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

interface ConnState {
  /** It has sent at least one whole request (a slowloris socket never does). */
  proven: boolean;
  /** No request in progress (a kept-alive connection between scrapes). */
  idle: boolean;
}

/**
 * At most `max` connections. Connections that have not yet sent a whole request may hold at most
 * `max - reserved` of them; the rest are kept for clients that have. When a new connection comes
 * over either bound, the oldest connection still waiting for its first request is closed (then the
 * oldest idle kept-alive one) instead of the newcomer: a client holding hundreds of half-sent
 * requests (slowloris) cannot lock Prometheus or a probe out, however many sockets it holds.
 */
function guardConnections(server: Http.Server, max: number, reserved: number): void {
  const conns = new Map<net.Socket, ConnState>(); // insertion order: oldest first
  let unproven = 0;
  const forget = (sock: net.Socket, c: ConnState): void => {
    // Counted out at once ('close' comes a tick later, after more connections may have arrived).
    if (conns.delete(sock) && !c.proven) unproven--;
  };
  const evict = (except: net.Socket, which: (c: ConnState) => boolean): boolean => {
    for (const [sock, c] of conns) {
      if (sock === except || !which(c)) continue;
      forget(sock, c);
      sock.destroy();
      return true;
    }
    return false;
  };
  server.on('connection', (sock: net.Socket) => {
    const state: ConnState = { proven: false, idle: true };
    conns.set(sock, state);
    unproven++;
    sock.once('close', () => forget(sock, state));
    const overUnproven = unproven > max - reserved;
    const overTotal = conns.size > max;
    if (!overUnproven && !overTotal) return;
    if (evict(sock, (c) => !c.proven)) return;
    if (overTotal && evict(sock, (c) => c.idle)) return;
    if (overTotal) {
      forget(sock, state);
      sock.destroy();
    }
  });
  server.on('request', (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    const raw = conns.has(req.socket) ? req.socket : ((req.socket as net.Socket & { _parent?: net.Socket })._parent ?? req.socket);
    const state = conns.get(raw);
    if (!state) return;
    if (!state.proven) {
      state.proven = true;
      unproven--;
    }
    // /metrics and /healthz have answered by now: a listener per scrape only for the slower routes.
    if (res.writableEnded) return;
    state.idle = false;
    res.once('close', () => {
      state.idle = true;
    });
  });
}
