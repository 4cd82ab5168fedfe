/**
 * A node answering every list endpoint at its own bound at once, while both cores are busy with
 * other processes: what a target's answers cost while held (bytes, decoded text, parsed objects)
 * is one budget (http.max_held_bytes_per_target), so resident memory stays under the chart's limit,
 * /healthz on a new connection answers within the liveness timeout throughout, and another target
 * keeps serving. Against the exporter as the chart runs it (compiled, the bin's launch settings).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { hostileNode, json, statisticsBody, STATISTICS_HEADERS, type HostileNode } from '../helpers/hostile.js';
import { CHART_MEMORY_LIMIT_MIB, LIVENESS_TIMEOUT_MS, watch } from '../helpers/pod.js';
import { removeDist, spawnExporter } from '../helpers/process.js';
import { configSchema } from '../../src/exporter/config/schema.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

const ATTACK_MS = 30_000;
const KIB = 1024;
const { http } = configSchema().parse({ targets: [{ name: 'n', url: 'http://127.0.0.1:1' }] });

/**
 * A JSON list of about `bytes` under `key`, at the endpoint's structural bounds (http/bounds.ts):
 * rows of `rowBytes` holding `tokens` JSON tokens each, as short strings (what costs a parse most
 * per byte), every one with a character beyond Latin-1 (its decoded text takes two bytes a character).
 */
function list(key: string, bytes: number, rowBytes: number, tokens: number): Buffer {
  const fields = Math.floor(tokens / 2) - 1;
  const value = `€${'x'.repeat(Math.floor(rowBytes / fields) - 14)}`;
  const row = `{${Array.from({ length: fields }, (_, f) => `"k${f}":"${value}"`).join(',')}}`;
  const rows = Math.min(5_000, Math.floor((bytes - 256) / (Buffer.byteLength(row) + 1)));
  return Buffer.from(`{"${key}":[${Array.from({ length: rows }, () => row).join(',')}]}`);
}

/** Two processes spinning, one per core, for the attack's length. */
function busyCores(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'const end = Date.now() + 60_000; while (Date.now() < end);'], { stdio: 'ignore' }));
}

async function hostile(): Promise<HostileNode> {
  // Each at its endpoint's bound (unpaginated: 5,000 rows; markets paged by 500), under http.max_response_bytes;
  // the paginated ones also under the largest answer a target's budget takes (a sixth of it), so that they are parsed.
  const cap = http.max_response_bytes;
  const taken = http.max_held_bytes_per_target / 6 - 64 * KIB;
  const legacy = list('markets', cap, 16 * KIB, 600);
  const v2 = list('markets', 500 * 16 * KIB, 16 * KIB, 600);
  const data = list('marketsData', Math.min(cap, taken, 5_000 * 4 * KIB), 4 * KIB, 200);
  const segments = list('segments', 5_000 * KIB, KIB, 40);
  const rotations = list('rotations', 5_000 * KIB, KIB, 30);
  return hostileNode({
    '/markets': (req, res, path) => json(res, path === '/markets' ? legacy : v2),
    '/markets/data': (_q, res) => json(res, data),
    '/networkhistory/segments': (_q, res) => json(res, segments),
    '/keys/rotations': (_q, res) => json(res, rotations),
  });
}

describe.skipIf(process.platform !== 'linux')('every list at its bound at once', () => {
  it("RSS under the chart's limit, /healthz within the liveness timeout throughout, another target served", async () => {
    const node = await hostile();
    cleanup.push(node.close);
    const sane = await hostileNode({ '/statistics': (_q, res) => json(res, statisticsBody({ chainId: 'other-chain' }), 200, STATISTICS_HEADERS) });
    cleanup.push(sane.close);
    const every = { interval: '2s' };
    const p = await spawnExporter({
      targets: [
        { name: 'hostile', url: node.url },
        { name: 'sane', url: sane.url },
      ],
      collectors: { statistics: every, markets: every, market_data: every, history_segments: every, key_rotations: every, consistency: { enabled: false } },
    });
    cleanup.push(p.stop);
    const spinners = busyCores();
    cleanup.push(async () => spinners.forEach((c) => c.kill()));
    const w = watch(p);
    cleanup.push(async () => w.stop());
    await new Promise((r) => setTimeout(r, ATTACK_MS));
    const m = await w.stop();
    const legacyAsked = node.counts.get('/markets') ?? 0;
    console.log(
      `every list at its bound: RSS max ${m.rss.toFixed(0)} MiB; /healthz max ${m.healthMs.toFixed(0)} ms over ${m.checks} checks; ` +
        `requests ${JSON.stringify(Object.fromEntries(node.counts))}`,
    );
    expect(p.child.exitCode).toBeNull();
    expect(m.checks).toBeGreaterThan(10);
    expect(m.healthMs).toBeLessThan(LIVENESS_TIMEOUT_MS);
    expect(m.rss).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(legacyAsked).toBe(1);
    expect(await (await fetch(`${p.url}/metrics`)).text()).toMatch(/^datanode_exporter_collector_success\{target="sane",collector="statistics"\} 1$/m);
  }, 90_000);
});
