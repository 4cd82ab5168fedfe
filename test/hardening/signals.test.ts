/**
 * Signals reach the real process from its first moment: SIGHUP while starting does not kill it (its
 * default action is exit 129), and SIGTERM at any moment exits 0. The process runs under tsx, so
 * "our handlers are in place" is read from /proc/<pid>/status (SigCgt), not guessed from a delay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(): { child: ChildProcess; out: () => string; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/exporter/cli.ts', '--datanode.url', 'http://127.0.0.1:1', '--web.listen-address', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return { child, out: () => out, exited };
}

/** Whether the process catches signal `n` (SigCgt in /proc). */
function catches(pid: number, n: number): boolean {
  try {
    const m = /SigCgt:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m !== null && ((BigInt(`0x${m[1]}`) >> BigInt(n - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

/** Until `cond` holds (an event, polled); the timeout, at least 25 s, only stops a hang. */
async function until(cond: () => boolean, timeoutMs: number, stepMs = 2): Promise<void> {
  const end = Date.now() + Math.max(timeoutMs, 25_000);
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

const SIGHUP = 1;

describe.skipIf(process.platform !== 'linux')('signals from the first moment', () => {
  it('SIGHUP is handled before the configuration is loaded; one sent while starting does not kill the process', async () => {
    const p = start();
    await until(() => catches(p.child.pid!, SIGHUP), 10_000);
    // Today the handler is registered only once the server listens: too late for an early SIGHUP.
    expect(p.out()).not.toContain('serving metrics');
    p.child.kill('SIGHUP');
    await until(() => p.out().includes('serving metrics'), 10_000, 20);
    // Our view of its output lags the process: the signal may have landed just before or just after
    // start-up finished. Either way it is one reload, and the process lives on.
    await until(() => /SIGHUP received while starting|configuration reloaded/.test(p.out()), 5_000, 20);
    expect(p.out()).not.toMatch(/reload failed/);
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM while starting exits 0', async () => {
    const p = start();
    await until(() => catches(p.child.pid!, SIGHUP), 10_000);
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });
});
