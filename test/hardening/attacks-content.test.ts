/**
 * Dense JSON and accumulated pages against the exporter as the chart runs it: compiled, with the
 * launch settings of its bin, a 256 MiB heap, its resident memory read from /proc and `/healthz`
 * timed throughout. The pod must not be restarted: RSS under the chart's memory limit, every
 * `/healthz` answered within the liveness probe's timeout. The data node is the tests' own.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { hex64, hostileNode, json, market, MARKETS_PATHS, polled, statisticsBody, success, STATISTICS_HEADERS, v2Markets } from '../helpers/hostile.js';
import { CHART_MEMORY_LIMIT_MIB, LIVENESS_TIMEOUT_MS, watchPod } from '../helpers/pod.js';
import { removeDist, spawnExporter } from '../helpers/process.js';
import { configSchema } from '../../src/exporter/config/schema.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

// The heap the chart's memory limit leaves room for; spawnExporter adds these flags to the launch settings.
process.env.DNE_NODE_FLAGS = `--max-old-space-size=${CHART_MEMORY_LIMIT_MIB}`;

const QUIET = { key_rotations: { enabled: false }, consistency: { enabled: false }, network_history: { enabled: false }, history_segments: { enabled: false } };

describe.skipIf(process.platform !== 'linux')('dense JSON under the byte cap', () => {
  it('30 MB of {} to /statistics, 3 M levels of nesting to /markets, 2 M empty rows in marketsData: that collector fails with one log line, the others serve, the pod survives', async () => {
    const empties = (n: number): Buffer => Buffer.from(`[${'{},'.repeat(n - 1)}{}]`);
    const hostile = {
      statistics: Buffer.concat([Buffer.from('{"statistics":'), empties(10_000_000), Buffer.from('}')]),
      // Under the largest answer a target's budget takes (8 MiB), so that the structural scan refuses them.
      markets: Buffer.from(`{"markets":${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}}`),
      market_data: Buffer.concat([Buffer.from('{"marketsData":'), empties(2_000_000), Buffer.from('}')]),
    };
    const sane = {
      statistics: statisticsBody(),
      markets: JSON.stringify({ markets: Array.from({ length: 50 }, (_, i) => market(hex64(i))) }),
      marketsV2: v2Markets(Array.from({ length: 50 }, (_, i) => market(hex64(i)))),
      market_data: JSON.stringify({ marketsData: [] }),
    };
    let attacked: keyof typeof hostile | undefined;
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, attacked === 'statistics' ? hostile.statistics : sane.statistics, 200, STATISTICS_HEADERS),
      '/api/v2/markets/data': (_q, res) => json(res, attacked === 'market_data' ? hostile.market_data : sane.market_data),
      // The legacy path and, once it has failed, the paginated one: attacked alike.
      '/markets': (_q, res, path) => json(res, attacked === 'markets' ? hostile.markets : path === '/markets' ? sane.markets : sane.marketsV2),
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: { ...QUIET, statistics: { interval: '2s' }, markets: { interval: '2s' }, market_data: { interval: '2s' } },
    });
    cleanup.push(p.stop);
    await polled(node, MARKETS_PATHS, 1);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    const paths = { statistics: '/statistics', markets: MARKETS_PATHS, market_data: '/api/v2/markets/data' } as const;
    for (const collector of ['statistics', 'markets', 'market_data'] as const) {
      attacked = collector;
      await polled(node, paths[collector], 2);
      const text = await (await fetch(`${p.url}/metrics`)).text();
      expect(success(text, collector), collector).toBe('0');
      for (const other of ['statistics', 'markets', 'market_data'].filter((c) => c !== collector))
        expect(success(text, other), `${other} while ${collector} is attacked`).toBe('1');
      attacked = undefined;
      await polled(node, paths[collector], 1);
    }
    await w.stop();
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.includes('UPSTREAM_BODY_TOO_LARGE'));
    console.log(`item 1: max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms; log lines: ${lines.length}`);
    // One line per attacked collector (two polls each), each naming what the body held too much of.
    expect(lines, lines.join('\n')).toHaveLength(3);
    // /statistics is refused at its 1,001st element, as it arrives, before its byte cap.
    for (const what of [/more than 1000 elements/, /nests deeper than 32 levels/, /more than 5000 elements/])
      expect(
        lines.some((l) => what.test(l)),
        String(what),
      ).toBe(true);
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 180_000);
});

describe.skipIf(process.platform !== 'linux')('pages accumulated', () => {
  it('100 pages of markets, as many as asked for and then 5,000 whatever was asked: the walk stops at the guard or the page is refused, the pod survives, SIGTERM during a page exits within 5 s', async () => {
    const template = JSON.stringify(market('@ID@'));
    const page = (after: number, size: number): Buffer => {
      const edges: string[] = [];
      for (let i = 0; i < size; i++) edges.push(`{"node":${template.replace('@ID@', hex64(after * size + i))},"cursor":"${after + 1}"}`);
      return Buffer.from(`{"markets":{"edges":[${edges.join(',')}],"pageInfo":{"hasNextPage":${after < 99},"endCursor":"${after + 1}"}}}`);
    };
    // The first pages are built before the exporter starts: the test's own event loop must not delay what it times.
    const first = { asked: page(0, 500), forced: page(0, 5_000) };
    let phase: keyof typeof first = 'asked';
    let sent: (() => void) | undefined;
    const node = await hostileNode({
      '/api/v2/markets': (req, res) => {
        const q = new URL(req.url!, 'http://x').searchParams;
        const after = Number(q.get('pagination.after') ?? 0);
        const size = phase === 'asked' ? Number(q.get('pagination.first')) : 5_000;
        res.on('finish', () => sent?.());
        json(res, after === 0 ? first[phase] : page(after, size));
      },
    });
    cleanup.push(node.close);
    // The shipped defaults: pages of 500 markets asked for, markets.max_markets 500. A walk every 5 s:
    // the test waits for five of them.
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: { ...QUIET, statistics: { interval: '2s' }, markets: { interval: '5s' } },
    });
    cleanup.push(p.stop);
    // Start-up and the first poll overlap (modules still compiling): measured from the first applied poll on.
    await polled(node, '/api/v2/markets', 1);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    const before = node.counts.get('/api/v2/markets')!;
    await polled(node, '/api/v2/markets', 2 * 21);
    const text = await (await fetch(`${p.url}/metrics`)).text();
    const asked = node.counts.get('/api/v2/markets')! - before;
    // The walk stops past 10,000 markets: 21 pages of 500 a poll, not all 100.
    expect(asked).toBeLessThanOrEqual(3 * 21);
    expect(success(text, 'markets')).toBe('1');
    expect(text).toMatch(/^datanode_exporter_markets_over_limit\{[^}]*\} 1$/m);
    phase = 'forced';
    await polled(node, '/api/v2/markets', 2);
    await w.stop();
    expect(success(await (await fetch(`${p.url}/metrics`)).text(), 'markets')).toBe('0');
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.includes('UPSTREAM_BODY_TOO_LARGE'));
    console.log(
      `item 3: ${asked} pages asked for in two polls or so; max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms; ${lines.length} log line(s) for the forced pages`,
    );
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(/ collector=markets /);
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);

    // SIGTERM the moment a page has been sent, while the exporter reads and scans it.
    await new Promise<void>((r) => (sent = r));
    const t = performance.now();
    const code = await p.stop();
    const ms = performance.now() - t;
    console.log(`item 1/3: exit ${code} ${ms.toFixed(0)} ms after SIGTERM during a page`);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
  }, 180_000);
});

describe.skipIf(process.platform !== 'linux')('the network scope at its series limit', () => {
  it('key rotations minting node ids fill the whole network limit with the shipped defaults: RSS under the chart limit, /healthz within the liveness timeout', async () => {
    // Every series limit, page size and body cap is the shipped default; key_rotations is the network's
    // only collector, so its share is the whole limit: the most any hostile node can make one network hold.
    const { limits, http } = configSchema().parse({ targets: [{ name: 'n', url: 'http://127.0.0.1:1' }] });
    const perPage = http.page_size;
    const pages = Math.ceil(limits.series_per_network / 2 / perPage) + 2;
    const body = (k: number): Buffer => {
      const edges: string[] = [];
      for (let i = 0; i < perPage; i++) {
        const h = k * perPage + i + 1;
        edges.push(
          `{"node":{"nodeId":"${hex64(h, 'e')}","oldPubKey":"${hex64(h, 'o')}","newPubKey":"${hex64(h, 'n')}","blockHeight":"${h}"},"cursor":"${k + 1}"}`,
        );
      }
      return Buffer.from(`{"rotations":{"edges":[${edges.join(',')}],"pageInfo":{"hasNextPage":${k < pages - 1},"endCursor":"${k + 1}"}}}`);
    };
    // Built before the exporter starts: the test's own event loop must not delay what it times.
    const bodies = Array.from({ length: pages }, (_, k) => body(k));
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
      '/keys/rotations': (req, res) => {
        const after = Number(new URL(req.url!, 'http://x').searchParams.get('pagination.after') ?? 0);
        json(res, bodies[Math.min(after, pages - 1)]!);
      },
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: {
        ...QUIET,
        statistics: { interval: '5s' },
        markets: { enabled: false },
        market_data: { enabled: false },
        network_data: { enabled: false },
        key_rotations: { interval: '5s' },
      },
    });
    cleanup.push(p.stop);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    // Two whole walks (the first begun at start-up), each applied, while Prometheus scrapes as it would.
    let series = 0;
    let limited: string | undefined;
    const rotationsPath = '/api/v2/vega/keys/rotations';
    const until = 2 * pages;
    const end = Date.now() + 150_000;
    while ((node.counts.get(rotationsPath) ?? 0) < until || series === 0) {
      if (Date.now() > end) throw new Error('rotations not polled in time');
      const text = await (await fetch(`${p.url}/metrics`)).text();
      series = (text.match(/^vega_key_rotation(?:s_total|_last_block_height)\{/gm) ?? []).length;
      limited = /^datanode_exporter_network_collector_series_limited\{[^}]*collector="key_rotations"\} (\d)$/m.exec(text)?.[1];
      await new Promise((r) => setTimeout(r, 2_000));
    }
    await w.stop();
    console.log(
      `item 5: ${series} rotation series at series_per_network ${limits.series_per_network}; max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms`,
    );
    expect(series).toBe(limits.series_per_network);
    expect(limited).toBe('1');
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 240_000);
});
