/**
 * The liveness check against clients that flood the port: new connections as fast as one client
 * can open them, silent ones over TLS, and answers never read. Against the exporter as the chart
 * runs it (compiled, started as the bin starts it, every web setting shipped, the health listener
 * opened as the chart and the image open it): GET /healthz on a new connection, where the chart's
 * probe asks, answers within the probe's timeout every time; resident memory stays under the
 * chart's limit; the poll keeps serving; and a client that reads its answers is served meanwhile.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { startAttacker, type AttackOptions } from '../helpers/attacker.js';
import { makeCerts } from '../helpers/certs.js';
import { hex64, hostileNode, json, statisticsBody, success, STATISTICS_HEADERS } from '../helpers/hostile.js';
import { CHART_MEMORY_LIMIT_MIB, healthz, LIVENESS_TIMEOUT_MS, watch } from '../helpers/pod.js';
import { removeDist, spawnExporter, type ExporterProcess } from '../helpers/process.js';
import { configSchema } from '../../src/exporter/config/schema.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

const ATTACK_MS = 10_000;
const QUIET = {
  markets: { enabled: false },
  consistency: { enabled: false },
  network_history: { enabled: false },
  history_segments: { enabled: false },
  market_data: { enabled: false },
  network_data: { enabled: false },
};

/** A web config serving TLS with basic auth (the password's hash at the lowest cost: no bcrypt flood here). */
function tlsWebConfig(): string {
  const certs = makeCerts();
  const file = join(certs.dir, 'web.yml');
  const cert = `tls_server_config:\n  cert_file: ${certs.path('server.crt')}\n  key_file: ${certs.path('server.key')}\n`;
  writeFileSync(file, `${cert}basic_auth_users:\n  prometheus: ${bcrypt.hashSync('pw', 4)}\n`);
  return file;
}

/** A node whose statistics are sane and whose key rotations fill the network's series limit (a /metrics of several MB), when `rotations`. */
async function exporter(o: { rotations?: boolean; args?: string[] } = {}): Promise<ExporterProcess> {
  const { limits, http } = configSchema().parse({ targets: [{ name: 'n', url: 'http://127.0.0.1:1' }] });
  const pages = Math.ceil(limits.series_per_network / 2 / http.page_size) + 1;
  const page = (k: number): Buffer => {
    const rows = Array.from({ length: http.page_size }, (_, i) => {
      const h = k * http.page_size + i + 1;
      return `{"node":{"nodeId":"${hex64(h, 'i')}","oldPubKey":"${hex64(h, 'o')}","newPubKey":"${hex64(h, 'n')}","blockHeight":"${h}"},"cursor":"${k + 1}"}`;
    });
    return Buffer.from(`{"rotations":{"edges":[${rows.join(',')}],"pageInfo":{"hasNextPage":${k < pages - 1},"endCursor":"${k + 1}"}}}`);
  };
  const bodies = o.rotations ? Array.from({ length: pages }, (_, k) => page(k)) : [];
  const node = await hostileNode({
    '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
    '/keys/rotations': (req, res) => {
      const k = Number(new URL(req.url!, 'http://x').searchParams.get('pagination.after') ?? 0);
      json(res, bodies[Math.min(k, pages - 1)] ?? '{"rotations":{"edges":[],"pageInfo":{"hasNextPage":false}}}');
    },
  });
  cleanup.push(node.close);
  const p = await spawnExporter(
    {
      targets: [{ name: 'n', url: node.url }],
      collectors: { ...QUIET, statistics: { interval: '5s' }, key_rotations: { enabled: o.rotations === true, interval: '15s' } },
    },
    o.args,
  );
  cleanup.push(p.stop);
  return p;
}

/** GET /metrics on a new connection, read whole; its status, or 0 on no answer within 10 s (Prometheus's default scrape timeout). */
async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number }> {
  try {
    const r = await fetch(`${url}/metrics`, { headers: { ...headers, connection: 'close' }, signal: AbortSignal.timeout(10_000) });
    return { status: r.status, bytes: (await r.arrayBuffer()).byteLength };
  } catch {
    return { status: 0, bytes: 0 };
  }
}

/** Runs `attack` for ATTACK_MS while the liveness check and memory are watched and a reading client scrapes every second. */
async function underAttack(p: ExporterProcess, attack: AttackOptions, scrapeHeaders?: Record<string, string>) {
  const w = watch(p);
  const a = startAttacker(attack);
  cleanup.push(async () => a.stop());
  const scrapes: number[] = [];
  // The main port's /healthz, for the record (the chart's probe asks the health listener).
  let mainHealthMs = 0;
  const end = Date.now() + ATTACK_MS;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1_000));
    if (scrapeHeaders) scrapes.push((await scrape(p.url, scrapeHeaders)).status);
    else mainHealthMs = Math.max(mainHealthMs, await healthz(p.url, LIVENESS_TIMEOUT_MS + 1000));
  }
  const report = await a.stop();
  const m = await w.stop();
  return { ...m, scrapes, mainHealthMs, report };
}

describe.skipIf(process.platform !== 'linux')('the liveness check under connection floods', () => {
  it('new connections, sending nothing, as fast as one client opens them: every /healthz within the liveness timeout', async () => {
    const p = await exporter();
    await new Promise((r) => setTimeout(r, 1_500)); // start-up and the first poll
    const m = await underAttack(p, { mode: 'silent', port: Number(new URL(p.url).port), parallel: 64, hold: 4_000 });
    console.log(
      `burst: ${m.report.opened} connections opened, ${m.report.closedByServer} closed by the exporter; /healthz max ${m.healthMs.toFixed(0)} ms over ${m.checks} checks (main port max ${m.mainHealthMs.toFixed(0)} ms); RSS max ${m.rss.toFixed(0)} MiB`,
    );
    expect(m.report.opened).toBeGreaterThan(1_000);
    expect(p.child.exitCode).toBeNull();
    expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
    expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(success(await (await fetch(`${p.url}/metrics`)).text(), 'statistics')).toBe('1');
  }, 60_000);

  it('the same over TLS with basic auth (handshakes never begun): every /healthz within the liveness timeout, an authenticated scrape served', async () => {
    const p = await exporter({ args: ['--web.config.file', tlsWebConfig()] });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(p.url).toMatch(/^https:/);
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'; // our own self-signed certificate, on loopback
    cleanup.push(async () => delete process.env.NODE_TLS_REJECT_UNAUTHORIZED);
    const auth = { authorization: `Basic ${Buffer.from('prometheus:pw').toString('base64')}` };
    const m = await underAttack(p, { mode: 'silent', port: Number(new URL(p.url).port), parallel: 64, hold: 4_000 }, auth);
    console.log(
      `TLS burst: ${m.report.opened} connections opened, ${m.report.closedByServer} closed by the exporter; /healthz max ${m.healthMs.toFixed(0)} ms over ${m.checks} checks; scrapes ${m.scrapes.join(' ')}; RSS max ${m.rss.toFixed(0)} MiB`,
    );
    expect(p.child.exitCode).toBeNull();
    expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
    expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect((await scrape(p.url, auth)).status).toBe(200);
  }, 60_000);

  it('260 connections asking a multi-MB /metrics and never reading it: every /healthz within the liveness timeout, every reading scrape served', async () => {
    const p = await exporter({ rotations: true });
    // The rotations walked and exported: /metrics holds the network's whole series limit.
    let size = 0;
    for (let i = 0; i < 60 && size < 4e6; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      size = (await scrape(p.url)).bytes;
    }
    expect(size).toBeGreaterThan(4e6);
    const m = await underAttack(p, { mode: 'unread', port: Number(new URL(p.url).port), connections: 260, path: '/metrics' }, {});
    console.log(
      `unread: /metrics ${(size / 1e6).toFixed(1)} MB; ${m.report.opened} connections opened, ${m.report.closedByServer} closed by the exporter; /healthz max ${m.healthMs.toFixed(0)} ms over ${m.checks} checks; scrapes ${m.scrapes.join(' ')}; RSS max ${m.rss.toFixed(0)} MiB`,
    );
    expect(p.child.exitCode).toBeNull();
    expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
    expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(m.scrapes.every((s) => s === 200)).toBe(true);
  }, 120_000);
});
