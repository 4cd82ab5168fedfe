/**
 * Every upstream-supplied label is capped: HTTP statuses by class beyond the
 * ones the client handles apart, signature kinds and price-bound horizons past a few unknown ones
 * go to `other`. Against a hostile node of the tests' own where a request is involved.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { marketDataRow, MAX_HORIZONS } from '../../../../src/exporter/vega/collectors/market-data.js';
import { NodeSignaturesCollector } from '../../../../src/exporter/vega/collectors/node-signatures.js';
import { HttpClient } from '../../../../src/exporter/http/client.js';
import { ENDPOINT_ROWS } from '../../../../src/exporter/vega/endpoints.js';
import { EnumLabels, MAX_UNKNOWN_ENUM_VALUES } from '../../../../src/exporter/vega/scale.js';
import { MARKET_STATE, TRADING_MODE } from '../../../../src/shared/enums.js';
import { hex64, hostileNode, json } from '../../../helpers/hostile.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});

async function client(routes: Parameters<typeof hostileNode>[0], onRequest?: (e: string, s: string) => void): Promise<HttpClient> {
  const n = await hostileNode(routes);
  const c = new HttpClient({
    url: n.url,
    headers: {},
    connectTimeoutMs: 2000,
    headersTimeoutMs: 5000,
    bodyTimeoutMs: 5000,
    requestTimeoutMs: 5000,
    maxResponseBytes: 1 << 20,
    lists: ENDPOINT_ROWS,
    requestsPerSecond: 1000,
    burst: 1000,
    retries: 0,
    ...(onRequest ? { onRequest } : {}),
  });
  cleanup.push(n.close, () => c.close());
  return c;
}

describe('label caps', () => {
  it('HTTP statuses: the handled ones by code, every other by its class', async () => {
    const codes = [200, 206, 299, 404, 418, 420, 451, 499, 429, 500, 507, 599];
    let next = 0;
    const seen: string[] = [];
    const c = await client({ '/statistics': (_q, res) => json(res, '{}', codes[next++]) }, (_e, s) => seen.push(s));
    for (let i = 0; i < codes.length; i++) await c.get('/statistics', [], 'statistics', AbortSignal.timeout(5000)).catch(() => {});
    expect(seen).toEqual(['200', '2xx', '2xx', '404', '4xx', '4xx', '4xx', '4xx', '429', '500', '5xx', '5xx']);
  });

  it('signature kinds: the known ones, a few unknown by name, then other', async () => {
    const id = hex64(1);
    const edges = Array.from({ length: 40 }, (_, i) => ({
      node: { id, sig: `s${i}`, kind: i < 10 ? 'NODE_SIGNATURE_KIND_ASSET_NEW' : `KIND_${i}` },
      cursor: String(i),
    }));
    const c = await client({
      '/api/v2/node/signatures': (_q, res) => json(res, JSON.stringify({ signatures: { edges, pageInfo: { hasNextPage: false, endCursor: '' } } })),
    });
    const r = await new NodeSignaturesCollector([id]).collect({ target: 'net', client: c, signal: AbortSignal.timeout(5000), pageSize: 100, maxPages: 5 });
    const kinds = r.samples.filter((s) => s.metric.name === 'vega_node_signatures').map((s) => [s.values[2], s.value]);
    // 1 known kind + 8 unknown by name + other (22 signatures); before: 31 kinds.
    expect(kinds).toHaveLength(1 + MAX_UNKNOWN_ENUM_VALUES + 1);
    expect(Object.fromEntries(kinds)).toMatchObject({ NODE_SIGNATURE_KIND_ASSET_NEW: 10, KIND_10: 1, other: 30 - MAX_UNKNOWN_ENUM_VALUES });
  });

  it('price-bound horizons: a few by name, then one other pair', () => {
    const row = JSON.parse(readFileSync('test/contract/fixtures/markets-data.json', 'utf8')).marketsData[0];
    row.priceMonitoringBounds = Array.from({ length: 100 }, (_, i) => ({
      minValidPrice: '1',
      maxValidPrice: '2',
      trigger: { horizon: String(60 + i), probability: '0.99', auctionExtension: '1' },
    }));
    const enums = { state: new EnumLabels(MARKET_STATE), mode: new EnumLabels(TRADING_MODE), trigger: new EnumLabels([]) };
    const samples = marketDataRow(
      'net',
      row,
      'marketsData[0]',
      { market: { id: row.market, decimalPlaces: 0, positionDecimalPlaces: 0, settlementAsset: '' } },
      enums,
    );
    const horizons = new Set(samples.filter((s) => s.metric.name === 'vega_market_price_monitoring_bound').map((s) => s.values[2]));
    expect(horizons.size).toBe(MAX_HORIZONS + 1); // before: 100
    expect(horizons.has('other')).toBe(true);
  });
});
