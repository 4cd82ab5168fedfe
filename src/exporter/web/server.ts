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
  app.get(telemetryPath, async (req, res) => {
    const body = await deps.metrics(formatOf(req));
    await sendMetrics(req, res, body.contentType, body.plain, () => Promise.resolve(body.gzip));
  });

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

  app.get('/probe', async (req, res) => {
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
  });

  app.post('/-/reload', async (_req, res) => {
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
  });

  // What every alert's runbook_url links to (prometheus/alerts.yml): the runbook of this version.
  app.get('/runbook', (_req, res) => {
    res.type('html').send(runbookHtml(deps.about?.().build.version ?? VERSION));
  });

  app.get('/', (_req, res) => {
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
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>datanode-exporter</title></head><body>
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
    res
      .status(status)
      .type('text/plain')
      .send(status >= 500 ? 'internal error\n' : 'bad request\n');
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
  maxConnections: number;
  /** Of maxConnections, how many only connections that have sent a whole request may hold. */
  reservedConnections?: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Requests one connection may make; the last is answered with `Connection: close`. Default: no limit. */
  maxRequestsPerConnection?: number | undefined;
  /** Requests one connection may have sent and not yet had answered (pipelined); beyond, it is closed. Default: no limit. */
  maxPipelinedRequests?: number | undefined;
  /** HTTPS when given (from the web-config file). */
  tls?: https.ServerOptions | undefined;
  /** The connection guard's clock, in ms (tests); performance.now by default. */
  now?: () => number;
}

export async function listen(handler: http.RequestListener, o: ListenOptions): Promise<http.Server> {
  const i = o.address.lastIndexOf(':');
  const host = o.address.slice(0, i).replace(/^\[|\]$/g, '') || undefined;
  const port = Number(o.address.slice(i + 1));
  // Node checks those timeouts only every connectionsCheckingInterval (30 s by default).
  const check = { connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(o.headersTimeoutMs / 2))) };
  let admit: (req: http.IncomingMessage, res: http.ServerResponse) => boolean = () => true;
  const guarded: http.RequestListener = (req, res) => {
    if (admit(req, res)) handler(req, res);
  };
  const server: http.Server = o.tls ? https.createServer({ ...o.tls, ...check }, guarded) : http.createServer(check, guarded);
  // A slow or hostile client cannot hold a connection open indefinitely, and there is a cap on how
  // many it may hold at once; scrapes on other connections are served meanwhile.
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = o.requestTimeoutMs;
  server.keepAliveTimeout = 15_000;
  // Past it, Node answers 503 and the connection closes ('dropRequest' below closes it at once).
  server.maxRequestsPerSocket = o.maxRequestsPerConnection ?? 0;
  admit = guardConnections(server, o.maxConnections, o.reservedConnections ?? 0, o.maxPipelinedRequests ?? Infinity, o.now ?? (() => performance.now()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** How long a new connection may wait for its first whole request before a newcomer can take its place. */
const UNPROVEN_GRACE_MS = 250;

interface ConnState {
  /** It has sent at least one whole request (a slowloris socket never does). */
  proven: boolean;
  /** When it connected (performance.now()). */
  at: number;
  /** Requests received and not yet answered (more than one: pipelined). */
  pending: number;
}

/**
 * At most `max` connections. Connections that have not yet sent a whole request may hold at most
 * `max - reserved` of them; the rest are kept for clients that have. When a new connection comes
 * over either bound, the oldest connection that has waited UNPROVEN_GRACE_MS or more for its first
 * request is closed (then the oldest idle kept-alive one) instead of the newcomer: a client holding
 * hundreds of half-sent requests (slowloris) cannot lock Prometheus or a probe out, however many
 * sockets it holds. Younger ones are kept and the newcomer refused: in a burst of new connections,
 * a probe that connected a moment before (its request not read yet) is not closed by the burst.
 *
 * And a connection with more than `maxPipelined` requests not yet answered is closed before the
 * excess reaches a route: Node parses every request pipelined in one read at once, and would
 * render and hold an answer to each (thousands from a few kilobytes) for a client that may never
 * read them. Returns the check each request passes before it is handled.
 */
function guardConnections(
  server: http.Server,
  max: number,
  reserved: number,
  maxPipelined: number,
  clock: () => number,
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
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
    const now = clock();
    const state: ConnState = { proven: false, pending: 0, at: now };
    conns.set(sock, state);
    unproven++;
    sock.once('close', () => forget(sock, state));
    const overUnproven = unproven > max - reserved;
    const overTotal = conns.size > max;
    if (!overUnproven && !overTotal) return;
    if (evict(sock, (c) => !c.proven && now - c.at >= UNPROVEN_GRACE_MS)) return;
    if (overTotal && evict(sock, (c) => c.proven && c.pending === 0)) return;
    forget(sock, state);
    sock.destroy();
  });
  // A client that sends more requests after the last one answered with `Connection: close`.
  server.on('dropRequest', (_req: http.IncomingMessage, sock: net.Socket) => sock.destroy());
  return (req, res) => {
    if (req.socket.destroyed) return false; // the rest of a pipelined batch on a connection closed below
    const raw = conns.has(req.socket) ? req.socket : ((req.socket as net.Socket & { _parent?: net.Socket })._parent ?? req.socket);
    const state = conns.get(raw);
    if (!state) return true;
    if (!state.proven) {
      state.proven = true;
      unproven--;
    }
    if (++state.pending > maxPipelined) {
      forget(raw, state);
      req.socket.destroy();
      return false;
    }
    res.once('close', () => {
      state.pending--;
    });
    return true;
  };
}
