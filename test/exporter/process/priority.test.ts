import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { Lowered } from '../../../src/exporter/process/priority.js';

const entry = new URL('../../../src/exporter/process/priority.ts', import.meta.url).href;

/** Runs lowerThreadPriority twice in a worker thread, reports both results and stays alive until told. */
function inWorker(): Promise<{ results: (Lowered | undefined)[]; seenHere: number; worker: Worker }> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); }).then((p) => {
      const results = [p.lowerThreadPriority(), p.lowerThreadPriority()];
      parentPort.postMessage(results);
      parentPort.once('message', () => process.exit(0));
    });`;
  const worker = new Worker(code, { eval: true });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (results: (Lowered | undefined)[]) => {
      // Read while the thread still exists: the kernel's view, not the function's report.
      const seenHere = results[1] ? getPriority(results[1].tid) : NaN;
      resolve({ results, seenHere, worker });
    });
  });
}

describe('lowerThreadPriority', () => {
  it("lowers the calling thread's priority by ten steps, capped at 19, and leaves the main thread's alone", async () => {
    const base = getPriority(process.pid);
    const { results, seenHere, worker } = await inWorker();
    worker.postMessage('done');
    const [first, second] = results;
    expect(first).toBeDefined();
    expect(first!.tid).not.toBe(process.pid);
    expect(first!.from).toBe(base);
    expect(first!.to).toBe(Math.min(19, base + 10));
    expect(second).toEqual({ tid: first!.tid, from: first!.to, to: Math.min(19, base + 20) });
    expect(seenHere).toBe(Math.min(19, base + 20));
    expect(getPriority(process.pid)).toBe(base);
  });
});
