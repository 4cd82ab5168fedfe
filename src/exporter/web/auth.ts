/**
 * Protecting the HTTP face: Prometheus exporter-toolkit's web-config file (`--web.config.file`):
 * TLS with an optional client CA (mutual TLS), a minimum version, basic-auth users with bcrypt
 * hashes, and extra response headers. Extension: `unauthenticated_paths` (default /healthz and
 * /readyz, for Kubernetes probes). Passwords and key material never reach logs or errors.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError, readRegularFile } from '../config/load.js';
import { BcryptPool, DEFAULT_AUTH_LIMITS, type AuthLimits, type CheckResult } from './bcrypt-pool.js';

export { DEFAULT_AUTH_LIMITS, type AuthLimits, type CheckResult };

const CLIENT_AUTH = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;
const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().min(1, { error: 'expected a path' }),
      key_file: z.string().min(1, { error: 'expected a path' }),
      client_auth_type: z.enum(CLIENT_AUTH).default('NoClientCert'),
      client_ca_file: z.string().optional(),
      min_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).default('TLS12'),
      max_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).optional(),
      // Accepted for compatibility with exporter-toolkit files; Node picks its own safe defaults.
      cipher_suites: z.array(z.string()).optional(),
      curve_preferences: z.array(z.string()).optional(),
      prefer_server_cipher_suites: z.boolean().optional(),
    })
    .refine((t) => !['RequireAndVerifyClientCert', 'VerifyClientCertIfGiven'].includes(t.client_auth_type) || t.client_ca_file, {
      error: 'client_ca_file is required to verify client certificates',
      path: ['client_ca_file'],
    })
    .optional(),
  http_server_config: z.strictObject({ http2: z.boolean().optional(), headers: z.record(z.string(), z.string()).default({}) }).optional(),
  basic_auth_users: z
    .record(
      z.string().min(1),
      z
        .string()
        .regex(BCRYPT, { error: 'expected a bcrypt hash ($2a$, $2b$ or $2y$)' })
        .refine(
          (h) => {
            const cost = Number(h.slice(4, 6));
            return cost >= 4 && cost <= 31;
          },
          { error: 'expected a bcrypt cost from 04 to 31' },
        ),
    )
    .default({}),
  unauthenticated_paths: z.array(z.string().startsWith('/')).default(['/healthz', '/readyz']),
});

export type WebConfig = z.output<typeof webConfigSchema>;

/** Read and validate the web-config file; file contents never appear in the error. */
export function loadWebConfig(path: string): { config: WebConfig; tls: Https.ServerOptions | undefined } {
  let doc: unknown;
  try {
    doc = parseYaml(readRegularFile(path).toString('utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`web.config.file: ${code ? `cannot read ${path}: ${code}` : `${path} is not valid YAML`}`);
  }
  const parsed = webConfigSchema.safeParse(doc ?? {});
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `web.config.file (${path}): ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`).join('; '),
    );
  }
  const config = parsed.data;
  const t = config.tls_server_config;
  if (!t) return { config, tls: undefined };
  const file = (field: string, p: string): Buffer => {
    try {
      return readRegularFile(p);
    } catch (err) {
      throw new ConfigError(`web.config.file: tls_server_config.${field}: cannot read ${p}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  };
  const tls: Https.ServerOptions = {
    cert: file('cert_file', t.cert_file),
    key: file('key_file', t.key_file),
    minVersion: TLS_VERSIONS[t.min_version],
    ...(t.max_version ? { maxVersion: TLS_VERSIONS[t.max_version] } : {}),
    ...(t.client_ca_file ? { ca: file('client_ca_file', t.client_ca_file) } : {}),
    requestCert: t.client_auth_type !== 'NoClientCert',
    rejectUnauthorized: t.client_auth_type === 'RequireAndVerifyClientCert',
  };
  try {
    https.createServer(tls).close(); // parses the key and certificates now, at startup
  } catch (err) {
    throw new ConfigError(`web.config.file: tls_server_config: the certificate or key cannot be used (${(err as { code?: string }).code ?? 'invalid'})`);
  }
  return { config, tls };
}

/** A cost-10 hash of a throwaway password: unknown users pay a comparison too (no user enumeration by timing). */
const DUMMY_HASH = '$2b$10$AKSkZtriJDuKSTFWbqfmyO/xTIgWHkOwhBCw8pFXQVokYa7zQHQqK';

/**
 * Basic-auth checks: a bcrypt verification costs tens of milliseconds, so a successful one is
 * remembered (keyed by a SHA-256 of the credentials, never the password itself) for as long as it
 * keeps being used, and checked first, before any limit or queue; failures are counted per client
 * address and user name (an address Prometheus shares cannot lock its user out by failing another
 * password) and refused without bcrypt once over the limit; the verifications themselves run in a
 * small bounded pool of worker threads.
 */
export class BasicAuth {
  private readonly users: Map<Buffer, string>;
  private readonly ok = new Map<string, number>();
  private readonly failures = new Map<string, { count: number; resetAt: number }>();
  private readonly pool: BcryptPool;
  private static readonly TTL_MS = 5 * 60_000;
  private static readonly MAX_CLIENTS = 10_000;

  constructor(
    users: Record<string, string>,
    private readonly limits: AuthLimits = DEFAULT_AUTH_LIMITS,
  ) {
    this.users = new Map(Object.entries(users).map(([u, h]) => [createHash('sha256').update(u).digest(), h.replace(/^\$2y\$/, '$2b$')]));
    this.pool = new BcryptPool(limits);
  }

  get enabled(): boolean {
    return this.users.size > 0;
  }

  /** Seconds until `client` may try again as the user of `header`, when it has used up its failures. */
  retryAfter(client: string, header?: string): number | undefined {
    return this.retryAfterKey(failureKey(client, credentials(header).user));
  }

  private retryAfterKey(client: string): number | undefined {
    const f = this.failures.get(client);
    if (!f) return undefined;
    const now = Date.now();
    if (f.resetAt <= now) {
      this.failures.delete(client);
      return undefined;
    }
    return f.count >= this.limits.maxFailuresPerClient ? Math.ceil((f.resetAt - now) / 1000) : undefined;
  }

  private fail(client: string): void {
    const now = Date.now();
    let f = this.failures.get(client);
    if (!f || f.resetAt <= now) {
      if (this.failures.size >= BasicAuth.MAX_CLIENTS) {
        for (const [k, v] of this.failures) if (v.resetAt <= now) this.failures.delete(k);
        if (this.failures.size >= BasicAuth.MAX_CLIENTS) this.failures.delete(this.failures.keys().next().value as string);
      }
      f = { count: 0, resetAt: now + this.limits.failureWindowMs };
      this.failures.set(client, f);
    }
    f.count += 1;
  }

  async check(header: string | undefined, address = '', gone: () => boolean = () => false): Promise<CheckResult> {
    const { user, pass, valid } = credentials(header);
    // A cached success is one hash and one lookup, whatever else is going on; each use extends it,
    // so a scraping Prometheus never has to win a place in the bcrypt queue again.
    const key = createHash('sha256').update(user).update('\u0000').update(pass).digest('hex');
    const until = this.ok.get(key);
    const now = Date.now();
    if (valid && until !== undefined && until > now) {
      this.ok.set(key, now + BasicAuth.TTL_MS);
      return 'ok';
    }
    const client = failureKey(address, user);
    if (this.retryAfterKey(client) !== undefined) return 'limited';
    if (!valid) {
      this.fail(client);
      return 'denied';
    }
    // Compare user names in constant time; an unknown user still pays for a bcrypt comparison.
    const u = createHash('sha256').update(user).digest();
    let hash: string | undefined;
    for (const [k, h] of this.users) if (timingSafeEqual(k, u)) hash = h;
    const r = await this.pool.compare(pass, hash ?? DUMMY_HASH, gone);
    if (r === 'ok' && hash !== undefined) {
      if (this.ok.size > 1024) this.ok.clear();
      this.ok.set(key, Date.now() + BasicAuth.TTL_MS);
      return 'ok';
    }
    if (r === 'ok' || r === 'denied') {
      this.fail(client);
      return 'denied';
    }
    return r;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function credentials(header: string | undefined): { user: string; pass: string; valid: boolean } {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon < 0 ? { user: '', pass: '', valid: false } : { user: decoded.slice(0, colon), pass: decoded.slice(colon + 1), valid: true };
}

/** Failures are counted per address and user name. */
const failureKey = (address: string, user: string): string => `${address}\u0000${user}`;

/** Wrap a request listener with client-certificate checks, basic auth and extra headers. */
export function protect(
  handler: Http.RequestListener,
  web: WebConfig | undefined,
  limits: AuthLimits = DEFAULT_AUTH_LIMITS,
): Http.RequestListener & { close: () => Promise<void> } {
  if (!web) return Object.assign(handler, { close: async () => {} });
  const auth = new BasicAuth(web.basic_auth_users, limits);
  const open = new Set(web.unauthenticated_paths);
  const clientAuth = web.tls_server_config?.client_auth_type ?? 'NoClientCert';
  const headers = Object.entries(web.http_server_config?.headers ?? {});
  const listener: Http.RequestListener = (req, res) => {
    for (const [k, v] of headers) res.setHeader(k, v);
    const path = (req.url ?? '/').split('?')[0]!;
    const sock = req.socket as TLSSocket;
    if (clientAuth === 'RequireAnyClientCert' && typeof sock.getPeerCertificate === 'function' && Object.keys(sock.getPeerCertificate()).length === 0) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('a client certificate is required\n');
      return;
    }
    if (
      clientAuth === 'VerifyClientCertIfGiven' &&
      typeof sock.getPeerCertificate === 'function' &&
      Object.keys(sock.getPeerCertificate()).length > 0 &&
      !sock.authorized
    ) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('client certificate not trusted\n');
      return;
    }
    if (!auth.enabled || open.has(path)) return handler(req, res);
    const client = req.socket.remoteAddress ?? '';
    auth
      .check(req.headers.authorization, client, () => req.socket.destroyed)
      .then(
        (r) => {
          if (r === 'ok') return handler(req, res);
          if (r === 'gone' || res.destroyed) return;
          if (r === 'limited' || r === 'busy') {
            const wait = r === 'limited' ? (auth.retryAfter(client, req.headers.authorization) ?? 1) : 1;
            res
              .writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(wait) })
              .end(r === 'limited' ? 'too many failed logins for this user from this address\n' : 'too many logins being checked; try again\n');
            return;
          }
          res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="datanode-exporter"' }).end('unauthorized\n');
        },
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n'),
      );
  };
  return Object.assign(listener, { close: () => auth.close() });
}
