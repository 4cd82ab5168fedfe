/**
 * `datanode-exporter healthcheck [flags]`: a liveness probe of a running exporter, for the image's
 * HEALTHCHECK. It reads the same flags, DATANODE_EXPORTER_* environment and config file as the
 * daemon, so it asks the address and scheme the daemon actually serves. Exit 0 when GET /healthz
 * answers 2xx within 2 s, 1 otherwise (Docker reserves 2).
 */
import http from 'node:http';
import https from 'node:https';
import { loadConfig, parseCli } from '../config/load.js';

const TIMEOUT_MS = 2_000;
const HELP = `Usage: datanode-exporter healthcheck [the daemon's flags]
Exit 0 if the exporter those flags, DATANODE_EXPORTER_* variables and config file describe answers
GET /healthz with 2xx within 2 s, else 1: on the health listener when one is set
(--web.health-listen-address), else on the main one. Wildcard addresses are probed on loopback.`;

/** Where a client reaches a server listening on `address`: wildcards become the loopback address. */
export function healthUrl(address: string, tls: boolean): string {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = address.slice(i + 1);
  let target: string;
  if (host === '' || host === '0.0.0.0') target = '127.0.0.1';
  else if (host === '::' || /^[0:]+$/.test(host)) target = '[::1]';
  else target = host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${target}:${port}/healthz`;
}

/** GET url; true on a 2xx within the timeout. */
export function probe(url: string, tls?: { cert: Buffer; key: Buffer }, timeoutMs = TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const opts = {
      timeout: timeoutMs,
      // Our own process, probed over loopback: its certificate is rarely issued for 127.0.0.1.
      rejectUnauthorized: false,
      // Where client certificates are required, offer the server's own pair (enough for
      // RequireAnyClientCert, and for verified ones when the server's certificate is from that CA).
      ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    };
    const req = (u.protocol === 'https:' ? https : http).get(u, opts, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}

export async function healthcheck(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let url: string;
  let clientPair: { cert: Buffer; key: Buffer } | undefined;
  try {
    const cli = parseCli(argv);
    if (cli.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    // The probe needs only the web settings. Targets are the daemon's business, and the image's
    // HEALTHCHECK cannot see the --datanode.url given as container arguments: stand one in.
    const noTarget = cli.overrides.datanodeUrl === undefined && !env.DATANODE_EXPORTER_DATANODE_URL;
    const config = loadConfig(cli, noTarget ? { ...env, DATANODE_EXPORTER_DATANODE_URL: 'http://127.0.0.1:1' } : env);
    // The health listener, when there is one: plain HTTP, and no client of the main port in its way.
    const health = config.web.health_listen_address;
    let tls = false;
    if (health === undefined && config.web.config_file) {
      const web = (await import('./auth.js')).loadWebConfig(config.web.config_file);
      tls = web.tls !== undefined;
      if (web.tls && web.config.tls_server_config?.client_auth_type.startsWith('Require'))
        clientPair = { cert: web.tls.cert as Buffer, key: web.tls.key as Buffer };
    }
    url = health === undefined ? healthUrl(config.web.listen_address, tls) : healthUrl(health, false);
  } catch (err) {
    process.stderr.write(`datanode-exporter healthcheck: ${(err as Error).message}\n`);
    return 1;
  }
  if (await probe(url, clientPair)) return 0;
  process.stderr.write(`datanode-exporter healthcheck: ${url} did not answer 2xx within ${TIMEOUT_MS / 1000} s\n`);
  return 1;
}
