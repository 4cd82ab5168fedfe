/** Child processes for benchmarks: spawn, wait until an HTTP check passes, always clean up. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

const children = new Set<ChildProcess>();
for (const sig of ['exit', 'SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const c of children) c.kill('SIGKILL');
    if (sig !== 'exit') process.exit(130);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  stop: () => Promise<void>;
  output: () => string;
}

export function start(cmd: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  return {
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }).then(() => void children.delete(child)),
  };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, proc?: Proc): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${proc ? `\n${proc.output()}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
