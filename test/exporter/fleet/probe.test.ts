/**
 * /probe under a flood: probes answered at once are bounded, new URL
 * targets are made at a bounded rate, failures of URL targets are logged once per collector and
 * code, and what a client sent is echoed quoted and cut. The real exporter, a hostile node of the
 * test's own, 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { hostileNode, json, statisticsBody, STATISTICS_HEADERS } from '../../helpers/hostile.js';
import { lifecycle } from '../../helpers/lifecycle.js';
import { configSchema, type Config } from '../../../src/exporter/config/schema.js';

const { defer, exporter } = lifecycle();
const STATS_ONLY = {
  statistics: { interval: '1m' },
  markets: { enabled: false },
  key_rotations: { enabled: false },
  consistency: { enabled: false },
  network_history: { enabled: false },
};
const probe = (base: string, target: string, extra = ''): Promise<Response> => fetch(`${base}/probe?target=${encodeURIComponent(target)}${extra}`);

describe('/probe bounds', () => {
  it('beyond probe.max_concurrent probes in progress: 503 with Retry-After (sent a second later, holding no slot); those in progress still answer', async () => {
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    let holding = false;
    const node = await hostileNode({
      '/statistics': (_q, res) => void (holding ? gate : Promise.resolve()).then(() => json(res, statisticsBody(), 200, STATISTICS_HEADERS)),
    });
    defer(node.close);
    const e = await exporter(node.url, { collectors: STATS_ONLY, probe: { max_concurrent: 2, allowed_urls: [node.url] } }, 'silent');
    holding = true;
    const held = [probe(e.url, `${node.url}/a/`), probe(e.url, `${node.url}/b/`)];
    while ((node.counts.get('/a/statistics') ?? 0) + (node.counts.get('/b/statistics') ?? 0) < 2) await new Promise((r) => setTimeout(r, 10));
    const over = await probe(e.url, 'node1');
    expect(over.status).toBe(503);
    expect(over.headers.get('retry-after')).toBe('1');
    expect(await over.text()).toBe('too many probes in progress; try again\n');
    release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await probe(e.url, 'node1')).status).toBe(200); // the slots came back
  });

  it('beyond probe.new_url_targets_per_minute new URLs: 429 with Retry-After; URLs already made and configured targets still answer', async () => {
    const node = await hostileNode();
    defer(node.close);
    const e = await exporter(node.url, { collectors: STATS_ONLY, probe: { new_url_targets_per_minute: 3, allowed_urls: [node.url] } }, 'silent');
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await probe(e.url, `${node.url}/u${i}/`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await probe(e.url, `${node.url}/u9/`);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(node.counts.get('/u9/statistics')).toBeUndefined(); // nothing made, nothing sent
    expect((await probe(e.url, `${node.url}/u1/`)).status).toBe(200);
    expect((await probe(e.url, 'node1')).status).toBe(200);
  });

  it('12 failing URL targets: one log line per collector and code, not one per URL', async () => {
    const node = await hostileNode({ '/statistics': (_q, res) => json(res, '{"code":13,"message":"internal"}', 500) });
    defer(node.close);
    const e = await exporter(node.url, { collectors: STATS_ONLY, http: { retries: 0 }, probe: { allowed_urls: [node.url] } }, 'info');
    const before = e.logs.lines.length;
    for (let i = 0; i < 12; i++) {
      const r = await probe(e.url, `${node.url}/f${i}/`);
      expect(await r.text()).toContain('datanode_exporter_probe_success{target=');
    }
    const lines = e.logs.parsed().slice(before);
    const collectors = lines.map((l) => l.collector);
    expect(collectors).toContain('statistics');
    expect(new Set(collectors).size).toBe(lines.length); // node-scoped collectors: a handful of lines, not 12 or more
    expect(lines.every((l) => l.msg === 'probe of a URL target failing (logged once a minute per collector and code)' && l.code === 'UPSTREAM_HTTP')).toBe(
      true,
    );
  });

  it('unknown collectors are echoed quoted, one line, cut short', async () => {
    const node = await hostileNode();
    defer(node.close);
    const e = await exporter(node.url, { collectors: STATS_ONLY }, 'silent');
    const names = ['a\nb', 'x'.repeat(5000), ...Array.from({ length: 20 }, (_, i) => `n${i}`)];
    const r = await probe(e.url, 'node1', `&collectors=${encodeURIComponent(names.join(','))}`);
    expect(r.status).toBe(400);
    const body = await r.text();
    expect(body.split('\n')).toEqual([expect.any(String), '']);
    expect(body).toContain('"a\\nb"');
    expect(body).toContain(`"${'x'.repeat(64)}"`);
    expect(body).not.toContain('x'.repeat(65));
    expect(body).not.toContain('"n19"');
    expect(body.length).toBeLessThan(1000);
  });
});

describe('/probe after a reload', () => {
  it('a URL target made before a reload is polled with the new HTTP settings on the next probe', async () => {
    const node = await hostileNode();
    defer(node.close);
    expect(statisticsBody().length).toBeGreaterThan(1024);
    const input = (maxResponseBytes: number) => ({
      collectors: STATS_ONLY,
      http: { max_response_bytes: maxResponseBytes },
      probe: { allowed_urls: [node.url] },
    });
    const settings = (maxResponseBytes: number): Config =>
      configSchema().parse({ targets: [{ name: 'node1', url: node.url }], log: { level: 'silent' }, ...input(maxResponseBytes) });
    let next = settings(32 * 1024 * 1024);
    const e = await exporter(node.url, input(32 * 1024 * 1024), 'silent', () => next);
    const success = async (): Promise<string | undefined> =>
      /datanode_exporter_probe_success\{[^}]*\} (\d)/.exec(await (await probe(e.url, `${node.url}/u/`, '&collectors=statistics')).text())?.[1];
    expect(await success()).toBe('1');
    // A bound below the statistics body: a poll with the new settings fails.
    next = settings(1024);
    await e.exporter.reload();
    expect(await success()).toBe('0');
    expect(node.counts.get('/u/statistics')).toBe(2);
  });
});
