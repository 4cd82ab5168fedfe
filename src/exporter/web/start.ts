/** The HTTP server's start-up: the express app, authentication and TLS, connection limits. */
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/schema.js';
import type { WebConfig } from './auth.js';
import { createApp, listen, type ServerDeps } from './server.js';

/** The web-config file, loaded: who may scrape, and the TLS settings. */
export interface WebAuth {
  config: WebConfig;
  tls: https.ServerOptions | undefined;
}

export interface RunningWeb {
  /** e.g. http://127.0.0.1:19308 */
  url: string;
  stop: () => Promise<void>;
}

export async function startWeb(deps: ServerDeps, web: Config['web'], address: string, auth?: WebAuth): Promise<RunningWeb> {
  const app = createApp({ ...deps, lifecycle: deps.lifecycle ?? (() => web.enable_lifecycle) });
  // TLS and basic auth (and bcrypt) are loaded only when a web config asks for them.
  const a = web.auth;
  const guarded = auth
    ? (await import('./auth.js')).protect(app, auth.config, {
        maxConcurrentChecks: a.max_concurrent_checks,
        maxQueuedChecks: a.max_queued_checks,
        maxFailuresPerClient: a.max_failures_per_client,
        failureWindowMs: a.failure_window,
      })
    : Object.assign((req: http.IncomingMessage, res: http.ServerResponse): void => void app(req, res), { close: async () => {} });
  let server: http.Server;
  try {
    server = await listen(guarded, {
      address,
      maxConnections: web.max_connections,
      reservedConnections: web.reserved_connections ?? Math.min(32, Math.floor(web.max_connections / 8)),
      headersTimeoutMs: web.read_header_timeout,
      requestTimeoutMs: web.request_timeout,
      maxRequestsPerConnection: web.max_requests_per_connection,
      maxPipelinedRequests: web.max_pipelined_requests,
      tls: auth?.tls,
    });
  } catch (err) {
    await guarded.close();
    throw err;
  }
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `${auth?.tls ? 'https' : 'http'}://${host}:${addr.port}`,
    stop: async () => {
      await guarded.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
