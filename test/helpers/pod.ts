/** The bounds the Helm chart sets for the exporter's pod, and a watch of a running exporter against them. */
import { readFileSync } from 'node:fs';
import type { ExporterProcess } from './process.js';

const values = readFileSync('helm/datanode-exporter/values.yaml', 'utf8');
export const CHART_MEMORY_LIMIT_MIB = Number(/^ {4}memory: (\d+)Mi$/m.exec(values.split('limits:')[1]!)![1]);
/** The chart's liveness probe timeout on `/healthz`. */
export const LIVENESS_TIMEOUT_MS = 3_000;

/** The largest RSS (every 50 ms) and slowest `/healthz` (one at a time, 100 ms apart), until stopped. */
export function watchPod(p: ExporterProcess): { rss: () => number; healthz: () => number; stop: () => void } {
  let rss = 0;
  let healthz = 0;
  let on = true;
  const t = setInterval(() => {
    try {
      rss = Math.max(rss, p.rssMiB());
    } catch {
      /* exited */
    }
  }, 50);
  void (async () => {
    while (on) {
      const start = performance.now();
      await fetch(`${p.url}/healthz`, { signal: AbortSignal.timeout(30_000) })
        .then((r) => r.text())
        .catch(() => {});
      healthz = Math.max(healthz, performance.now() - start);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { rss: () => rss, healthz: () => healthz, stop: () => ((on = false), clearInterval(t)) };
}
