/**
 * The exporter as a real process, started as the bin starts it (the launch settings of its
 * shebang), so that its resident memory can be measured on its own.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { inject } from 'vitest';
import './build-once.js'; // the type of inject('builtDist')
import { launchSettings } from './launch.js';

const { env: LAUNCH_ENV, flags: NODE_FLAGS } = launchSettings();

export interface ExporterProcess {
  child: ChildProcess;
  url: string;
  /** Where the chart's and the image's liveness check asks: the health listener (the main port when there is none). */
  healthUrl: string;
  output: () => string;
  /** Resident memory now, in MiB (VmRSS). */
  rssMiB: () => number;
  stop: () => Promise<number | null>;
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

let built: Promise<string> | undefined;

/**
 * The exporter compiled as `npm run build` compiles it: memory is measured on what ships, not on
 * tsx, whose transpiler adds some 30 MiB to a process. The attack tests' run builds it once
 * (helpers/build-once.ts); CI builds it once for every suite (DNE_BUILT_DIST); elsewhere it is
 * built into .tmp/ once per test file.
 */
export function buildDist(): Promise<string> {
  const shared = inject('builtDist') || process.env.DNE_BUILT_DIST;
  if (shared) return Promise.resolve(shared);
  built ??= (async () => {
    const out = `.tmp/dist-test-${process.pid}`;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out, '--sourceMap', 'false']);
    return out;
  })();
  return built;
}

/** Remove what buildDist built for this file (a build shared by the run is removed by its setup). */
export async function removeDist(): Promise<void> {
  if (built) rmSync(await built, { recursive: true, force: true });
  built = undefined;
}

export async function spawnExporter(config: object, args: string[] = []): Promise<ExporterProcess> {
  const dist = await buildDist();
  const dir = mkdtempSync(join(tmpdir(), 'dne-proc-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, stringify({ web: { listen_address: '127.0.0.1:0' }, ...config }));
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, ...(process.env.DNE_NODE_FLAGS ? process.env.DNE_NODE_FLAGS.split(' ') : []), `${dist}/exporter/cli.js`, '--config.file', file, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // The health listener as the image (this variable) and the chart (its flag) open it.
      env: { ...process.env, ...LAUNCH_ENV, DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS: '127.0.0.1:0' },
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = / url=(https?:\/\/\S+)\/metrics /.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]!);
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`exporter exited: ${out}`));
      }
    }, 20);
  });
  const health = / health=(http:\/\/\S+)\/healthz(?=\s|$)/m.exec(out)?.[1];
  return {
    child,
    url,
    healthUrl: health ?? url,
    output: () => out,
    rssMiB: () => rssMiB(child.pid!),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** Read a response body up to `cap` bytes; its size, or Infinity beyond the cap. */
export async function bodySize(url: string, cap: number): Promise<number> {
  const ctl = new AbortController();
  const res = await fetch(url, { signal: ctl.signal });
  let n = 0;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n;
    n += value.length;
    if (n > cap) {
      await reader.cancel().catch(() => {});
      ctl.abort();
      return Infinity;
    }
  }
}
