/**
 * The legacy GET /markets is asked once per target: any answer but a valid 200 moves that target to
 * /api/v2/markets for the rest of the collector's life (a real data node answers 404); a node that
 * serves it is asked it again. Against a node of the tests' own over HTTP, counting requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/exporter/http/client.js';
import { MarketsCollector } from '../../../../src/exporter/vega/collectors/markets.js';
import { Directory } from '../../../../src/exporter/vega/directory.js';
import { clientOptions } from '../../../helpers/client-options.js';
import { hex64, hostileNode, json, market, type HostileNode } from '../../../helpers/hostile.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});

const MARKETS = [market(hex64(1)), market(hex64(2))];
const V2 = JSON.stringify({
  markets: { edges: MARKETS.map((node, i) => ({ node, cursor: String(i + 1) })), pageInfo: { hasNextPage: false, endCursor: '2' } },
});
const LEGACY_OK = JSON.stringify({ markets: MARKETS });

/** A node whose GET /markets answers with `legacy`, and whose /api/v2/markets lists the same two markets. */
async function node(legacy: (res: Parameters<typeof json>[0]) => void): Promise<HostileNode> {
  const n = await hostileNode({ '/markets': (_req, res, path) => (path === '/markets' ? legacy(res) : json(res, V2)) });
  cleanup.push(n.close);
  return n;
}

function client(url: string): HttpClient {
  const c = new HttpClient(clientOptions(url, { retries: 0 }));
  cleanup.push(() => c.close());
  return c;
}

/** `polls` polls of one collector; each poll's count of active markets. */
async function poll(collector: MarketsCollector, c: HttpClient, polls: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < polls; i++) {
    const r = await collector.collect({ target: 'net', client: c, signal: AbortSignal.timeout(10_000), pageSize: 500, maxPages: 10 });
    out.push(r.samples.filter((s) => s.metric.name === 'vega_markets').reduce((a, s) => a + s.value, 0));
  }
  return out;
}

const collector = (): MarketsCollector => new MarketsCollector({ maxMarkets: 100, allow: [], countsOnly: false }, new Directory());

describe('legacy GET /markets', () => {
  const refusals: [string, (res: Parameters<typeof json>[0]) => void][] = [
    ['404 (a data node)', (res) => json(res, '{"code":5,"message":"Not Found","details":[]}', 404)],
    ['500', (res) => json(res, '{"code":13,"message":"internal"}', 500)],
    ['200 that is not JSON', (res) => json(res, 'not json')],
    ['200 without a markets list', (res) => json(res, '{"markets":{"edges":[]}}')],
    ['200 beyond its bound', (res) => json(res, `{"markets":[],"pad":"${'x'.repeat(1024 * 1024)}"}`)],
  ];
  for (const [what, answer] of refusals) {
    it(`answered ${what}: asked once, then /api/v2/markets for every poll`, async () => {
      const n = await node(answer);
      expect(await poll(collector(), client(n.url), 3)).toEqual([2, 2, 2]);
      expect(n.counts.get('/markets')).toBe(1);
      expect(n.counts.get('/api/v2/markets')).toBe(3);
    });
  }

  it('no answer (the connection dropped): the poll fails and /markets is asked again at the next one', async () => {
    let answered = false;
    const n = await node((res) => (answered ? json(res, '{"code":5,"message":"Not Found","details":[]}', 404) : res.socket!.destroy()));
    const c = client(n.url);
    const first = collector();
    await expect(poll(first, c, 1)).rejects.toThrow();
    answered = true;
    expect(await poll(first, c, 2)).toEqual([2, 2]);
    expect(n.counts.get('/markets')).toBe(2);
    expect(n.counts.get('/api/v2/markets')).toBe(2);
  });

  it('answered with a valid 200: asked on every poll, /api/v2/markets never', async () => {
    const n = await node((res) => json(res, LEGACY_OK));
    expect(await poll(collector(), client(n.url), 3)).toEqual([2, 2, 2]);
    expect(n.counts.get('/markets')).toBe(3);
    expect(n.counts.get('/api/v2/markets')).toBeUndefined();
  });

  it("remembered per target: each target a network's collector borrows is asked once", async () => {
    const n = await node((res) => json(res, '{"code":5,"message":"Not Found","details":[]}', 404));
    const a = client(n.url);
    const b = client(n.url);
    const first = collector();
    await poll(first, a, 2);
    await poll(first, b, 2);
    await poll(first, a, 2);
    expect(n.counts.get('/markets')).toBe(2);
    expect(n.counts.get('/api/v2/markets')).toBe(6);
  });
});
