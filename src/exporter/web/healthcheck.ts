/**
 * `datanode-exporter healthcheck [flags]`: a liveness probe of a running exporter, for the image's
 * HEALTHCHECK. It reads the same flags, DATANODE_EXPORTER_* environment and config file as the
 * daemon, so it asks the address and scheme the daemon actually serves. `healthcheck --pid=N` takes
 * the flags and environment of the exporter running as process N instead (/proc/N/cmdline and
 * environ): the image's HEALTHCHECK cannot see the container's arguments otherwise, and with the
 * address given by flag it would probe another one. Exit 0 when GET /healthz answers 2xx within
 * 2 s, 1 otherwise (Docker reserves 2).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { loadConfig, parseCli } from '../config/load.js';

const TIMEOUT_MS = 2_000;
const HELP = `Usage: datanode-exporter healthcheck [the daemon's flags]
       datanode-exporter healthcheck --pid=N
Exit 0 if the exporter those flags, DATANODE_EXPORTER_* variables and config file describe answers
GET /healthz with 2xx within 2 s, else 1: on the health listener when one is set
(--web.health-listen-address), else on the main one. Wildcard addresses are probed on loopback. With
--pid=N, the flags and environment are those process N was started with (the image uses --pid=1).`;

/**
 * The daemon's own arguments and environment, as process `pid` was started: its command line is
 * `node [node options] <script> [arguments]` (the bin's shebang execs node), so the arguments are
 * what follows the first word after node that is not an option.
 */
export function processArgs(pid: number, proc = '/proc'): { argv: string[]; env: NodeJS.ProcessEnv } {
  const words = (f: string): string[] => readFileSync(`${proc}/${pid}/${f}`, 'utf8').split('\0').slice(0, -1);
  const cmd = words('cmdline');
  const script = cmd.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  if (script < 0) throw new Error(`process ${pid} (${cmd[0] ?? '?'}) runs no script`);
  const env: NodeJS.ProcessEnv = {};
  for (const kv of words('environ')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return { argv: cmd.slice(script + 1), env };
}

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
    const pid = /^--pid=(\d+)$/.exec(argv[0] ?? '')?.[1];
    if (pid !== undefined) {
      if (argv.length > 1) throw new Error('--pid takes no other flags: the process is probed as it was started');
      ({ argv, env } = processArgs(Number(pid)));
    }
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
