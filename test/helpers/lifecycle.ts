/** Servers a test starts are stopped after it, whatever happened: one place for that bookkeeping. */
import { afterEach } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '@datanode-exporter/simulator/server';
import { startExporter, type RunningExporter } from './exporter.js';

export function lifecycle(): {
  defer: (fn: () => Promise<void>) => void;
  sim: (opts?: SimulatorOptions) => Promise<Simulator>;
  exporter: (...args: Parameters<typeof startExporter>) => Promise<RunningExporter>;
} {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!().catch(() => {});
  });
  return {
    defer: (fn) => void cleanup.push(fn),
    sim: async (opts = {}) => {
      const s = await startSimulator(opts);
      cleanup.push(() => s.close());
      return s;
    },
    exporter: async (...args) => {
      const e = await startExporter(...args);
      cleanup.push(() => e.stop());
      return e;
    },
  };
}
