/** The HTTP server's start-up: the express app, authentication and TLS, connection limits. */
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/schema.js';
import type { WebConfig } from './auth.js';
import { createApp, createHealthApp, listen, type ServerDeps } from './server.js';

/** The web-config file, loaded: who may scrape, and the TLS settings. */
export interface WebAuth {
  config: WebConfig;
  tls: https.ServerOptions | undefined;
}

export interface RunningWeb {
  /** e.g. http://127.0.0.1:19308 */
  url: string;
  /** The health listener's /healthz, when web.health_listen_address is set. */
  healthUrl: string | undefined;
  stop: () => Promise<void>;
}

/**
 * The health listener's own limits: its answers are a few bytes and computed at once, so a
 * connection that has not sent its request within a second is not the kubelet's; the most a
 * client can hold there is bounded like the main port's.
 */
const HEALTH_LIMITS = {
  maxConnections: 64,
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 2_000,
  writeTimeoutMs: 2_000,
  idleTimeoutMs: 2_000,
  maxRequestsPerConnection: 100,
  maxPipelinedRequests: 2,
  maxUnsentBytesPerConnection: 64 * 1024,
  maxUnsentBytes: 1024 * 1024,
};

const urlOf = (server: http.Server, scheme: string): string => {
  const addr = server.address() as AddressInfo;
  return `${scheme}://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
};

const closeServer = (server: http.Server): Promise<void> => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
};

export async function startWeb(deps: ServerDeps, web: Config['web'], address: string, auth?: WebAuth): Promise<RunningWeb> {
  const app = createApp({ ...deps, lifecycle: deps.lifecycle ?? (() => web.enable_lifecycle), maxRequests: deps.maxRequests ?? web.max_requests });
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
  let health: http.Server | undefined;
  try {
    server = await listen(guarded, {
      address,
      maxConnections: web.max_connections,
      headersTimeoutMs: web.read_header_timeout,
      requestTimeoutMs: web.request_timeout,
      writeTimeoutMs: web.write_timeout,
      idleTimeoutMs: web.idle_timeout,
      maxRequestsPerConnection: web.max_requests_per_connection,
      maxPipelinedRequests: web.max_pipelined_requests,
      maxUnsentBytesPerConnection: web.max_unsent_bytes_per_connection,
      maxUnsentBytes: web.max_unsent_bytes,
      tls: auth?.tls,
    });
  } catch (err) {
    await guarded.close();
    throw err;
  }
  if (web.health_listen_address !== undefined) {
    try {
      const healthApp = createHealthApp(deps);
      health = await listen((req, res) => void healthApp(req, res), { address: web.health_listen_address, ...HEALTH_LIMITS });
    } catch (err) {
      await guarded.close();
      await closeServer(server);
      throw err;
    }
  }
  return {
    url: urlOf(server, auth?.tls ? 'https' : 'http'),
    healthUrl: health ? `${urlOf(health, 'http')}/healthz` : undefined,
    stop: async () => {
      await guarded.close();
      await Promise.all([closeServer(server), health && closeServer(health)]);
    },
  };
}
