/**
 * The container image, built from the real Dockerfile and run (`npm run test:image`): a local
 * stand-in for the Node base image (scripts/image/build-base.sh, no container registry here), the
 * build, then one container, read-only and non-root, against a simulated data node. Needs root,
 * debootstrap and docker.io (.ci/run installs them); without them this test fails, not skips.
 *
 * The build is the README's (Install) command line, read from the README so they cannot drift,
 * run by bash with Debian's docker client; the test changes only the tag (its own, to remove it
 * afterwards) and adds the two flags the README names for this machine: the CA bundle as a build
 * secret (TLS-intercepting proxy) and --network host (the private dockerd has no bridge).
 *
 * --network host: the simulator listens on the host's 127.0.0.1, which a bridged container cannot
 * reach; host networking also needs no NAT rules from a private dockerd, and the exporter binds
 * 127.0.0.1 only, so nothing is published beyond loopback.
 */
import { launchSettings } from '../helpers/launch.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { DOCKER, engine, run, type Engine } from './docker.js';

const TAG = `datanode-exporter:image-test-${process.pid}`;
const NAME = `dne-image-test-${process.pid}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const freePort = (): Promise<number> =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
const seconds = (t0: number): string => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

const PKG = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string; license: string; devDependencies: Record<string, string> };
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

/** The README's commands in its Install section's sh blocks (comments dropped). */
function installCommands(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const at = readme.indexOf('\n## Install\n');
  const section = readme.slice(at, readme.indexOf('\n## ', at + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** The .js files `npm run build` should ship: the exporter's and the shared modules, nothing else. */
function expectedDist(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  return [...walk('src/exporter'), ...walk('src/shared')]
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `dist/${relative('src', f).replace(/\.ts$/, '.js')}`)
    .concat('dist/exporter/build-info.json')
    .sort();
}

let eng: Engine;
let sim: Simulator;

beforeAll(async () => {
  eng = await engine();
  sim = await startSimulator({ host: '127.0.0.1', port: 0, seed: 11 });
}, 120_000);

afterAll(async () => {
  await eng?.docker('rm', '-f', NAME);
  if (eng && !eng.own) await eng.docker('rmi', TAG);
  await sim?.close();
  await eng?.stop();
}, 120_000);

describe('image', () => {
  it('the base stand-in is built (or taken from the cache) and imported as the Dockerfile names it', async () => {
    const t0 = Date.now();
    const r = await run('bash', ['scripts/image/build-base.sh'], { ...eng.env, DOCKER });
    expect(r.code, r.err + r.out).toBe(0);
    console.log(
      `base image: ${seconds(t0)} (${/already present/.test(r.out) ? 'present in the engine' : /using cached/.test(r.out) ? 'cached rootfs' : 'cold'})`,
    );
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync('Dockerfile', 'utf8'))![1]!;
    const uid = await eng.docker(
      'run',
      '--rm',
      '--network',
      'none',
      '--user',
      'node',
      base,
      'sh',
      '-c',
      'id -u; node --version; npm --version; test -s /etc/ssl/certs/ca-certificates.crt && echo ca',
    );
    expect(uid.code, uid.err).toBe(0);
    const [id, node, , ca] = uid.out.trim().split('\n');
    expect(id).toBe('1000');
    expect(node).toMatch(new RegExp(`^v${/^node:(\d+)/.exec(base)![1]}\\.`));
    expect(ca).toBe('ca');
  }, 900_000);

  it("builds with the README's command: OCI labels, the revision built, the CA bundle only as a build secret", async () => {
    const commands = installCommands();
    expect(commands).toContain('bash scripts/image/build-base.sh'); // the base step above runs it
    const readmeBuild = commands.filter((c) => /\bdocker build\b/.test(c));
    expect(readmeBuild).toHaveLength(1);
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const extra = ['--network host', ...(ca && existsSync(ca) ? [`--secret id=ca,src=${ca}`] : [])].join(' ');
    const build = readmeBuild[0]!.replace(/^(DOCKER_BUILDKIT=1 docker build) /, `$1 ${extra} `).replace(/ -t \S+ /, ` -t ${TAG} `);
    expect(build).toContain(` -t ${TAG} `);
    expect(build).toContain(extra);
    // `docker` is Debian's client (20.10), which has BuildKit built in, as the README says.
    const bin = mkdtempSync(join(tmpdir(), 'dne-docker-bin-'));
    symlinkSync(DOCKER, join(bin, 'docker'));
    const t0 = Date.now();
    try {
      const r = await run('bash', ['-c', build], { ...eng.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
      expect(r.code, `${build}\n${(r.err + r.out).slice(-4000)}`).toBe(0);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
    console.log(`image build: ${seconds(t0)}`);
    const cfg = JSON.parse((await eng.docker('image', 'inspect', '--format', '{{json .Config}}', TAG)).out) as {
      User: string;
      Env: string[];
      Healthcheck: { Test: string[] };
      Labels: Record<string, string>;
    };
    expect(cfg.User).toBe('node');
    expect(cfg.Env.join('\n')).not.toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(cfg.Healthcheck.Test).toEqual(['CMD', 'node', 'dist/exporter/cli.js', 'healthcheck', '--pid=1']);
    // A default below the config file, never a setting above it.
    expect(cfg.Env.filter((e) => e.startsWith('DATANODE_EXPORTER_'))).toEqual([
      'DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT=:19308',
      'DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS_DEFAULT=:19309',
    ]);
    expect(cfg.Labels).toMatchObject({
      'org.opencontainers.image.title': PKG.name,
      'org.opencontainers.image.version': PKG.version,
      'org.opencontainers.image.revision': HEAD,
      'org.opencontainers.image.licenses': PKG.license,
      'org.opencontainers.image.source': '',
    });
    const inside = async (script: string): Promise<string[]> => {
      const r = await eng.docker('run', '--rm', '--network', 'none', '--entrypoint', 'sh', TAG, '-c', script);
      expect(r.code, r.err).toBe(0);
      return r.out.trim().split('\n').filter(Boolean).sort();
    };
    expect(await inside('ls /run/secrets 2>/dev/null; ls /app')).toEqual(['LICENSE', 'dist', 'docs', 'node_modules', 'package.json']);
    expect(await inside('ls /app/docs')).toEqual(['runbook.md']); // served as /runbook
    // The exporter only: no simulator, demo, source maps or tests.
    expect(await inside('cd /app && find dist -type f')).toEqual(expectedDist());
    // Production dependencies only.
    const dev = Object.keys(PKG.devDependencies);
    expect(await inside(`cd /app/node_modules && for d in ${dev.join(' ')}; do [ -e "$d" ] && echo "$d"; done; true`)).toEqual([]);
    const size = async (image: string): Promise<number> => Number((await eng.docker('image', 'inspect', '--format', '{{.Size}}', image)).out);
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync('Dockerfile', 'utf8'))![1]!;
    const total = await size(TAG);
    const own = total - (await size(base));
    console.log(`image size: ${(total / 1e6).toFixed(0)} MB, of which the exporter's layers ${(own / 1e6).toFixed(1)} MB`);
    // The exporter's production dependencies and dist/ are some 16 MB; dev dependencies would add 100.
    expect(own).toBeLessThan(40e6);
  }, 900_000);

  it('runs read-only as uid 1000, serves /metrics, turns healthy, writes nothing, and stops on SIGTERM with 0 within 2 s', async () => {
    const port = await freePort();
    const healthPort = await freePort();
    const t0 = Date.now();
    const started = await eng.docker(
      'run',
      '-d',
      '--name',
      NAME,
      '--network',
      'host',
      '--read-only',
      // A non-default address: the health check must follow it (the old one was fixed on :19308).
      '-e',
      `DATANODE_EXPORTER_WEB_LISTEN_ADDRESS=127.0.0.1:${port}`,
      // And the health listener's: the image's own (:19309) is a fixed port on a shared host network.
      '-e',
      `DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS=127.0.0.1:${healthPort}`,
      '--health-interval=1s',
      '--health-timeout=3s',
      '--health-start-period=1s',
      '--health-retries=3',
      TAG,
      `--datanode.url=${sim.url}`,
    );
    expect(started.code, started.err).toBe(0);

    let metrics = '';
    for (let i = 0; i < 120 && !/^vega_up\{[^}]*\} 1$/m.test(metrics); i++) {
      await sleep(250);
      metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
    }
    expect(metrics).toMatch(/^vega_up\{[^}]*\} 1$/m);
    // The revision passed as a build argument, as --version and build_info report it.
    expect(metrics).toMatch(new RegExp(`^datanode_exporter_build_info\\{[^}]*revision="${HEAD}"[^}]*\\} 1$`, 'm'));
    // Every alert's runbook_url: the runbook of this version, one anchor per alert.
    const runbook = await fetch(`http://127.0.0.1:${port}/runbook`).then((r) => r.text());
    expect(runbook).toContain(`version ${PKG.version}`);
    expect(runbook).toContain('<h2 id="datanodeexporterdown">DatanodeExporterDown</h2>');

    let health = '';
    for (let i = 0; i < 60 && health !== 'healthy'; i++) {
      health = (await eng.docker('inspect', '--format', '{{.State.Health.Status}}', NAME)).out.trim();
      if (health !== 'healthy') await sleep(500);
    }
    expect(health).toBe('healthy');
    console.log(`container up, serving and healthy: ${seconds(t0)}`);

    const state = JSON.parse((await eng.docker('inspect', '--format', '{{json .}}', NAME)).out) as {
      HostConfig: { ReadonlyRootfs: boolean };
      State: { Pid: number };
    };
    expect(state.HostConfig.ReadonlyRootfs).toBe(true);
    const pid1 = await eng.docker('exec', NAME, 'sh', '-c', 'grep ^Uid: /proc/1/status; tr "\\0" " " </proc/1/cmdline');
    expect(pid1.out).toMatch(/^Uid:\s+1000\s+1000/m);
    expect(pid1.out).toContain(`\nnode ${launchSettings().flags.join(' ')} /app/dist/exporter/cli.js`); // the shebang's env execs node
    expect((await eng.docker('diff', NAME)).out).toBe('');

    const t1 = Date.now();
    const stopped = await eng.docker('stop', '-t', '2', NAME);
    const took = Date.now() - t1;
    expect(stopped.code, stopped.err).toBe(0);
    const exit = (await eng.docker('inspect', '--format', '{{.State.ExitCode}} {{.State.OOMKilled}}', NAME)).out.trim();
    expect(exit).toBe('0 false');
    expect(took).toBeLessThan(2_000);
    console.log(`docker stop: ${took} ms`);
    expect((await eng.docker('logs', NAME)).out).toMatch(/ level=info msg=stopping app=datanode-exporter signal=SIGTERM\n/);
    expect((await eng.docker('diff', NAME)).out).toBe('');
  }, 120_000);

  it("honours a mounted config's listen addresses, and the health check follows the address the health listener listens on (flag over file)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dne-image-config-'));
    const filePort = await freePort();
    const fileHealthPort = await freePort();
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      `targets: [{name: sim, url: "${sim.url}"}]\nweb: {listen_address: "127.0.0.1:${filePort}", health_listen_address: "127.0.0.1:${fileHealthPort}"}\n`,
      { mode: 0o644 },
    );
    const name = `${NAME}-cfg`;
    const health = async (): Promise<string> => {
      let h = '';
      for (let i = 0; i < 60 && h !== 'healthy'; i++) {
        h = (await eng.docker('inspect', '--format', '{{.State.Health.Status}}', name)).out.trim();
        if (h !== 'healthy') await sleep(500);
      }
      return h;
    };
    const answers = async (port: number): Promise<boolean> => {
      for (let i = 0; i < 120; i++) {
        if (
          await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          return true;
        await sleep(250);
      }
      return false;
    };
    const start = (...args: string[]) =>
      eng.docker(
        'run',
        '-d',
        '--name',
        name,
        '--network',
        'host',
        '--read-only',
        '-v',
        `${file}:/etc/dne/config.yaml:ro`,
        '--health-interval=1s',
        '--health-timeout=3s',
        '--health-start-period=1s',
        '--health-retries=3',
        TAG,
        '--config.file=/etc/dne/config.yaml',
        ...args,
      );
    // A decoy on the config file's health port, for the second container: host networking, as in the field.
    let decoyHits = 0;
    const decoy = createHttpServer((_req, res) => {
      decoyHits++;
      res.end('ok\n');
    });
    try {
      // 1: the file's addresses, with nothing else given: no image default hides them.
      const one = await start();
      expect(one.code, one.err).toBe(0);
      expect(await answers(filePort), `the exporter listens on the file's 127.0.0.1:${filePort}`).toBe(true);
      expect(await answers(fileHealthPort), `the health listener listens on the file's 127.0.0.1:${fileHealthPort}`).toBe(true);
      expect(await health()).toBe('healthy');
      await eng.docker('rm', '-f', name);
      // 2: flags over the file; the decoy answers 200 on the file's health port, so a check that probed there would pass.
      await new Promise<void>((r) => decoy.listen(fileHealthPort, '127.0.0.1', () => r()));
      const flagPort = await freePort();
      const flagHealthPort = await freePort();
      const two = await start(`--web.listen-address=127.0.0.1:${flagPort}`, `--web.health-listen-address=127.0.0.1:${flagHealthPort}`);
      expect(two.code, two.err).toBe(0);
      expect(await answers(flagPort)).toBe(true);
      expect(await answers(flagHealthPort)).toBe(true);
      expect(await health()).toBe('healthy');
      expect(decoyHits, "the health check probed the config file's health port, not the one the exporter listens on").toBe(0);
    } finally {
      await eng.docker('rm', '-f', name);
      decoy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
