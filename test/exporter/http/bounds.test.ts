/**
 * Work bounded by what a body holds: per-endpoint caps, a structural
 * scan before JSON.parse, walks that stop at the collector's guard and take pages as they arrive,
 * lookups capped per poll, a bounded market directory. Against hostile nodes of the tests' own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MARKETS_PAGE, MarketsCollector, marketsSamples } from '../../../src/exporter/vega/collectors/markets.js';
import { PositionsCollector } from '../../../src/exporter/vega/collectors/positions.js';
import { LOOKUPS_PER_POLL } from '../../../src/exporter/vega/directory.js';
import type { CollectContext } from '../../../src/exporter/engine/types.js';
import { RowSkips } from '../../../src/exporter/engine/rows.js';
import { readFileSync } from 'node:fs';
import { bodyBound, checkShape, MAX_DEPTH, pageRows, ShapeScan, type ListRowBound } from '../../../src/exporter/http/bounds.js';
import { HttpClient } from '../../../src/exporter/http/client.js';
import { KeptBytes, WALK_KEPT_BYTES } from '../../../src/exporter/vega/paginate.js';
import { ENDPOINT_DECLARATIONS, ENDPOINT_ROWS, isList } from '../../../src/exporter/vega/endpoints.js';
import { Directory, MAX_MARKETS } from '../../../src/exporter/vega/directory.js';
import { hex64, hostileNode, json, market, type HostileNode } from '../../helpers/hostile.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});

async function node(routes: Parameters<typeof hostileNode>[0]): Promise<{ node: HostileNode; client: HttpClient }> {
  const n = await hostileNode(routes);
  const client = new HttpClient({
    url: n.url,
    headers: {},
    connectTimeoutMs: 2000,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    requestTimeoutMs: 20_000,
    maxResponseBytes: 32 * 1024 * 1024,
    requestsPerSecond: 1000,
    burst: 1000,
    retries: 0,
    lists: ENDPOINT_ROWS,
  });
  cleanup.push(n.close, () => client.close());
  return { node: n, client };
}

const ctx = (client: HttpClient, pageSize = 5000, maxPages = 100): CollectContext => ({
  target: 'net',
  client,
  signal: AbortSignal.timeout(60_000),
  pageSize,
  maxPages,
});
/** The row bound an endpoint's collectors declare; undefined: one message. */
const row = (endpoint: string): ListRowBound | undefined => ENDPOINT_ROWS.get(endpoint);
const failure = (p: Promise<unknown>): Promise<{ code?: string; message?: string; name?: string }> =>
  p.then(
    () => ({}),
    (e: { code?: string; message?: string; name?: string }) => e,
  );

describe('a structural scan before JSON.parse', () => {
  const bound = { bytes: Infinity, tokens: 1_000, containers: 50, items: 100, string: 16, keys: 3 };
  const outcome = (f: () => void): string | undefined => {
    try {
      f();
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  /** The scan of the whole body; the same body fed as it arrives, in reads of 1, 2, 3 and 7 bytes, must end the same way. */
  const scan = (s: string): string | undefined => {
    const buf = Buffer.from(s);
    const whole = outcome(() => checkShape(buf, bound, 'x'));
    for (const read of [1, 2, 3, 7]) {
      const fed = new ShapeScan(bound, 'x');
      expect(
        outcome(() => {
          for (let size = read; size < buf.length + read; size += read) fed.feed(buf, Math.min(size, buf.length));
        }),
        `reads of ${read}`,
      ).toBe(whole);
      expect(fed.refused).toBe(whole !== undefined);
    }
    return whole;
  };

  it('refuses nesting, tokens and array lengths beyond the bound; brackets, commas and escapes inside strings do not count', () => {
    expect(scan('['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH))).toBeUndefined();
    expect(scan('['.repeat(MAX_DEPTH + 1) + ']'.repeat(MAX_DEPTH + 1))).toMatch(/nests deeper than 32/);
    expect(scan(`[${Array(100).fill(0).join(',')}]`)).toBeUndefined();
    expect(scan(`[${Array(101).fill(0).join(',')}]`)).toMatch(/more than 100 elements/);
    // 100 elements in each of 20 arrays: 2,000 separators, beyond 1,000 tokens.
    expect(
      scan(
        `[${Array(20)
          .fill(`[${Array(100).fill(0).join(',')}]`)
          .join(',')}]`,
      ),
    ).toMatch(/more than 1000 JSON tokens/);
    expect(scan(`[${Array(50).fill('{}').join(',')}]`)).toMatch(/more than 50 objects and arrays/);
    expect(scan(`["${'[,{'.repeat(4)}\\"]"]`)).toBeUndefined();
    // Objects' members are not elements of an array.
    expect(scan(`{${Array.from({ length: 200 }, () => `"k":1`).join(',')}}`)).toBeUndefined();
  });

  it('refuses a string longer than the bound (keys included, escapes counted as sent) and more distinct keys than the bound', () => {
    expect(scan(`["${'x'.repeat(16)}"]`)).toBeUndefined();
    expect(scan(`["${'x'.repeat(17)}"]`)).toMatch(/a string longer than 16 bytes/);
    expect(scan(`["${'\\n'.repeat(8)}"]`)).toBeUndefined();
    expect(scan(`["${'\\n'.repeat(8)}x"]`)).toMatch(/a string longer than 16 bytes/);
    expect(scan(`{"${'k'.repeat(17)}":1}`)).toMatch(/a string longer than 16 bytes/);
    // Three keys used by any number of objects; a fourth is refused, wherever it is.
    const three = Array.from({ length: 20 }, (_, i) => `{"a":${i},"b":"c","ü":{}}`).join(',');
    expect(scan(`[${three}]`)).toBeUndefined();
    expect(scan(`[${three},{"d":1}]`)).toMatch(/more than 3 distinct object keys/);
    // A value that reads like a key is not one; a colon inside a string is not a key's.
    expect(scan(`[{"a":"d"},{"b":"e:f"},"g",":"]`)).toBeUndefined();
  });
});

describe('what each endpoint is asked for and may send', () => {
  it('the lists are those the collectors and the directory read, each with one bound however many read it', () => {
    expect([...ENDPOINT_ROWS.keys()].sort()).toEqual(['markets', 'markets_data', 'networkhistory_segments', 'parties', 'positions', 'rotations', 'signatures']);
    for (const d of ENDPOINT_DECLARATIONS) for (const [name, r] of Object.entries(d)) expect(r, name).toBe(ENDPOINT_ROWS.get(name));
    expect(isList('statistics')).toBe(false);
    expect(isList('markets')).toBe(true);
  });

  it('pages never above the size the bound is sized for; strings and keys per endpoint', () => {
    expect(pageRows(row('markets')!, 5000)).toBe(500);
    expect(pageRows(row('markets')!, 100)).toBe(100);
    expect(pageRows(row('rotations')!, 5000)).toBe(5000);
    expect(pageRows(row('positions')!, 5000)).toBe(1000);
    // v0.79: ids are 64 hex characters, a signature 88 base64; a market carries an ABI as text.
    expect(bodyBound(row('rotations'), 5000, 32 << 20)).toMatchObject({ string: 1024, keys: 128 });
    expect(bodyBound(row('signatures'), 5000, 32 << 20)).toMatchObject({ string: 1024 });
    expect(bodyBound(row('positions'), 5000, 32 << 20)).toMatchObject({ string: 1024 });
    expect(bodyBound(row('markets'), 500, 32 << 20)).toMatchObject({ string: 8192, keys: 512, containers: 500 * 80 + 2000 });
    expect(bodyBound(row('statistics'), undefined, 32 << 20)).toMatchObject({ string: 4096, keys: 256 });
    // One market by id: a one-row bound, not an unpaginated list's.
    expect(bodyBound(row('markets'), 1, 32 << 20).bytes).toBe(16 * 1024 + 256 * 1024);
  });

  it('the contract fixtures fit their endpoint: every string and key count within the bound', () => {
    const fixtures = [
      ['markets.json', 'markets'],
      ['api-v2-markets.json', 'markets'],
      ['api-v2-market.json', 'markets'],
      ['markets-data.json', 'markets_data'],
      ['positions.json', 'positions'],
      ['parties.json', 'parties'],
      ['vega-keys-rotations.json', 'rotations'],
      ['node-signatures.json', 'signatures'],
      ['networkhistory-segments.json', 'networkhistory_segments'],
      ['statistics.json', 'statistics'],
      ['epoch.json', 'epoch'],
      ['network-data.json', 'network_data'],
      ['asset.json', 'assets'],
      ['order.json', 'orders'],
      ['networkhistory.json', 'networkhistory'],
    ] as const;
    for (const [file, endpoint] of fixtures) {
      const body = readFileSync(`test/contract/fixtures/${file}`);
      expect(() => checkShape(body, bodyBound(row(endpoint), undefined, 32 << 20), endpoint), file).not.toThrow();
    }
  });

  it('a walk keeps at most its byte budget of ids and strings across pages, then fails with a coded error', () => {
    const held = new KeptBytes('signatures', 100);
    held.keep('a'.repeat(60), 'b'.repeat(40));
    expect(held.total).toBe(100);
    let err: { code?: string; message?: string } = {};
    try {
      held.keep('c');
    } catch (e) {
      err = e as typeof err;
    }
    expect(err).toMatchObject({ code: 'UPSTREAM_LIST_TOO_LARGE' });
    expect(err.message).toMatch(/^signatures: the list's rows hold more than 100 bytes/);
    const rows = new KeptBytes('markets', 10);
    rows.keepRow({ id: 'abcd', tags: ['ef', 'gh'], n: 5, nested: { s: 'ij' } });
    expect(rows.total).toBe(10);
    expect(() => rows.keepRow({ k: 'x' })).toThrow(/more than 10 bytes/);
    expect(WALK_KEPT_BYTES).toBe(8 * 1024 * 1024);
  });
});

describe('dense JSON under the byte cap is refused with a coded error before it is parsed', () => {
  it('30 MB of {} to /statistics, 16 M levels of nesting to a markets page, 3 M empty rows in marketsData', async () => {
    const empties = (n: number): string => `[${'{},'.repeat(n - 1)}{}]`;
    const bodies = {
      statistics: Buffer.from(`{"statistics":${empties(10_000_000)}}`),
      markets: Buffer.from(`{"markets":${'['.repeat(16_000_000)}${']'.repeat(16_000_000)}}`),
      marketsData: Buffer.from(`{"marketsData":${empties(3_000_000)}}`),
    };
    const { client } = await node({
      '/statistics': (_q, res) => json(res, bodies.statistics),
      '/api/v2/markets/data': (_q, res) => json(res, bodies.marketsData),
      '/markets': (_q, res) => json(res, bodies.markets),
    });
    const cases = [
      // Scanned as it arrives: refused at its 1,001st element, long before its byte cap.
      ['/statistics', 'statistics', /an array of more than 1000 elements/],
      ['/markets', 'markets', /nests deeper than 32 levels/],
      ['/api/v2/markets/data', 'markets_data', /an array of more than 5000 elements/],
    ] as const;
    // Refused before it is parsed: JSON.parse never sees one of these bodies.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const [path, endpoint, message] of cases) {
        const err = await failure(client.get(path, [], endpoint, AbortSignal.timeout(60_000)));
        expect(err, path).toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' });
        expect(err.message, path).toMatch(message);
      }
      expect(parse.mock.calls.filter(([text]) => text.length > 1_000_000)).toEqual([]);
    } finally {
      parse.mockRestore();
    }
  }, 60_000);

  it('a page of 150,000 rows fails the markets collector with a coded error, not a stack overflow', async () => {
    const rows = `[${'{"node":{}},'.repeat(149_999)}{"node":{}}]`;
    const { client } = await node({
      '/api/v2/markets': (_q, res) => json(res, `{"markets":{"edges":${rows},"pageInfo":{"hasNextPage":false,"endCursor":""}}}`),
    });
    const c = new MarketsCollector({ maxMarkets: 500, allow: [], countsOnly: true }, new Directory());
    expect(await failure(c.collect(ctx(client)))).toMatchObject({ code: 'UPSTREAM_BODY_TOO_LARGE' });
  });

  it('20,000 bad rows given at once are skipped and counted, in a bounded list', async () => {
    const skips = new RowSkips();
    await marketsSamples(
      't',
      Array.from({ length: 20_000 }, (_, i) => (i % 2 ? {} : { id: i })),
      { maxMarkets: 500, allow: [], countsOnly: false },
      skips,
    );
    expect(skips.total).toBe(20_000);
    expect(skips.list.length).toBeLessThanOrEqual(64);
    expect(skips.list.reduce((n, s) => n + (s.rows ?? 1), 0)).toBe(20_000);
  });
});

describe('pages processed as they come', () => {
  /** A list that never ends: `size` valid markets a page, each page's cursor new. */
  function endless(size: number) {
    return (req: { url?: string }, res: Parameters<typeof json>[0]) => {
      const after = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('pagination.after') ?? 0);
      const edges = Array.from({ length: size }, (_, i) => ({ node: market(hex64(after * size + i)), cursor: String(after + 1) }));
      json(res, JSON.stringify({ markets: { edges, pageInfo: { hasNextPage: true, endCursor: String(after + 1) } } }));
    };
  }

  it('the markets walk keeps no market past the guard, and stops past MAX_MARKETS markets', async () => {
    const { node: n, client } = await node({ '/api/v2/markets': endless(MARKETS_PAGE) });
    const r = await new MarketsCollector({ maxMarkets: 7, allow: [], countsOnly: false }, new Directory()).collect(ctx(client, 5000, 100));
    // Pages of MARKETS_PAGE however large http.page_size; the page that passes MAX_MARKETS is the last (before: all 100).
    const pages = Math.floor(MAX_MARKETS / MARKETS_PAGE) + 1;
    expect(n.counts.get('/api/v2/markets')).toBe(pages);
    expect(r).toMatchObject({ pages, truncated: 'row_cap' });
    expect(r.samples.find((s) => s.metric.name === 'datanode_exporter_markets_over_limit')?.value).toBe(1);
    expect(r.samples.filter((s) => s.metric.name === 'vega_markets').reduce((a, s) => a + s.value, 0)).toBe(pages * MARKETS_PAGE);
    expect(r.samples.filter((s) => s.metric.name === 'vega_market_info')).toHaveLength(0);
  }, 60_000);

  it('a list that ends on the page that passes the guard is complete, not truncated', async () => {
    const edges = Array.from({ length: 10 }, (_, i) => ({ node: market(hex64(i)), cursor: 'c' }));
    const { client } = await node({
      '/api/v2/markets': (_q, res) => json(res, JSON.stringify({ markets: { edges, pageInfo: { hasNextPage: false, endCursor: 'c' } } })),
    });
    const r = await new MarketsCollector({ maxMarkets: 7, allow: [], countsOnly: false }, new Directory()).collect(ctx(client, 100));
    expect(r).toMatchObject({ pages: 1, truncated: undefined });
    expect(r.samples.find((s) => s.metric.name === 'datanode_exporter_markets_over_limit')?.value).toBe(1);
  });

  it('positions look up at most LOOKUPS_PER_POLL unknown markets a poll', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      node: {
        marketId: hex64(i, 'd'),
        partyId: hex64(1, 'c'),
        openVolume: '1',
        realisedPnl: '0',
        unrealisedPnl: '0',
        averageEntryPrice: '1',
        lossSocialisationAmount: '0',
        positionStatus: 'POSITION_STATUS_UNSPECIFIED',
        updatedAt: '0',
      },
      cursor: 'c',
    }));
    // Unknown paths, the market lookups among them, are 404 with a node error.
    const { node: n, client } = await node({
      '/api/v2/positions': (_q, res) => json(res, JSON.stringify({ positions: { edges: rows, pageInfo: { hasNextPage: false, endCursor: '' } } })),
    });
    const r = await new PositionsCollector([hex64(1, 'c')], [], new Directory()).collect(ctx(client));
    const lookups = [...n.counts].filter(([p]) => p.startsWith('/api/v2/market/')).reduce((a, [, c]) => a + c, 0);
    expect(lookups).toBe(LOOKUPS_PER_POLL); // before: 30
    expect(new Set(r.samples.map((s) => s.values[1]))).toHaveLength(30); // every position still exported
  });
});

describe('the market directory is bounded', () => {
  it('holds at most MAX_MARKETS markets, from a markets poll and from lookups while the markets collector is away', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => hex64(i, 'b'));
    const { client } = await node(
      Object.fromEntries(ids.map((id) => [`/api/v2/market/${id}`, (_q, res) => json(res, JSON.stringify({ market: market(id) }))])),
    );
    const d = new Directory();
    d.setMarkets(Array.from({ length: MAX_MARKETS + 5_000 }, (_, i) => ({ id: hex64(i), decimalPlaces: 0, positionDecimalPlaces: 0, settlementAsset: '' })));
    expect(d.markets.size).toBe(MAX_MARKETS);
    for (const id of ids) expect(await d.market(client, id, AbortSignal.timeout(10_000))).toMatchObject({ id });
    expect(d.markets.size).toBe(MAX_MARKETS); // before: 15,020
    expect(d.markets.has(ids[19]!)).toBe(true);
  });
});
