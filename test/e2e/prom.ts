/** What the end-to-end tests share: free loopback ports, a process started or not, readiness, rules made fast. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

export const freePort = (): Promise<number> =>
  new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function started(p: ChildProcess, what: string): Promise<void> {
  const err = await new Promise<Error | undefined>((res) => {
    p.once('error', res);
    p.once('spawn', () => res(undefined));
  });
  if (err) throw new Error(`${what}: ${err.message}`);
}

/** Until `url` answers /-/ready; fails at once, with its log, when the process serving it has ended. */
export async function ready(url: string, what: string, log: () => string, proc: ChildProcess): Promise<void> {
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok) return;
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`${what} ended (${proc.exitCode ?? proc.signalCode}) before it was ready:\n${log()}`);
    if (i > 300) throw new Error(`${what} did not become ready:\n${log()}`);
    await sleep(100);
  }
}

/** Debian's Prometheus on a free loopback port, its data and `prometheus.yml` (the given text) in `dir`, ready. */
export async function startPrometheus(dir: string, config: string): Promise<{ url: string; proc: ChildProcess }> {
  const promPort = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const proc = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  await started(proc, 'the prometheus binary is required (apt-get install prometheus)');
  const url = `http://127.0.0.1:${promPort}`;
  try {
    await ready(url, 'prometheus', () => log, proc);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return { url, proc };
}

/** `for` divided by 60 (minutes become seconds), so the shipped order in which alerts fire holds. */
export function fastRules(text: string): string {
  const doc = parseYaml(text) as { groups: { rules: { for?: string }[] }[] };
  for (const r of doc.groups.flatMap((g) => g.rules)) {
    if (!r.for) continue;
    const m = /^(\d+)([smh])$/.exec(r.for);
    if (!m) throw new Error(`unexpected for: ${r.for}`);
    r.for = `${Math.max(1, Math.round((Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h']) / 60))}s`;
  }
  return stringifyYaml(doc);
}

export type Sample = { metric: Record<string, string>; value: [number, string] };

export async function query(prom: string, expr: string): Promise<Sample[]> {
  const r = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as { status: string; error?: string; data: { result: Sample[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

export async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(250)) {
    const v = await f();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}
