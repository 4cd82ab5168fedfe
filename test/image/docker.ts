/**
 * A Docker engine for the image test: the one DOCKER_HOST (or the default socket) names when it
 * answers, else a private dockerd started here with its own data root, exec root, pid file and
 * socket under a temp dir, stopped and removed afterwards. The private one has no bridge and no
 * iptables rules (--bridge=none): the test runs containers with --network host only.
 *
 * Docker rather than Podman: Debian's docker.io (20.10) builds with BuildKit out of the box, which
 * the Dockerfile's `RUN --mount=type=secret` needs, uses a local image for FROM without asking a
 * registry, and runs HEALTHCHECK with --health-* overrides. Debian's Podman 4.3, tried here, drops
 * HEALTHCHECK from OCI-format builds, could not start the container (runc: rlimit not permitted)
 * and needs systemd timers for health checks; these machines have no systemd.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Run {
  code: number;
  out: string;
  err: string;
}

/**
 * The client: Debian's /usr/bin/docker builds with BuildKit without the buildx plugin; a newer
 * client without buildx would fall back to the legacy builder, which has no RUN --mount.
 */
export const DOCKER = process.env.DOCKER ?? (existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker');

/** Asynchronous on purpose: a simulator in this process must keep answering meanwhile. */
export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 900_000, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, out, errOut) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, out: String(out), err: String(errOut) || (err && code === -1 ? err.message : '') });
    });
  });
}

export interface Engine {
  env: NodeJS.ProcessEnv;
  docker: (...args: string[]) => Promise<Run>;
  /** True when this test started the daemon (and so will remove everything in it). */
  own: boolean;
  stop: () => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function engine(): Promise<Engine> {
  const dockerIn =
    (env: NodeJS.ProcessEnv) =>
    (...args: string[]) =>
      run(DOCKER, args, env);
  const existing = dockerIn(process.env);
  if ((await existing('version', '--format', '{{.Server.Version}}')).code === 0) {
    return { env: process.env, docker: existing, own: false, stop: async () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'dne-docker-'));
  const sock = join(dir, 'docker.sock');
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  const daemon: ChildProcess = spawn(
    'dockerd',
    [
      '--data-root',
      join(dir, 'data'),
      '--exec-root',
      join(dir, 'exec'),
      '--pidfile',
      join(dir, 'docker.pid'),
      '-H',
      `unix://${sock}`,
      '--bridge=none',
      '--iptables=false',
      '--ip6tables=false',
    ],
    { stdio: ['ignore', log, log] },
  );
  const exited = new Promise<void>((r) => daemon.once('exit', () => r()));
  const env = { ...process.env, DOCKER_HOST: `unix://${sock}` };
  const docker = dockerIn(env);
  const stop = async (): Promise<void> => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (daemon.exitCode === null && daemon.signalCode === null) {
        daemon.kill('SIGKILL');
        await exited;
      }
    }
    // dockerd leaves its exec root's network namespace mounted; unmount what is left, deepest first.
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1] ?? '')
      .filter((m) => m.startsWith(`${dir}/`));
    for (const m of mounts.sort().reverse()) await run('umount', [m]);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if ((await docker('version', '--format', '{{.Server.Version}}')).code === 0) break;
    if (i > 120 || daemon.exitCode !== null) {
      const tail = readFileSync(join(dir, 'dockerd.log'), 'utf8').split('\n').slice(-20).join('\n');
      await stop();
      throw new Error(`dockerd did not come up (is docker.io installed? .ci/run installs it):\n${tail}`);
    }
    await sleep(250);
  }
  return { env, docker, own: true, stop };
}
