/**
 * A /probe flood against the exporter as a real process, started with the
 * shipped launch settings: 200 connections probing a new allowed URL each time, then one client
 * looping a configured target. Under the chart's limits (its memory limit, its liveness timeout)
 * the pod must not be restarted: resident memory stays under the limit and /healthz answers
 * within the liveness timeout throughout.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { hostileNode, json, statisticsBody, STATISTICS_HEADERS } from '../helpers/hostile.js';
import { startFlood, type FloodReport } from '../helpers/flood.js';
import { removeDist, spawnExporter } from '../helpers/process.js';
import { CHART_MEMORY_LIMIT_MIB, LIVENESS_TIMEOUT_MS, watch } from '../helpers/pod.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

/** `connections` loops on kept-alive connections probing a new URL each time, or a configured target. */
async function attack(o: { port: number; target: string; connections: number; fresh: boolean }, ms: number): Promise<FloodReport> {
  const path = o.fresh ? `/probe?target=${encodeURIComponent(`${o.target}/c`)}{n}%2F` : `/probe?target=${encodeURIComponent(o.target)}`;
  const flood = startFlood({ port: o.port, connections: o.connections, path });
  cleanup.push(flood.terminate);
  await new Promise((r) => setTimeout(r, ms));
  return flood.stop();
}

/** CPU time a process has used (user + system), in seconds: tells a starved exporter from a busy one. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

describe.skipIf(process.platform !== 'linux')('/probe flood', () => {
  it(`200 connections probing new URLs, then one client looping a configured target: RSS under the chart's limit, /healthz within the liveness timeout`, async () => {
    // A node a little slow to answer, so that probes pile up.
    const node = await hostileNode({ '/statistics': (_q, res) => void setTimeout(() => json(res, statisticsBody(), 200, STATISTICS_HEADERS), 300) });
    cleanup.push(node.close);
    const p = await spawnExporter({ targets: [{ name: 'n', url: node.url }], probe: { allowed_urls: [node.url] } });
    cleanup.push(p.stop);
    await new Promise((r) => setTimeout(r, 1_000)); // start-up and first polls
    const port = Number(new URL(p.url).port);
    const linesBefore = p.output().split('\n').length;

    const cpu0 = cpuSeconds(p.child.pid!);
    const w1 = watch(p);
    const urls = await attack({ port, target: node.url, connections: 200, fresh: true }, 15_000);
    const m1 = await w1.stop();
    const cpu = cpuSeconds(p.child.pid!) - cpu0;
    const lines = p.output().split('\n').length - linesBefore;
    const w2 = watch(p);
    const configured = await attack({ port, target: 'n', connections: 2, fresh: false }, 10_000);
    const m2 = await w2.stop();

    console.log(
      `probe flood: new URLs: ${urls.sent} probes ${JSON.stringify(urls.byStatus)}, RSS max ${m1.rss.toFixed(0)} MiB, /healthz max ${m1.healthMs.toFixed(0)} ms over ${m1.checks} checks, ${lines} log lines, exporter CPU ${cpu.toFixed(1)} s in 15 s; ` +
        `configured target: ${configured.sent} probes ${JSON.stringify(configured.byStatus)}, RSS max ${m2.rss.toFixed(0)} MiB, /healthz max ${m2.healthMs.toFixed(0)} ms over ${m2.checks} checks`,
    );
    expect(p.child.exitCode).toBeNull();
    for (const m of [m1, m2]) {
      expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
      expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
    }
    expect(lines).toBeLessThan(30); // not one per URL
    expect(urls.byStatus['200'] ?? 0).toBeGreaterThan(0);
    expect(configured.byStatus['200'] ?? 0).toBeGreaterThan(0);
  }, 90_000);
});
