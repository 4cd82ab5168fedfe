/**
 * Hostile clients in a thread of their own (their work must not queue on the thread that
 * measures): `connections` loops, each sending its next request as soon as the last is answered,
 * until stopped. `{n}` in the path becomes a value never sent before (a fresh URL each time).
 * With `spreadSources`, each loop connects from its own loopback source address (127.0.0.2 …) on a
 * fresh connection per request; otherwise each keeps one connection alive.
 */
import { Worker } from 'node:worker_threads';

export interface FloodOptions {
  port: number;
  connections: number;
  path: string;
  headers?: Record<string, string>;
  spreadSources?: boolean;
}

export interface FloodReport {
  sent: number;
  byStatus: Record<string, number>;
}

const SOURCE = `
const { parentPort, workerData: o } = require('node:worker_threads');
const http = require('node:http');
let stop = false, sent = 0;
const byStatus = {};
parentPort.on('message', () => { stop = true; });
for (let i = 0; i < o.connections; i++) {
  const agent = o.spreadSources ? false : new http.Agent({ keepAlive: true, maxSockets: 1 });
  const localAddress = o.spreadSources ? '127.0.0.' + (2 + (i % 250)) : undefined;
  let k = 0;
  const loop = () => {
    if (stop) return agent && agent.destroy();
    const path = o.path.replace('{n}', i + '-' + (k++));
    const req = http.get({ host: '127.0.0.1', port: o.port, path, agent, localAddress, headers: o.headers || {} }, (res) => {
      byStatus[res.statusCode] = (byStatus[res.statusCode] || 0) + 1;
      res.resume();
      res.on('end', loop);
    });
    sent++;
    req.on('error', () => setTimeout(loop, 10));
  };
  loop();
}
const report = setInterval(() => { if (stop) { clearInterval(report); parentPort.postMessage({ sent, byStatus }); } }, 20);
`;

export function startFlood(o: FloodOptions): { stop: () => Promise<FloodReport>; terminate: () => Promise<void> } {
  const w = new Worker(SOURCE, { eval: true, workerData: o });
  return {
    stop: () => {
      const report = new Promise<FloodReport>((r) => w.once('message', r));
      w.postMessage('stop');
      return report;
    },
    terminate: () => w.terminate().then(() => {}),
  };
}
