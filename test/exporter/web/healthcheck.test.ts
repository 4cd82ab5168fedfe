/**
 * `datanode-exporter healthcheck`: the image's HEALTHCHECK. It must probe the address and scheme the
 * daemon was configured with (flags, DATANODE_EXPORTER_* or the config file), and fail otherwise.
 */
import bcrypt from 'bcryptjs';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/exporter/cli.js';
import { healthUrl } from '../../../src/exporter/web/healthcheck.js';
import { configSchema } from '../../../src/exporter/config/schema.js';
import { Exporter } from '../../../src/exporter/exporter.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { loadWebConfig } from '../../../src/exporter/web/auth.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { makeCerts, type Certs } from '../../helpers/certs.js';
import { LogCapture } from '../../helpers/exporter.js';
import { ioTurns, withFakeClock } from '../../helpers/fake-clock.js';
import { lifecycle } from '../../helpers/lifecycle.js';

describe('healthUrl', () => {
  it.each([
    [':19308', false, 'http://127.0.0.1:19308/healthz'],
    ['0.0.0.0:9', false, 'http://127.0.0.1:9/healthz'],
    ['[::]:19308', false, 'http://[::1]:19308/healthz'],
    ['[0:0:0:0:0:0:0:0]:5', true, 'https://[::1]:5/healthz'],
    ['127.0.0.2:80', false, 'http://127.0.0.2:80/healthz'],
    ['[::1]:443', true, 'https://[::1]:443/healthz'],
    ['[fe80::1]:7', false, 'http://[fe80::1]:7/healthz'],
    ['localhost:19308', true, 'https://localhost:19308/healthz'],
  ])('%s (tls %s) -> %s', (address, tls, url) => {
    expect(healthUrl(address, tls)).toBe(url);
  });
});

describe('healthcheck subcommand', () => {
  const life = lifecycle();
  let sim: Simulator;
  let certs: Certs;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3 });
    certs = makeCerts();
  });
  afterAll(() => sim.close());

  /** A real exporter on a random loopback port; returns its port and the web-config path used. */
  async function serve(web?: string, health?: boolean): Promise<{ port: number; webFile?: string; healthPort?: number }> {
    let webFile: string | undefined;
    if (web) {
      webFile = join(certs.dir, `web-${Math.random().toString(36).slice(2)}.yml`);
      writeFileSync(webFile, web);
    }
    const config = configSchema().parse({
      targets: [{ name: 'n', url: sim.url }],
      collectors: { markets: { enabled: false }, key_rotations: { enabled: false } },
      ...(health ? { web: { health_listen_address: '127.0.0.1:0' } } : {}),
    });
    const ex = new Exporter(config, createLogger('error', new LogCapture()));
    const url = await ex.start('127.0.0.1:0', webFile ? loadWebConfig(webFile) : undefined);
    life.defer(() => ex.stop());
    return {
      port: Number(new URL(url).port),
      ...(webFile ? { webFile } : {}),
      ...(ex.healthUrl ? { healthPort: Number(new URL(ex.healthUrl).port) } : {}),
    };
  }
  const closedPort = (): Promise<number> =>
    new Promise((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
  const tls = (extra = ''): string => `tls_server_config:\n  cert_file: ${certs.path('server.crt')}\n  key_file: ${certs.path('server.key')}\n${extra}`;

  it('exits 0 against a running exporter (flag), 1 on a closed port', async () => {
    const { port } = await serve();
    expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${port}`])).toBe(0);
    expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${await closedPort()}`])).toBe(1);
  });

  it('gives up after 2 s on a server that accepts but never answers (fake clock)', async () => {
    const socks: Socket[] = [];
    const silent = createServer((sock) => void socks.push(sock.on('error', () => {})));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    life.defer(() => {
      for (const s of socks) s.destroy();
      return new Promise<void>((r) => silent.close(() => r()));
    });
    // The request has reached the server (real I/O, no clock involved): from here only the deadline can end it.
    const requested = new Promise<void>((r) => silent.once('connection', (sock: Socket) => sock.once('data', () => r())));
    await withFakeClock(Date.UTC(2030, 0, 7, 9, 0, 0), async (clock) => {
      let code: number | undefined;
      const run = main(['healthcheck', `--web.listen-address=127.0.0.1:${(silent.address() as { port: number }).port}`]).then((c) => (code = c));
      await Promise.race([requested, run]);
      expect(code, 'ended before its request reached the server').toBeUndefined();
      // Just short of 2 s: still waiting, whatever real I/O may still come (a bounded number of loop turns, not a duration).
      await clock.advance(1_999);
      expect(await ioTurns(50, () => code !== undefined), 'answered before the 2 s deadline').toBe(false);
      // At 2 s the probe gives up on its own deadline, and the healthcheck reports unhealthy.
      await clock.advance(1);
      expect(await ioTurns(50, () => code !== undefined), 'still waiting past the 2 s deadline').toBe(true);
      expect(code).toBe(1);
    });
  });

  it('reads the environment and the config file as the daemon does (flags win)', async () => {
    const { port } = await serve();
    const saved = { ...process.env };
    try {
      process.env.DATANODE_EXPORTER_WEB_LISTEN_ADDRESS = `127.0.0.1:${port}`;
      expect(await main(['healthcheck'])).toBe(0);
      expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${await closedPort()}`])).toBe(1);
      delete process.env.DATANODE_EXPORTER_WEB_LISTEN_ADDRESS;
      const file = join(certs.dir, 'exporter.yml');
      writeFileSync(file, `targets: [{ name: a, url: "${sim.url}" }]\nweb: { listen_address: "127.0.0.1:${port}" }\n`);
      expect(await main(['healthcheck', `--config.file=${file}`])).toBe(0);
      process.env.DATANODE_EXPORTER_CONFIG_FILE = file;
      expect(await main(['healthcheck'])).toBe(0);
    } finally {
      process.env = saved;
    }
  });

  it('--pid=N probes the address process N was started with: its flags, then its environment, then its config file', async () => {
    const { port } = await serve();
    const closed = await closedPort();
    const idle = join(certs.dir, 'idle.cjs');
    writeFileSync(idle, 'setInterval(() => {}, 1000);\n');
    // A process started as the image starts the exporter: node, node options, the script, its flags.
    const started = (args: string[], env: Record<string, string> = {}): number => {
      const child = spawn(process.execPath, ['--max-semi-space-size=1', idle, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
      life.defer(async () => void child.kill());
      return child.pid!;
    };
    const file = join(certs.dir, 'pid-exporter.yml');
    writeFileSync(file, `targets: [{ name: a, url: "${sim.url}" }]\nweb: { listen_address: "127.0.0.1:${closed}" }\n`);
    // Our own environment points elsewhere: only the process's counts.
    const saved = { ...process.env };
    process.env.DATANODE_EXPORTER_WEB_LISTEN_ADDRESS = `127.0.0.1:${closed}`;
    try {
      // The flag over the file's address (the file's own port is closed).
      expect(await main(['healthcheck', `--pid=${started([`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`])}`])).toBe(0);
      expect(await main(['healthcheck', `--pid=${started([`--config.file=${file}`])}`])).toBe(1);
      // Its environment over the file; the installation default below the file.
      expect(await main(['healthcheck', `--pid=${started([`--config.file=${file}`], { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS: `127.0.0.1:${port}` })}`])).toBe(0);
      expect(await main(['healthcheck', `--pid=${started([], { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT: `127.0.0.1:${port}` })}`])).toBe(0);
      expect(
        await main(['healthcheck', `--pid=${started([`--config.file=${file}`], { DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT: `127.0.0.1:${port}` })}`]),
      ).toBe(1);
      // No such process, or other flags beside it: unhealthy, not a crash.
      expect(await main(['healthcheck', '--pid=999999999'])).toBe(1);
      expect(await main(['healthcheck', `--pid=${process.pid}`, `--web.listen-address=127.0.0.1:${port}`])).toBe(1);
    } finally {
      process.env = saved;
    }
  });

  it('uses https when the web config has TLS (self-signed accepted); plain http to it fails', async () => {
    const { port, webFile } = await serve(tls());
    expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${webFile}`])).toBe(0);
    expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${port}`])).toBe(1);
  });

  it('with a health listener, probes it in plain HTTP, whatever the main port asks (TLS, client certificates, basic auth)', async () => {
    const hash = bcrypt.hashSync('pw', 4);
    const web =
      tls(`  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${certs.path('ca.crt')}\n`) +
      `basic_auth_users:\n  p: ${hash}\nunauthenticated_paths: []\n`;
    const { port, webFile, healthPort } = await serve(web, true);
    const flags = [`--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${webFile}`];
    expect(await main(['healthcheck', ...flags, `--web.health-listen-address=127.0.0.1:${healthPort}`])).toBe(0);
    expect(await main(['healthcheck', ...flags, `--web.health-listen-address=127.0.0.1:${await closedPort()}`])).toBe(1);
    const r = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect([200, 503]).toContain(r.status);
    expect((await fetch(`http://127.0.0.1:${healthPort}/metrics`)).status).toBe(404);
  });

  it('with client certificates required, offers the server pair (issued by the client CA here)', async () => {
    for (const mode of ['RequireAnyClientCert', 'RequireAndVerifyClientCert']) {
      const { port, webFile } = await serve(tls(`  client_auth_type: ${mode}\n  client_ca_file: ${certs.path('ca.crt')}\n`));
      expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${webFile}`]), mode).toBe(0);
    }
  });

  it('/healthz behind basic auth (unauthenticated_paths emptied) is a failure: no credentials are sent', async () => {
    const hash = bcrypt.hashSync('pw', 4);
    const { port, webFile } = await serve(`basic_auth_users:\n  p: ${hash}\nunauthenticated_paths: []\n`);
    expect(await main(['healthcheck', `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${webFile}`])).toBe(1);
  });

  it('--help describes it and probes nothing', async () => {
    const writes: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = (c: string) => (writes.push(String(c)), true);
    try {
      expect(await main(['healthcheck', '--help'])).toBe(0);
    } finally {
      process.stdout.write = orig;
    }
    expect(writes.join('')).toMatch(/^Usage: datanode-exporter healthcheck/);
  });

  it("a bad configuration is unhealthy (1, not the daemon's 2: Docker reserves 2)", async () => {
    expect(await main(['healthcheck', '--web.listen-address=nope'])).toBe(1);
    expect(await main(['healthcheck', '--no-such-flag'])).toBe(1);
  });
});
