/**
 * No series twice in one body: every sample line of the whole rendered `/metrics` (both formats)
 * is parsed and its name and label set compared with every other's. Against the simulator with
 * every collector on, and against a hostile node of the test's own whose ids collide with each
 * other's capped label form (a long id cut to 111 bytes + `~` + 16 hex of its SHA-256, the form
 * docs/reliability.md states for a 128-byte cap).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseExposition, scrape } from '../helpers/expo.js';
import { hostileNode, json, market } from '../helpers/hostile.js';
import { lifecycle } from '../helpers/lifecycle.js';

const life = lifecycle();

/** Every (name, label set) that appears on more than one sample line. */
function duplicates(text: string): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const s of parseExposition(text)) {
    const key = `${s.name}${JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
    if (seen.has(key)) dup.push(key);
    seen.add(key);
  }
  return dup;
}

async function bodies(url: string): Promise<{ text: string; openmetrics: string }> {
  const text = (await scrape(url)).text;
  const res = await fetch(`${url}/metrics`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
  expect(res.headers.get('content-type')).toMatch(/openmetrics/);
  return { text, openmetrics: await res.text() };
}

describe('no duplicate series in a body', () => {
  it('the simulator, every collector on', async () => {
    const s = await life.sim({ seed: 62, markets: 12, parties: 30, positions: 80, signatureResources: 2, rotations: 30, oddLabels: true });
    const e = await life.exporter(s.url, {
      collectors: {
        positions: { party_ids: s.net.parties.slice(0, 5).map((p) => p.id) },
        parties: { enabled: true, party_ids: [s.net.parties[0]!.id] },
        node_signatures: { ids: [...s.net.signatures.keys()] },
        orders: { ids: s.net.orders.slice(0, 5).map((o) => o.id) },
      },
    });
    await e.poll();
    const { text, openmetrics } = await bodies(e.url);
    expect(parseExposition(text).length).toBeGreaterThan(1000); // the body is the whole exposition
    expect(duplicates(text)).toEqual([]);
    expect(duplicates(openmetrics)).toEqual([]);
  });

  it('a hostile node whose ids equal other ids capped label form', async () => {
    const long = `${'a'.repeat(150)}`;
    // The capped form of `long` at the default 128-byte cap, computed from the documented rule.
    const capped = `${'a'.repeat(111)}~${createHash('sha256').update(long).digest('hex').slice(0, 16)}`;
    const ids = [long, capped];
    const data = JSON.parse(readFileSync(new URL('../contract/fixtures/markets-data.json', import.meta.url), 'utf8')).marketsData[0];
    const node = await hostileNode({
      '/markets/data': (_q, res) => json(res, JSON.stringify({ marketsData: ids.map((id) => ({ ...data, market: id })) })),
      '/markets': (_q, res) => json(res, JSON.stringify({ markets: ids.map((id) => market(id)) })),
    });
    life.defer(node.close);
    const e = await life.exporter(node.url, {
      collectors: {
        key_rotations: { enabled: false },
        network_history: { enabled: false },
        history_segments: { enabled: false },
        consistency: { enabled: false },
        // Both ids listed: the node answers 404 for each, one series each.
        orders: { ids },
        parties: { enabled: true, party_ids: ids },
      },
    });
    await e.poll();
    const { text, openmetrics } = await bodies(e.url);
    expect(duplicates(text)).toEqual([]);
    expect(duplicates(openmetrics)).toEqual([]);
    const m = parseExposition(text);
    // Both markets are there, under two distinct label values, and the short id as it was sent.
    const marketIds = new Set(m.filter((x) => x.name === 'vega_market_info').map((x) => x.labels.market_id));
    expect(marketIds.size).toBe(2);
    expect(marketIds.has(capped)).toBe(true);
    expect(new Set(m.filter((x) => x.name === 'vega_market_data_price').map((x) => x.labels.market_id)).size).toBe(2);
    expect(new Set(m.filter((x) => x.name === 'vega_order_found').map((x) => x.labels.order_id)).size).toBe(2);
  });
});
