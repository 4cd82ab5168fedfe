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
import { ConfigError } from '../errors.js';
import { readRegularFile } from '../files.js';
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

/** An address's failures and busy answers in the current window. */
interface Standing {
  until: number;
  failed: number;
  busy: number;
}

/** Failures of one (address, user) in the current window. */
interface Failures {
  count: number;
  resetAt: number;
  /** Over the limit: no check before this time, nor while one runs. */
  nextAt: number;
  checking: boolean;
}

/**
 * Basic-auth checks: a bcrypt verification costs tens of milliseconds, so a successful one is
 * remembered (keyed by a SHA-256 of the credentials, never the password itself) for as long as it
 * keeps being used, and checked first, before any limit or queue. Failures are counted per client
 * address and user name (an address Prometheus shares cannot lock its user out by failing another
 * password); past the limit that (address, user) is slowed to one check per window / limit rather
 * than locked out, so wrong passwords from a shared address cannot keep the right one out. Checks
 * from addresses that have not failed or been refused lately go before the others (bcrypt-pool.ts),
 * so neither can a flood from many addresses. Unknown users are
 * compared with the configured hash of the highest cost, so they take as long as known ones. The
 * verifications themselves run in a small bounded pool of worker threads.
 */
export class BasicAuth {
  private readonly users: Map<Buffer, string>;
  /** What an unknown user's password is compared with (the result is ignored). */
  private readonly dummyHash: string;
  private readonly ok = new Map<string, number>();
  private readonly failures = new Map<string, Failures>();
  /** Addresses that failed, or were told the pool is busy, in the current window. */
  private readonly standing = new Map<string, Standing>();
  private readonly pool: BcryptPool;
  private static readonly TTL_MS = 5 * 60_000;

  constructor(
    users: Record<string, string>,
    private readonly limits: AuthLimits = DEFAULT_AUTH_LIMITS,
  ) {
    this.users = new Map(Object.entries(users).map(([u, h]) => [createHash('sha256').update(u).digest(), h.replace(/^\$2y\$/, '$2b$')]));
    // The cost is the two digits after `$2b$`; '' when there are no users (auth is off then).
    this.dummyHash = [...this.users.values()].reduce((a, h) => (h.slice(4, 6) > a.slice(4, 6) ? h : a), '');
    this.pool = new BcryptPool(limits, (address) => this.rank(address));
  }

  get enabled(): boolean {
    return this.users.size > 0;
  }

  /** Seconds until `client` may try again as the user of `header`, when it has used up its failures. */
  retryAfter(client: string, header?: string): number | undefined {
    return this.retryAfterKey(failureKey(client, credentials(header).user));
  }

  private retryAfterKey(client: string): number | undefined {
    const f = this.current(client);
    if (!f || f.count < this.limits.maxFailuresPerClient) return undefined;
    if (f.checking) return 1;
    const now = Date.now();
    return f.nextAt > now ? Math.ceil((f.nextAt - now) / 1000) : undefined;
  }

  /** The failures of `client` in the current window, if any. */
  private current(client: string): Failures | undefined {
    const f = this.failures.get(client);
    if (f && f.resetAt <= Date.now()) {
      this.failures.delete(client);
      return undefined;
    }
    return f;
  }

  private fail(client: string, address: string): void {
    const now = Date.now();
    let f = this.current(client);
    if (!f) {
      trim(this.failures, (v) => v.resetAt <= now);
      f = { count: 0, resetAt: now + this.limits.failureWindowMs, nextAt: 0, checking: false };
      this.failures.set(client, f);
    }
    f.count += 1;
    // Past the limit, the next check waits its share of the window.
    if (f.count > this.limits.maxFailuresPerClient) f.nextAt = now + this.limits.failureWindowMs / this.limits.maxFailuresPerClient;
    this.suspectFor(address);
  }

  /** `address` failed or was refused (`failed`), or was told the pool is busy: its checks go after the others' for a window. */
  private suspectFor(address: string, failed = true): void {
    const now = Date.now();
    trim(this.standing, (s) => s.until <= now);
    let s = this.standing.get(address);
    if (!s || s.until <= now) s = { until: 0, failed: 0, busy: 0 };
    this.standing.delete(address); // re-inserted last: trim drops the oldest first
    this.standing.set(address, { until: now + this.limits.failureWindowMs, failed: s.failed + (failed ? 1 : 0), busy: s.busy + (failed ? 0 : 1) });
  }

  /**
   * Where `address` waits (lower first): an address that failed goes after every one that has not;
   * among those that have not, one told busy fewer times first. So a flood retrying on busy answers
   * keeps its own addresses back, not an address that was told busy once.
   */
  private rank(address: string): number {
    const s = this.standing.get(address);
    return s === undefined || s.until <= Date.now() ? 0 : s.failed * 1e9 + Math.min(s.busy, 1e9 - 1);
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
    if (this.retryAfterKey(client) !== undefined) {
      this.suspectFor(address);
      return 'limited';
    }
    if (!valid) {
      this.fail(client, address);
      return 'denied';
    }
    // Compare user names in constant time; an unknown user still pays for a bcrypt comparison.
    const u = createHash('sha256').update(user).digest();
    let hash: string | undefined;
    for (const [k, h] of this.users) if (timingSafeEqual(k, u)) hash = h;
    const f = this.current(client);
    if (f) f.checking = f.count >= this.limits.maxFailuresPerClient;
    const r = await this.pool.compare(pass, hash ?? this.dummyHash, gone, address);
    if (f) f.checking = false;
    // A busy answer says nothing of its address: marked as failed, it would wait behind the flood
    // that made the pool busy, refused at every try while the flood lasts.
    if (r === 'busy') this.suspectFor(address, false);
    if (r === 'ok' && hash !== undefined) {
      if (this.ok.size > 1024) this.ok.clear();
      this.ok.set(key, Date.now() + BasicAuth.TTL_MS);
      return 'ok';
    }
    if (r === 'ok' || r === 'denied') {
      this.fail(client, address);
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

/** Keep `map` under MAX_CLIENTS entries: expired ones first, then the oldest. */
function trim<V>(map: Map<string, V>, expired: (v: V) => boolean): void {
  if (map.size < MAX_CLIENTS) return;
  for (const [k, v] of map) if (expired(v)) map.delete(k);
  if (map.size >= MAX_CLIENTS) map.delete(map.keys().next().value as string);
}
const MAX_CLIENTS = 10_000;

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
