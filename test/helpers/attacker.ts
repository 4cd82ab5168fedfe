/**
 * A hostile client in a process of its own (its work must not queue on the thread that measures),
 * against 127.0.0.1:<port> until killed. Started by startAttacker; one JSON argument:
 *  - `silent`: opens new connections as fast as it can, `parallel` connecting at once, and sends
 *    nothing on them (over TLS too: a handshake never begun); it holds up to `hold` of them.
 *  - `unread`: `connections` connections, each sending one `GET <path>` and never reading the
 *    answer; one the server closes is replaced at once.
 * Prints what it did as one JSON line when a line arrives on its stdin, and exits.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';

export type AttackOptions =
  { mode: 'silent'; port: number; parallel: number; hold: number } | { mode: 'unread'; port: number; connections: number; path: string };

export interface AttackReport {
  opened: number;
  closedByServer: number;
}

function run(o: AttackOptions): void {
  const report: AttackReport = { opened: 0, closedByServer: 0 };
  const held: net.Socket[] = [];
  const open = (onOpen: (s: net.Socket) => void, again: () => void): void => {
    const s = net.connect(o.port, '127.0.0.1');
    let connected = false;
    s.on('error', () => {});
    s.once('connect', () => {
      connected = true;
      report.opened++;
      onOpen(s);
    });
    s.once('close', () => {
      if (connected) report.closedByServer++;
      const i = held.indexOf(s);
      if (i >= 0) held.splice(i, 1);
      again();
    });
  };
  if (o.mode === 'silent') {
    const next = (): void =>
      open(
        (s) => {
          held.push(s);
          if (held.length > o.hold) held.shift()!.destroy();
          next();
        },
        () => {},
      );
    for (let i = 0; i < o.parallel; i++) next();
  } else {
    const next = (): void =>
      open(
        (s) => {
          s.pause();
          held.push(s);
          s.write(`GET ${o.path} HTTP/1.1\r\nHost: x\r\n\r\n`);
        },
        () => setImmediate(next),
      );
    for (let i = 0; i < o.connections; i++) next();
  }
  // Told to stop on stdin (a signal would race with tsx's own handlers); ends with its parent too.
  process.stdin.on('data', () => process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0)));
  process.stdin.on('end', () => process.exit(0));
}

/** The attacker as a child process; stop() ends it and returns its report. */
export function startAttacker(o: AttackOptions): { stop: () => Promise<AttackReport> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/attacker.ts', JSON.stringify(o)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    stop: async () => {
      if (child.exitCode === null) child.stdin.write('stop\n');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
      return (JSON.parse(out.trim().split('\n').pop() || 'null') as AttackReport | null) ?? { opened: 0, closedByServer: 0 };
    },
  };
}

if (process.argv[1]?.endsWith('attacker.ts') && process.argv[2]) run(JSON.parse(process.argv[2]) as AttackOptions);
