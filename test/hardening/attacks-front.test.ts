/**
 * The HTTP front and discovery under attack, against the exporter as a real process started with
 * the shipped launch settings and default configuration: resident memory stays under the chart's
 * memory limit and /healthz answers within its liveness timeout throughout (helpers/pod.ts).
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { hostileNode, json, statisticsBody, STATISTICS_HEADERS } from '../helpers/hostile.js';
import { CHART_MEMORY_LIMIT_MIB, LIVENESS_TIMEOUT_MS, watch } from '../helpers/pod.js';
import { removeDist, spawnExporter, type ExporterProcess } from '../helpers/process.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

async function exporterWithNode(config: object = {}): Promise<ExporterProcess> {
  const node = await hostileNode({ '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS) });
  cleanup.push(node.close);
  const p = await spawnExporter({ targets: [{ name: 'n', url: node.url }], ...config });
  cleanup.push(p.stop);
  await new Promise((r) => setTimeout(r, 1_500)); // start-up and first polls
  return p;
}

/** `connections` sockets, each writing `requests` pipelined GETs of `path` at once; read and discarded, or never read. */
async function pipeline(
  url: string,
  o: { connections: number; requests: number; path: string; read: boolean },
): Promise<{ sockets: net.Socket[]; bytes: number }> {
  const { port } = new URL(url);
  const payload = Buffer.from(`GET ${o.path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(o.requests));
  const sockets = await Promise.all(
    Array.from(
      { length: o.connections },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(Number(port), '127.0.0.1', () => resolve(s));
          s.on('error', () => {});
          if (o.read) s.resume();
          else s.pause();
        }),
    ),
  );
  for (const s of sockets) s.write(payload);
  return { sockets, bytes: payload.length * o.connections };
}

describe.skipIf(process.platform !== 'linux')('pipelined requests (n02)', () => {
  for (const c of [
    { name: '40 connections × 2,000 pipelined GET /healthz, read', connections: 40, requests: 2000, path: '/healthz', read: true },
    { name: '250 connections × 200 pipelined GET /metrics, never read', connections: 250, requests: 200, path: '/metrics', read: false },
  ]) {
    it(`${c.name}: RSS under the chart's limit, /healthz within the liveness timeout, memory back once the client leaves`, async () => {
      const p = await exporterWithNode();
      const before = p.rssMiB();
      const w = watch(p);
      const { sockets, bytes } = await pipeline(p.url, c);
      cleanup.push(async () => sockets.forEach((s) => s.destroy()));
      await new Promise((r) => setTimeout(r, 8_000));
      const open = sockets.filter((s) => !s.destroyed).length;
      sockets.forEach((s) => s.destroy());
      const during = await w.stop();
      // The client has left: what it made the exporter hold is released within 5 s.
      const left = Date.now();
      let after = p.rssMiB();
      while (after >= before + 40 && Date.now() - left < 5_000) {
        await new Promise((r) => setTimeout(r, 250));
        after = p.rssMiB();
      }
      console.log(
        `n02 ${c.name}: ${(bytes / 1e6).toFixed(1)} MB sent; ${open} of ${c.connections} connections still open after 8 s; RSS ${before.toFixed(0)} MiB before, max ${during.rss.toFixed(0)} MiB, ${after.toFixed(0)} MiB ${((Date.now() - left) / 1000).toFixed(1)} s after the client left; /healthz max ${during.healthMs.toFixed(0)} ms over ${during.checks} checks`,
      );
      expect(p.child.exitCode).toBeNull();
      expect(during.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
      expect(during.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
      expect(after).toBeLessThan(before + 40);
    }, 60_000);
  }
});

describe.skipIf(process.platform !== 'linux')('discovery files listing too many targets (n06)', () => {
  for (const n of [2_000, 100_000]) {
    it(`${n.toLocaleString('en')} targets in one file: refused with one log line, the previous targets kept; RSS and /healthz within the chart's bounds`, async () => {
      const file = join(tmpdir(), `dne-disc-${process.pid}-${n}.json`);
      // Short entries: 100,000 of them (3.5 MB) stay under the 4 MiB file cap.
      const entry = (i: number) => ({ name: `d${i}`, url: `http://h${i}:9` });
      writeFileSync(file, JSON.stringify([entry(0), entry(1)]));
      const p = await exporterWithNode({ discovery: { files: [file], refresh_interval: '1s' } });
      // The landing page lists each target once in its targets table (and again per collector).
      const targets = async () => new Set((await (await fetch(`${p.url}/`)).text()).match(/<td>d\d+<\/td>/g)).size;
      expect(await targets()).toBe(2);
      const w = watch(p);
      const lines = p.output().split('\n').length;
      writeFileSync(file, JSON.stringify(Array.from({ length: n }, (_, i) => entry(i))));
      const logged = (): string[] =>
        p
          .output()
          .split('\n')
          .slice(lines - 1)
          .filter((l) => l.includes('discovery'));
      // The file has been read (its refusal logged), then two refresh intervals and more: read again unchanged.
      const written = Date.now();
      while (logged().length === 0 && Date.now() - written < 10_000) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 2_500));
      const m = await w.stop();
      console.log(
        `n06 ${n} targets: RSS max ${m.rss.toFixed(0)} MiB, /healthz max ${m.healthMs.toFixed(0)} ms over ${m.checks} checks; log: ${logged().join(' | ')}`,
      );
      expect(p.child.exitCode).toBeNull();
      expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
      expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
      expect(await targets()).toBe(2);
      expect(logged()).toHaveLength(1);
      expect(logged()[0]).toMatch(/DISCOVERY_TOO_MANY_TARGETS/);
    }, 90_000);
  }
});
