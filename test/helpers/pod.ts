/**
 * The bounds a pod of the Helm chart lives within, read from the chart's values (its memory limit,
 * its liveness probe's timeout), and a watch of an exporter process against them: resident memory
 * every 50 ms, and GET /healthz on a fresh connection (as the kubelet sends it) every 100 ms, where
 * the chart's probe asks: the health listener.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const VALUES = readFileSync('helm/datanode-exporter/values.yaml', 'utf8');
export const CHART_MEMORY_LIMIT_MIB = Number(/^ {4}memory: (\d+)Mi$/m.exec(VALUES.split('limits:')[1]!)![1]);
export const LIVENESS_TIMEOUT_MS = 1000 * Number(/^ {2}timeoutSeconds: (\d+)$/m.exec(VALUES.split('livenessProbe:')[1]!)![1]);

/** GET /healthz on a fresh connection; its time, or Infinity past `timeoutMs` or on any other answer. */
export function healthz(url: string, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    // Over TLS (a main port with a web config), our own self-signed certificate on loopback.
    const get = url.startsWith('https:')
      ? (u: string, o: https.RequestOptions, cb: (res: http.IncomingMessage) => void) => https.get(u, { ...o, rejectUnauthorized: false }, cb)
      : http.get;
    const req = get(`${url}/healthz`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - t0 : Infinity));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(Infinity));
  });
}

export interface Watched {
  /** Highest resident memory seen, MiB (Infinity once the process is gone). */
  rss: number;
  /** Slowest /healthz, ms (Infinity: unanswered within the liveness timeout + 1 s). */
  healthMs: number;
  checks: number;
}

/** RSS and /healthz sampled until stopped: their maxima. */
export function watch(p: { rssMiB: () => number; url: string; healthUrl?: string }): { current: Readonly<Watched>; stop: () => Promise<Watched> } {
  const w: Watched = { rss: 0, healthMs: 0, checks: 0 };
  let running = true;
  const t = setInterval(() => {
    try {
      w.rss = Math.max(w.rss, p.rssMiB());
    } catch {
      w.rss = Infinity;
    }
  }, 50);
  const loop = (async () => {
    while (running) {
      w.healthMs = Math.max(w.healthMs, await healthz(p.healthUrl ?? p.url, LIVENESS_TIMEOUT_MS + 1000));
      w.checks++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    current: w,
    stop: async () => {
      running = false;
      clearInterval(t);
      await loop;
      return w;
    },
  };
}

/** watch(), read while it runs. */
export function watchPod(p: { rssMiB: () => number; url: string; healthUrl?: string }): {
  rss: () => number;
  healthz: () => number;
  stop: () => Promise<Watched>;
} {
  const w = watch(p);
  return { rss: () => w.current.rss, healthz: () => w.current.healthMs, stop: w.stop };
}
