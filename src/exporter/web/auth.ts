/**
 * Protecting the HTTP face: Prometheus exporter-toolkit's web-config file (`--web.config.file`):
 * TLS with an optional client CA (mutual TLS), a minimum version, basic-auth users with bcrypt
 * hashes, and extra response headers. Extension: `unauthenticated_paths` (default /healthz and
 * /readyz, for Kubernetes probes). Passwords and key material never reach logs or errors.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { https } from '../process/lean/http.js';
import type { TLSSocket } from 'node:tls';
import bcrypt from 'bcryptjs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/load.js';

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
  http_server_config: z
    .strictObject({ http2: z.boolean().optional(), headers: z.record(z.string(), z.string()).default({}) })
    .optional(),
  basic_auth_users: z.record(z.string().min(1), z.string().regex(BCRYPT, { error: 'expected a bcrypt hash ($2a$, $2b$ or $2y$)' })).default({}),
  unauthenticated_paths: z.array(z.string().startsWith('/')).default(['/healthz', '/readyz']),
});

export type WebConfig = z.output<typeof webConfigSchema>;

/** Read and validate the web-config file; file contents never appear in the error. */
export function loadWebConfig(path: string): { config: WebConfig; tls: Https.ServerOptions | undefined } {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`web.config.file: ${code ? `cannot read ${path}: ${code}` : `${path} is not valid YAML`}`);
  }
  const parsed = webConfigSchema.safeParse(doc ?? {});
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `web.config.file (${path}): ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`).join('; '));
  }
  const config = parsed.data;
  const t = config.tls_server_config;
  if (!t) return { config, tls: undefined };
  const file = (field: string, p: string): Buffer => {
    try {
      return readFileSync(p);
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

/**
 * Basic-auth checks: a bcrypt verification costs tens of milliseconds, so a successful one is
 * remembered (keyed by a SHA-256 of the credentials, never the password itself) for a few minutes.
 */
export class BasicAuth {
  private readonly users: Map<Buffer, string>;
  private readonly ok = new Map<string, number>();
  private static readonly TTL_MS = 5 * 60_000;
  private static dummy: string | undefined;

  constructor(users: Record<string, string>) {
    this.users = new Map(Object.entries(users).map(([u, h]) => [createHash('sha256').update(u).digest(), h.replace(/^\$2y\$/, '$2b$')]));
  }

  get enabled(): boolean {
    return this.users.size > 0;
  }

  async check(header: string | undefined): Promise<boolean> {
    const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
    if (!m) return false;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const user = decoded.slice(0, colon);
    const pass = decoded.slice(colon + 1);
    const key = createHash('sha256').update(user).update('\u0000').update(pass).digest('hex');
    const until = this.ok.get(key);
    if (until !== undefined && until > Date.now()) return true;
    // Compare user names in constant time; an unknown user still pays for a bcrypt comparison.
    const u = createHash('sha256').update(user).digest();
    let hash: string | undefined;
    for (const [k, h] of this.users) if (timingSafeEqual(k, u)) hash = h;
    BasicAuth.dummy ??= bcrypt.hashSync('unused', 10);
    const good = await bcrypt.compare(pass, hash ?? BasicAuth.dummy);
    if (!good || hash === undefined) return false;
    if (this.ok.size > 1024) this.ok.clear();
    this.ok.set(key, Date.now() + BasicAuth.TTL_MS);
    return true;
  }
}

/** Wrap a request listener with client-certificate checks, basic auth and extra headers. */
export function protect(handler: Http.RequestListener, web: WebConfig | undefined): Http.RequestListener {
  if (!web) return handler;
  const auth = new BasicAuth(web.basic_auth_users);
  const open = new Set(web.unauthenticated_paths);
  const clientAuth = web.tls_server_config?.client_auth_type ?? 'NoClientCert';
  const headers = Object.entries(web.http_server_config?.headers ?? {});
  return (req, res) => {
    for (const [k, v] of headers) res.setHeader(k, v);
    const path = (req.url ?? '/').split('?')[0]!;
    const sock = req.socket as TLSSocket;
    if (clientAuth === 'RequireAnyClientCert' && typeof sock.getPeerCertificate === 'function' && Object.keys(sock.getPeerCertificate()).length === 0) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('a client certificate is required\n');
      return;
    }
    if (clientAuth === 'VerifyClientCertIfGiven' && typeof sock.getPeerCertificate === 'function' && Object.keys(sock.getPeerCertificate()).length > 0 && !sock.authorized) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('client certificate not trusted\n');
      return;
    }
    if (!auth.enabled || open.has(path)) return handler(req, res);
    auth.check(req.headers.authorization).then(
      (ok) => {
        if (ok) return handler(req, res);
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="datanode-exporter"' }).end('unauthorized\n');
      },
      () => res.writeHead(500).end(),
    );
  };
}
