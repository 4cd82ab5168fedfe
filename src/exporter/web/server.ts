/**
 * The HTTP face: one express app for every route. /metrics sends the body the registry rendered
 * last (exposition/registry.ts), /probe the one it renders for its target; both in the format the
 * client asks for, gzipped when it accepts gzip.
 */
import express from 'express';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Body, Format } from '../engine/registry.js';
import type { Logger } from '../logger.js';
import type { ProbeResult } from '../fleet/probe.js';
import type { RunnerStatus } from '../engine/runner.js';
import { VERSION, type BuildInfo } from '../version.js';
import { runbookHtml } from './runbook.js';

export type { RunnerStatus };

export interface ServerDeps {
  metrics: (format: Format) => Promise<Body>;
  status: () => RunnerStatus[];
  /** Collectors still waiting for their first poll. */
  pending: () => string[];
  probe: (query: URLSearchParams, scrapeTimeoutSeconds: number | undefined, format: Format) => Promise<ProbeResult>;
  /** Resolves to the settings only a restart applies, if any (kept at their running values). */
  reload: () => Promise<string[] | void>;
  /** Where request errors go: one JSON line each, never a stack trace in a response. */
  log?: Logger | undefined;
  /** POST /-/reload (and any future lifecycle route) answers only when this is true (--web.enable-lifecycle). */
  lifecycle?: (() => boolean) | undefined;
  /** Where the metrics are served (--web.telemetry-path); /metrics by default. */
  telemetryPath?: string | undefined;
  /** For the landing page: the build, and the targets this exporter polls. */
  about?: (() => { build: BuildInfo; targets: { name: string; url: string }[] }) | undefined;
  /** Requests computed at once, as node_exporter's --web.max-requests (0: no limit); more are answered 503. */
  maxRequests?: number | undefined;
}

const gzip = promisify(gzipCallback);

/** A metrics body as /metrics and /probe send it: gzipped when the client accepts gzip, never cached. */
async function sendMetrics(req: express.Request, res: express.Response, contentType: string, plain: Buffer, gzipped: () => Promise<Buffer>): Promise<void> {
  const zip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  res.set({ 'content-type': contentType, 'cache-control': 'no-store', vary: 'Accept, Accept-Encoding' });
  if (zip) res.set('content-encoding', 'gzip');
  res.send(zip ? await gzipped() : plain);
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A target URL fit to show: no user-info, query or fragment (any of them may carry a key). */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The media types /metrics and /probe answer in. Text first: a client that accepts anything (or
 * neither) gets text. A range with parameters matches only a type with the same parameters, so the
 * versions clients send are listed.
 */
const MEDIA_TYPES = [
  'text/plain',
  'text/plain; version=0.0.4',
  'application/openmetrics-text',
  'application/openmetrics-text; version=1.0.0',
  'application/openmetrics-text; version=0.0.1',
];

/** OpenMetrics when the client ranks it above text/plain, as Prometheus does; the text format otherwise. */
function formatOf(req: express.Request): Format {
  const best = req.accepts(MEDIA_TYPES);
  return typeof best === 'string' && best.startsWith('application/openmetrics-text') ? 'openmetrics' : 'text';
}

export function createApp(deps: ServerDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Routes match only the exact path: the auth layer (auth.ts) compares paths exactly against
  // unauthenticated_paths, so `/Healthz` or `/healthz/` can never reach a route other than the
  // one it names (with a telemetry path of /Healthz, an open /healthz served the metrics).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  const telemetryPath = deps.telemetryPath ?? '/metrics';
  const limited = inFlightLimit(deps.maxRequests || Infinity);
  app.get(
    telemetryPath,
    limited(async (req, res) => {
      const body = await deps.metrics(formatOf(req));
      await sendMetrics(req, res, body.contentType, body.plain, () => Promise.resolve(body.gzip));
    }),
  );
  healthRoutes(app, deps);
  app.get('/probe', limited(probeRoute(deps)));
  app.post('/-/reload', limited(reloadRoute(deps)));
  // What every alert's runbook_url links to (prometheus/alerts.yml): the runbook of this version.
  app.get(
    '/runbook',
    limited((_req, res) => {
      res.type('html').send(runbookHtml(deps.about?.().build.version ?? VERSION));
    }),
  );
  app.get(
    '/',
    limited((_req, res) => {
      res.type('html').send(landingPage(deps, telemetryPath));
    }),
  );
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  app.use(errorHandler(deps));
  return app;
}

type Route = (req: express.Request, res: express.Response) => Promise<void> | void;

/**
 * As promhttp's MaxRequestsInFlight: a request waits for nothing, it is computed or answered 503.
 * A request counts until its answer is handed to the connection; the connection layer (listen)
 * bounds what waits there for a slow reader.
 */
function inFlightLimit(max: number): (route: Route) => (req: express.Request, res: express.Response) => Promise<void> {
  let inFlight = 0;
  return (route) => async (req, res) => {
    if (inFlight >= max) {
      res.status(503).set('retry-after', '1').type('text/plain').send(`too many requests in flight (limit ${max})\n`);
      return;
    }
    inFlight++;
    try {
      await route(req, res);
    } finally {
      inFlight--;
    }
  };
}

function probeRoute(deps: ServerDeps): Route {
  return async (req, res) => {
    const raw = Number(req.get('x-prometheus-scrape-timeout-seconds'));
    const query = new URL(req.originalUrl, 'http://x').searchParams;
    if (!query.get('target')) return void res.status(400).type('text/plain').send('missing target: /probe?target=<configured target name or allowed URL>\n');
    const out = await deps.probe(query, Number.isFinite(raw) && raw > 0 ? raw : undefined, formatOf(req));
    // A refusal is one line of text; the series are negotiated as /metrics negotiates them.
    if (out.status !== 200)
      return void res
        .status(out.status)
        .set({ ...out.headers, 'content-type': out.contentType })
        .send(out.body);
    const plain = typeof out.body === 'string' ? Buffer.from(out.body, 'utf8') : out.body;
    await sendMetrics(req, res, out.contentType, plain, () => gzip(plain));
  };
}

function reloadRoute(deps: ServerDeps): Route {
  return async (_req, res) => {
    // As Prometheus: off unless enabled, so a cross-origin form post from any web page cannot reach it.
    if (!deps.lifecycle?.()) {
      res.status(403).type('text/plain').send('Lifecycle API is not enabled (--web.enable-lifecycle).\n');
      return;
    }
    try {
      const restart = (await deps.reload()) ?? [];
      res.type('text/plain').send(restart.length === 0 ? 'reloaded\n' : `reloaded; needs a restart (running value kept): ${restart.join(', ')}\n`);
    } catch (err) {
      // The old configuration stays in force.
      res
        .status(400)
        .type('text/plain')
        .send(`reload failed: ${(err as Error).message}\n`);
    }
  };
}

/** `/`: the version, the targets (URLs without credentials) and each collector's state. */
function landingPage(deps: ServerDeps, telemetryPath: string): string {
  const about = deps.about?.();
  const b = about?.build;
  const targets = about?.targets ?? [];
  const row = (cells: string[]): string => `<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`;
  const collectors = deps.status().map((r) => {
    const status = r.runs === 0 ? 'pending' : r.success ? 'ok' : `failing (${r.lastErrorCode ?? 'error'})`;
    return row([r.scope, r.collector, status, r.lastSuccessMs ? new Date(r.lastSuccessMs).toISOString() : '-']);
  });
  const first = targets[0];
  const probe = first ? ` · <a href="${esc(`/probe?target=${encodeURIComponent(first.name)}`)}">Probe ${esc(first.name)}</a>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>datanode-exporter</title></head><body>
<h1>datanode-exporter</h1>
${b ? `<p>version ${esc(b.version)} (branch: ${esc(b.branch)}, revision: ${esc(b.revision)}), Node.js ${esc(b.nodejs_version)}</p>\n` : ''}<p><a href="${esc(telemetryPath)}">Metrics</a>${probe} · <a href="/healthz">healthz</a> · <a href="/readyz">readyz</a> · <a href="/runbook">Runbook</a></p>
<h2>Targets</h2>
<table border="1" cellpadding="4"><tr><th>name</th><th>URL</th></tr>
${targets.map((t) => row([t.name, publicUrl(t.url)])).join('\n')}
</table>
<h2>Collectors</h2>
<table border="1" cellpadding="4"><tr><th>target or network</th><th>collector</th><th>state</th><th>last success</th></tr>
${collectors.join('\n')}
</table>
<p>Documentation: README.md and docs/ in the package; docs/metrics.md describes every series.</p>
</body></html>
`;
}

/**
 * The production error handler: a one-line text answer, the error as one JSON log line; express's
 * default handler would answer with an HTML page holding the stack trace and install paths.
 */
function errorHandler(deps: ServerDeps): express.ErrorRequestHandler {
  return (err: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = httpStatusOf(err);
    if (status >= 500) deps.log?.error({ code: 'HTTP_HANDLER', path: req.path, err: err instanceof Error ? err.message : String(err) }, 'request failed');
    if (res.headersSent) return void res.end();
    res
      .status(status)
      .type('text/plain')
      .send(status >= 500 ? 'internal error\n' : 'bad request\n');
  };
}

/** The liveness and readiness routes, on the main app and on the health listener's. */
function healthRoutes(app: express.Express, deps: Pick<ServerDeps, 'pending'>): void {
  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });
  app.get('/readyz', (_req, res) => {
    const pending = deps.pending();
    res
      .status(pending.length === 0 ? 200 : 503)
      .type('text/plain')
      .send(pending.length === 0 ? 'ready\n' : `waiting for the first poll of: ${pending.join(', ')}\n`);
  });
}

/**
 * The health listener's app (--web.health-listen-address): /healthz and /readyz only, without
 * authentication or TLS (they say only "ok" and which collectors have not polled yet), so that no
 * client of the main port, however many connections it holds, stands between the kubelet and them.
 */
export function createHealthApp(deps: Pick<ServerDeps, 'pending'>): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  healthRoutes(app, deps);
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  return app;
}

/** The status an error asks for (body-parser style `status`), else 500. */
function httpStatusOf(err: unknown): number {
  const s = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === 'number' && s >= 400 && s < 600 ? s : 500;
}

export interface ListenOptions {
  address: string;
  /** Connections held at once; a newcomer beyond it takes the place of an idle one (see guardConnections). */
  maxConnections: number;
  /** Go's ReadHeaderTimeout: a connection's request headers (and its TLS handshake) within this time. */
  headersTimeoutMs: number;
  /** Go's ReadTimeout: the whole request within this time. */
  requestTimeoutMs: number;
  /** Go's WriteTimeout: an answer not fully handed to the client within this time of its request closes that connection. Default 30 s. */
  writeTimeoutMs?: number | undefined;
  /** Go's IdleTimeout: a kept-alive connection waiting for its next request this long is closed. Default 15 s. */
  idleTimeoutMs?: number | undefined;
  /** Requests one connection may make; the last is answered with `Connection: close`. Default: no limit. */
  maxRequestsPerConnection?: number | undefined;
  /** Requests one connection may have sent and not yet had answered (pipelined); beyond, it is closed. Default: no limit. */
  maxPipelinedRequests?: number | undefined;
  /** Answer bytes one connection may have waiting for its client when it sends another request; beyond, it is closed. Default: no limit. */
  maxUnsentBytesPerConnection?: number | undefined;
  /** Answer bytes all connections together may have waiting; beyond, those whose reader has lagged longest are closed. Default: no limit. */
  maxUnsentBytes?: number | undefined;
  /** HTTPS when given (from the web-config file). */
  tls?: https.ServerOptions | undefined;
}

export async function listen(handler: http.RequestListener, o: ListenOptions): Promise<http.Server> {
  const i = o.address.lastIndexOf(':');
  const host = o.address.slice(0, i).replace(/^\[|\]$/g, '') || undefined;
  const port = Number(o.address.slice(i + 1));
  // Node checks the header and request timeouts only every connectionsCheckingInterval (30 s by default).
  const check = { connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(o.headersTimeoutMs / 2))) };
  let admit: (req: http.IncomingMessage, res: http.ServerResponse) => boolean = () => true;
  const guarded: http.RequestListener = (req, res) => {
    if (admit(req, res)) handler(req, res);
  };
  // A TLS connection that never completes its handshake has no HTTP parser yet: the handshake
  // timeout is its header timeout.
  const server: http.Server = o.tls
    ? https.createServer({ ...o.tls, ...check, handshakeTimeout: o.headersTimeoutMs }, guarded)
    : http.createServer(check, guarded);
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = o.requestTimeoutMs;
  server.keepAliveTimeout = o.idleTimeoutMs ?? 15_000;
  // Past it, Node answers 503 and the connection closes ('dropRequest' below closes it at once).
  server.maxRequestsPerSocket = o.maxRequestsPerConnection ?? 0;
  admit = guardConnections(server, {
    max: o.maxConnections,
    maxPipelined: o.maxPipelinedRequests ?? Infinity,
    writeTimeoutMs: o.writeTimeoutMs ?? 30_000,
    maxUnsentPerConnection: o.maxUnsentBytesPerConnection ?? Infinity,
    maxUnsent: o.maxUnsentBytes ?? Infinity,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

interface Conn {
  /** The accepted socket (for TLS, the one under the TLS socket). */
  raw: net.Socket;
  /** The socket requests arrive on (the TLS socket over HTTPS), once one has. */
  http?: net.Socket;
  /** Requests received and not yet fully answered (more than one: pipelined). */
  busy: number;
  /** Their write deadlines: cleared with the connection too (a pipelined answer queued behind a closed one never ends, and its timer would hold the connection's parsed requests). */
  deadlines: Set<NodeJS.Timeout>;
}

/** A connection's key on both of its sockets: a TLS socket has no public link to the socket under it, but the same peer. */
const keyOf = (s: net.Socket): string => `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;

/** Answer bytes a connection holds that its client has not taken yet. */
const unsent = (c: Conn): number => (c.http ?? c.raw).writableLength;

/**
 * At most `max` connections, and a newcomer is never the one refused: the liveness check and a
 * scrape always arrive on a new connection. Over the bound, the connection idle longest (no request
 * being answered: never sent one, or kept alive between requests) is closed; failing that, the one
 * whose client has left answer bytes unread longest. Only when every connection is being
 * answered and all is sent is the newcomer refused (at most max_requests are computed at once).
 *
 * Per request: an answer not handed over within the write timeout closes its own connection (a
 * client that does not read loses its connection, no one else's); a connection with more than
 * `maxPipelined` requests not yet answered, or holding more than `maxUnsentPerConnection` unread
 * bytes when it asks again, is closed before the request reaches a route; when all connections
 * together hold more than `maxUnsent` unread bytes, those unread longest are closed.
 */
function guardConnections(
  server: http.Server,
  o: { max: number; maxPipelined: number; writeTimeoutMs: number; maxUnsentPerConnection: number; maxUnsent: number },
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const conns = new Map<string, Conn>(); // least recently active first
  const close = (key: string, c: Conn): void => {
    conns.delete(key);
    for (const t of c.deadlines) clearTimeout(t);
    c.deadlines.clear();
    c.http?.destroy();
    c.raw.destroy();
  };
  const touch = (key: string, c: Conn): void => {
    conns.delete(key);
    conns.set(key, c);
  };
  // Least recently active first: the first holding unsent bytes has waited longest for its reader
  // (an answer just handed to a client that reads is the newest, whatever its size).
  const longestUnread = (): [string, Conn] | undefined => {
    for (const e of conns) if (unsent(e[1]) > 0) return e;
    return undefined;
  };
  server.on('connection', (raw: net.Socket) => {
    const key = keyOf(raw);
    const c: Conn = { raw, busy: 0, deadlines: new Set() };
    raw.once('close', () => {
      if (conns.get(key) === c) close(key, c);
    });
    if (conns.size >= o.max) {
      let victim: [string, Conn] | undefined;
      for (const e of conns)
        if (e[1].busy === 0) {
          victim = e;
          break;
        }
      victim ??= longestUnread();
      if (!victim) return void raw.destroy();
      close(...victim);
    }
    conns.set(key, c);
  });
  // A client that sends more requests after the last one answered with `Connection: close`.
  server.on('dropRequest', (_req: http.IncomingMessage, sock: net.Socket) => sock.destroy());
  return (req, res) => {
    const sock = req.socket;
    if (sock.destroyed) return false; // the rest of a pipelined batch on a connection closed here
    const key = keyOf(sock);
    const c = conns.get(key);
    if (!c) return true;
    c.http = sock;
    if (++c.busy > o.maxPipelined || unsent(c) > o.maxUnsentPerConnection) {
      close(key, c);
      return false;
    }
    touch(key, c);
    let total = 0;
    for (const x of conns.values()) total += unsent(x);
    while (total > o.maxUnsent) {
      const v = longestUnread();
      if (!v) break;
      total -= unsent(v[1]);
      close(...v);
    }
    const deadline = setTimeout(() => close(key, c), o.writeTimeoutMs);
    c.deadlines.add(deadline);
    res.once('close', () => {
      clearTimeout(deadline);
      c.deadlines.delete(deadline);
      c.busy--;
      if (conns.get(key) === c) touch(key, c);
    });
    return !sock.destroyed;
  };
}
