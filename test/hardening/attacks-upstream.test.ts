/**
 * What a data node's answer can cost in bytes and work, not only in counts: long strings, fresh
 * object keys, strings kept across pages, and a network filled to its series limit. Against the
 * exporter as the chart runs it: compiled, started as the bin starts it (its launch settings, no
 * other flag), every setting shipped but the collectors' mix and intervals, its resident memory read
 * from /proc and `/healthz` timed throughout. The pod must not be restarted: RSS under the chart's
 * memory limit, every `/healthz` within the liveness probe's timeout; and the collectors the attack
 * does not reach keep every series a healthy node gives.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { answered, hex64, hostileNode, json, market, polled, statisticsBody, success, STATISTICS_HEADERS } from '../helpers/hostile.js';
import { removeDist, spawnExporter } from '../helpers/process.js';
import { CHART_MEMORY_LIMIT_MIB, LIVENESS_TIMEOUT_MS, watchPod } from '../helpers/pod.js';
import { configSchema } from '../../src/exporter/config/schema.js';
import { MAX_ID_BYTES } from '../../src/exporter/vega/collectors/key-rotations.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});
afterAll(() => removeDist());

const MIB = 1024 * 1024;
const QUIET = {
  key_rotations: { enabled: false },
  consistency: { enabled: false },
  network_history: { enabled: false },
  history_segments: { enabled: false },
  market_data: { enabled: false },
  network_data: { enabled: false },
};

/** The series a healthy node gives its statistics and markets collectors: 50 markets of the contract fixture. */
const SANE_MARKETS = JSON.stringify({ markets: Array.from({ length: 50 }, (_, i) => market(hex64(i))) });
function expectHealthy(text: string): void {
  expect(success(text, 'statistics'), 'statistics').toBe('1');
  expect(success(text, 'markets'), 'markets').toBe('1');
  expect(text.match(/^vega_market_info\{/gm), 'vega_market_info').toHaveLength(50);
  expect(text).toMatch(/^vega_block_height\{[^}]*\} \d+$/m);
}

/** The log lines of `code` for `collector`. */
const logLines = (out: string, code: string, collector: string): string[] =>
  out.split('\n').filter((l) => l.includes(code) && l.includes(`collector=${collector} `));

/** A connection page: rows, and a cursor to follow while `more`. */
const connection = (key: string, rows: string[], cursor: number, more: boolean): Buffer =>
  Buffer.from(
    `{"${key}":{"edges":[${rows.map((r) => `{"node":${r},"cursor":"${cursor}"}`).join(',')}],"pageInfo":{"hasNextPage":${more},"endCursor":"${cursor}"}}}`,
  );
const after = (url: string | undefined): number => Number(new URL(url!, 'http://x').searchParams.get('pagination.after') ?? 0);

describe.skipIf(process.platform !== 'linux')('long strings and fresh keys', () => {
  it('n01: key-rotation rows whose node ids are 1 MiB each, 4 a page, 100 pages: refused at the first page, one log line, the others serve', async () => {
    // Each page's ids differ, as a node minting ids would send them; the 400 ids are built once.
    const id = (k: number, j: number): string => `${k}-${j}-`.padEnd(MIB, 'e');
    const pages = Array.from({ length: 100 }, (_, k) =>
      connection(
        'rotations',
        [0, 1, 2, 3].map(
          (j) => `{"nodeId":"${id(k, j)}","oldPubKey":"${hex64(k, 'o')}","newPubKey":"${hex64(k * 4 + j, 'n')}","blockHeight":"${k * 4 + j + 1}"}`,
        ),
        k + 1,
        k < 99,
      ),
    );
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
      '/markets': (_q, res) => json(res, SANE_MARKETS),
      '/keys/rotations': (req, res) => json(res, pages[Math.min(after(req.url), 99)]!),
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: { ...QUIET, statistics: { interval: '5s' }, markets: { interval: '5s' }, key_rotations: { interval: '5s' } },
    });
    cleanup.push(p.stop);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    // Two polls of the rotations, each refused at its first page, and of markets.
    await answered(node, { '/api/v2/vega/keys/rotations': 2, '/markets': 2 });
    const text = await (await fetch(`${p.url}/metrics`)).text();
    await w.stop();
    const lines = logLines(p.output(), 'UPSTREAM_BODY_TOO_LARGE', 'key_rotations');
    console.log(`n01: max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms; ${lines.length} log line(s)`);
    expect(success(text, 'key_rotations')).toBe('0');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/rotations: response body holds a string longer than 1024 bytes/);
    expectHealthy(text);
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 240_000);

  it('n03: a 12 MiB markets page of 400,000 objects with fresh keys, to the consistency digest and to /markets: refused, one log line each, the others serve', async () => {
    // 80 arrays of 5,000 one-key objects (no array beyond 5,000 elements), each key new.
    const junk = Array.from(
      { length: 80 },
      (_, a) => `[${Array.from({ length: 5_000 }, (_, i) => `{"${`fresh_key_${a * 5_000 + i}_`.padEnd(26, 'x')}":0}`).join(',')}]`,
    ).join(',');
    const v2 = Buffer.from(`{"markets":{"edges":[],"pageInfo":{"hasNextPage":false,"endCursor":""},"junk":[${junk}]}}`);
    const core = Buffer.from(`{"markets":[],"junk":[${junk}]}`);
    expect(v2.length).toBeGreaterThan(12 * MIB);
    let attacked = false;
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
      '/api/v2/markets': (_q, res) => json(res, v2),
      '/markets': (_q, res) => json(res, attacked ? core : SANE_MARKETS),
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: { ...QUIET, statistics: { interval: '5s' }, markets: { interval: '5s' }, consistency: { interval: '5s' } },
    });
    cleanup.push(p.stop);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    await answered(node, { '/markets': 1 });
    const healthy = await (await fetch(`${p.url}/metrics`)).text();
    expectHealthy(healthy);
    attacked = true;
    // The legacy path fails once, then the target is asked the paginated one (the digest's junk too).
    await polled(node, '/markets', 1);
    await polled(node, '/api/v2/markets', 2);
    const text = await (await fetch(`${p.url}/metrics`)).text();
    await w.stop();
    const consistency = logLines(p.output(), 'UPSTREAM_BODY_TOO_LARGE', 'consistency');
    const markets = logLines(p.output(), 'UPSTREAM_BODY_TOO_LARGE', 'markets');
    console.log(`n03: max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms; log lines ${consistency.length} + ${markets.length}`);
    expect(success(text, 'consistency')).toBe('0');
    expect(success(text, 'markets')).toBe('0');
    expect(consistency).toHaveLength(1);
    expect(markets).toHaveLength(1);
    // Scanned as they arrive, both are refused at their 513th distinct key, long before the largest answer a target's budget takes (8 MiB).
    expect(consistency[0]).toMatch(/holds more than 512 distinct object keys/);
    expect(markets[0]).toMatch(/holds more than 512 distinct object keys/);
    expect(success(text, 'statistics')).toBe('1');
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 240_000);

  it('n07: 8 MiB strings on each of 100 pages of node signatures and of positions: refused at the first page, one log line each, the others serve', async () => {
    const big = (k: number, c: string): string => `${k}`.padEnd(8 * MIB, c);
    const sigPage = (k: number): Buffer =>
      connection('signatures', [`{"id":"${hex64(1, 'r')}","sig":"${big(k, 'A')}","kind":"NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL"}`], k + 1, k < 99);
    const posPage = (k: number): Buffer =>
      connection(
        'positions',
        [
          `{"marketId":"${hex64(1)}","partyId":"${big(k, 'p')}","openVolume":"1","realisedPnl":"0","unrealisedPnl":"0","averageEntryPrice":"1","updatedAt":"0","lossSocialisationAmount":"0","positionStatus":"POSITION_STATUS_UNSPECIFIED"}`,
        ],
        k + 1,
        k < 99,
      );
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
      '/markets': (_q, res) => json(res, SANE_MARKETS),
      '/node/signatures': (req, res) => json(res, sigPage(after(req.url))),
      '/api/v2/positions': (req, res) => json(res, posPage(after(req.url))),
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: {
        ...QUIET,
        statistics: { interval: '5s' },
        markets: { interval: '5s' },
        node_signatures: { interval: '5s', ids: [hex64(1, 'r')] },
        positions: { interval: '5s', party_ids: [hex64(2, 'p')] },
      },
    });
    cleanup.push(p.stop);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    // Two polls of each, each refused at its first page, and of markets.
    await answered(node, { '/api/v2/node/signatures': 2, '/api/v2/positions': 2, '/markets': 2 });
    const text = await (await fetch(`${p.url}/metrics`)).text();
    await w.stop();
    const sigs = logLines(p.output(), 'UPSTREAM_BODY_TOO_LARGE', 'node_signatures');
    const positions = logLines(p.output(), 'UPSTREAM_BODY_TOO_LARGE', 'positions');
    console.log(`n07: max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms; log lines ${sigs.length} + ${positions.length}`);
    expect(success(text, 'node_signatures')).toBe('0');
    expect(success(text, 'positions')).toBe('0');
    expect(sigs).toHaveLength(1);
    expect(positions).toHaveLength(1);
    // A page of signatures (5,000 × 2 KiB + 256 KiB) is above the largest answer a target's budget takes (8 MiB).
    expect(sigs[0]).toMatch(/signatures: response body exceeds the 8388608-byte cap/);
    // Positions are asked for 1,000 a page: the page's byte bound (1,000 × 2 KiB + 256 KiB) refuses it first.
    expect(positions[0]).toMatch(/positions: response body exceeds the 2310144-byte cap/);
    expectHealthy(text);
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 240_000);
});

describe.skipIf(process.platform !== 'linux')('a network at its series limit', () => {
  // Every limit, page size and body cap shipped. Node ids of two lengths: the longest with which the
  // rotation tally still reaches the series limit (longer ids fill its byte budget sooner), and the
  // shortest whose label values are cut at the label cap (each cut value hashed).
  const { limits, http } = configSchema().parse({ targets: [{ name: 'n', url: 'http://127.0.0.1:1' }] });
  it.each([
    ['the longest that fill the limit', Math.floor(MAX_ID_BYTES / (limits.series_per_network / 2 + 1))],
    ['the shortest cut at the label cap', limits.label_value_bytes + 1],
  ])(
    'd12: key_rotations the network collector, node ids (%s: %i characters) minted until the network holds all it can: RSS under the chart limit, /healthz within the liveness timeout',
    async (_what, ID_CHARS) => {
      const perPage = http.page_size;
      const pages = Math.ceil(limits.series_per_network / 2 / perPage) + 2;
      const nodeId = (h: number): string => `${h}-`.padStart(ID_CHARS, 'e');
      const bodies = Array.from({ length: pages }, (_, k) =>
        connection(
          'rotations',
          Array.from({ length: perPage }, (_, i) => {
            const h = k * perPage + i + 1;
            return `{"nodeId":"${nodeId(h)}","oldPubKey":"${hex64(h, 'o')}","newPubKey":"${hex64(h, 'n')}","blockHeight":"${h}"}`;
          }),
          k + 1,
          k < pages - 1,
        ),
      );
      const node = await hostileNode({
        '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
        '/markets': (_q, res) => json(res, SANE_MARKETS),
        '/keys/rotations': (req, res) => json(res, bodies[Math.min(after(req.url), pages - 1)]!),
      });
      cleanup.push(node.close);
      // The network's only network-scoped collector: its share is the whole limit.
      const p = await spawnExporter({
        targets: [{ name: 'n', url: node.url }],
        collectors: { ...QUIET, statistics: { interval: '5s' }, markets: { enabled: false }, key_rotations: { interval: '5s' } },
      });
      cleanup.push(p.stop);
      const w = watchPod(p);
      cleanup.push(async () => w.stop());
      // Two whole walks (the first begun at start-up), each applied, while Prometheus scrapes every 2 s.
      const path = '/api/v2/vega/keys/rotations';
      const until = 2 * pages;
      const end = Date.now() + 180_000;
      let series = 0;
      let text = '';
      while ((node.counts.get(path) ?? 0) < until || series === 0) {
        if (Date.now() > end) throw new Error('rotations not polled in time');
        text = await (await fetch(`${p.url}/metrics`)).text();
        series = (text.match(/^vega_key_rotation(?:s_total|_last_block_height)\{/gm) ?? []).length;
        await new Promise((r) => setTimeout(r, 2_000));
      }
      await w.stop();
      console.log(
        `d12: ${series} rotation series of ${ID_CHARS}-character ids at series_per_network ${limits.series_per_network}; max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms`,
      );
      // Two series per node id: the network's limit, or the ids the tally's byte budget holds.
      expect(series).toBe(Math.min(limits.series_per_network, 2 * Math.floor(MAX_ID_BYTES / ID_CHARS)));
      expect(text).toMatch(/^datanode_exporter_network_collector_series_limited\{[^}]*collector="key_rotations"\} 1$/m);
      expect(success(text, 'statistics')).toBe('1');
      expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
      expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
    },
    300_000,
  );

  it('d12: positions the network collector, a node listing positions of new parties until the network holds its whole series limit: RSS under the chart limit, /healthz within the liveness timeout', async () => {
    // Each position of a known market and asset: 18 series (5 amounts, 8 fees and funding, 4 states, its time).
    const marketBody = readFileSync('test/contract/fixtures/api-v2-market.json');
    const { market: m } = JSON.parse(marketBody.toString()) as {
      market: { id: string; tradableInstrument: { instrument: { future: { settlementAsset: string } } } };
    };
    const asset = m.tradableInstrument.instrument.future.settlementAsset;
    const template = JSON.stringify(JSON.parse(readFileSync('test/contract/fixtures/positions.json', 'utf8')).positions.edges[0].node);
    const row = (h: number): string =>
      template
        .replace(/"marketId":"[^"]*"/, `"marketId":"${m.id}"`)
        .replace(/"partyId":"[^"]*"/, `"partyId":"${hex64(h, 'p')}"`)
        .replace(/"updatedAt":"[^"]*"/, `"updatedAt":"${1_700_000_000_000_000_000n + BigInt(h)}"`);
    // As many rows a page as asked for, always another page: more than the walk may take.
    const page = (k: number, size: number): Buffer =>
      connection(
        'positions',
        Array.from({ length: size }, (_, i) => row(k * size + i + 1)),
        k + 1,
        true,
      );
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS),
      '/api/v2/positions': (req, res) => json(res, page(after(req.url), Number(new URL(req.url!, 'http://x').searchParams.get('pagination.first')))),
      [`/api/v2/market/${m.id}`]: (_q, res) => json(res, marketBody),
    });
    cleanup.push(node.close);
    const p = await spawnExporter({
      targets: [{ name: 'n', url: node.url }],
      collectors: {
        ...QUIET,
        statistics: { interval: '5s' },
        markets: { enabled: false },
        positions: { interval: '15s', party_ids: [hex64(1, 'p')], asset_decimals: { [asset]: 6 } },
      },
    });
    cleanup.push(p.stop);
    const w = watchPod(p);
    cleanup.push(async () => w.stop());
    const path = '/api/v2/positions';
    // Two polls, while Prometheus scrapes every 2 s; then until the second is applied.
    let text = '';
    const scrapes = setInterval(() => void fetch(`${p.url}/metrics`).then((r) => r.text()), 2_000);
    cleanup.push(async () => clearInterval(scrapes));
    await polled(node, path, 2);
    for (let i = 0; i < 30 && !/^vega_position_status\{/m.test(text); i++) {
      text = await (await fetch(`${p.url}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    clearInterval(scrapes);
    const series = (text.match(/^vega_position_[a-z_]+\{/gm) ?? []).length;
    await w.stop();
    console.log(
      `d12: ${series} position series at series_per_network ${limits.series_per_network}; max RSS ${w.rss().toFixed(0)} MiB, slowest /healthz ${w.healthz().toFixed(0)} ms`,
    );
    expect(series).toBeGreaterThan(limits.series_per_network * 0.9);
    expect(series).toBeLessThanOrEqual(limits.series_per_network);
    expect(success(text, 'positions')).toBe('1');
    expect(success(text, 'statistics')).toBe('1');
    expect(w.rss()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    expect(w.healthz()).toBeLessThan(LIVENESS_TIMEOUT_MS);
  }, 300_000);
});
