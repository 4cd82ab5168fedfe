import { createHash } from 'node:crypto';
/**
 * Property-based tests: random and mutated responses for every endpoint go through the converters
 * and collectors. Nothing may escape but an ExporterError (which fails that collector cleanly), and
 * whatever samples come out must render to valid exposition text (checked by our parser here and by
 * promtool on the whole corpus).
 */
import { renderStore } from '../helpers/render.js';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRotation } from '../../src/exporter/vega/collectors/key-rotations.js';
import { marketsSamples } from '../../src/exporter/vega/collectors/markets.js';
import { networkHistorySamples } from '../../src/exporter/vega/collectors/network-history.js';
import { orderSamples } from '../../src/exporter/vega/collectors/orders.js';
import { parsePosition, positionSamples } from '../../src/exporter/vega/collectors/positions.js';
import { statisticsFacts, statisticsSamples } from '../../src/exporter/vega/collectors/statistics.js';
import { ExporterError } from '../../src/exporter/errors.js';
import type { Sample } from '../../src/exporter/engine/labels.js';
import { SeriesStore } from '../../src/exporter/engine/store.js';
import { SimNetwork } from '@datanode-exporter/simulator/network';
import { marketJson, networkHistoryJson, orderJson, positionJson, rotationJson, statisticsJson } from '@datanode-exporter/simulator/records';
import { parseExposition } from '../helpers/expo.js';

const net = new SimNetwork({ seed: 5, now: () => Date.UTC(2026, 0, 1), markets: 6, positions: 6, parties: 3, orders: 3 });

/** Valid bodies as real nodes send them: the starting points for mutation. */
const VALID: Record<string, unknown> = {
  statistics: { statistics: statisticsJson(net) },
  networkhistory: networkHistoryJson(net),
  rotation: rotationJson(net.rotations[0]!),
  markets: net.markets.map((m) => marketJson(m)),
  position: positionJson(net.positions[0]!),
  order: { order: orderJson(net.orders[0]!, net.orders[0]!.versions[0]!) },
};

/** Every path to a value inside a JSON document. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

function setAt(doc: unknown, path: (string | number)[], value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let cur = copy;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove && !Array.isArray(cur)) delete cur[last];
  else cur[last] = value;
  return copy;
}

/** Hostile leaf values: wrong types, huge numbers, odd strings (quotes, newlines, non-ASCII). */
const leaf = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '18446744073709551616',
    '9007199254740993',
    '1e400',
    'NaN',
    '0001-01-01T00:00:00Z',
    '2024-13-45T99:99:99Z',
    'a"b\\c\nd',
    'é\u2028\u{1F600}',
    'x'.repeat(5000),
  ),
  fc.constantFrom(null, true, 1e308, -0, Number.MAX_SAFE_INTEGER + 2),
  fc.string({ unit: 'grapheme' }),
);

const mutated = (doc: unknown): fc.Arbitrary<unknown> =>
  fc
    .array(fc.tuple(fc.constantFrom(...paths(doc)), leaf, fc.boolean()), { minLength: 1, maxLength: 4 })
    .map((muts) => muts.reduce((d, [p, v, rm]) => (paths(d).some((q) => q.join('/') === p.join('/')) ? setAt(d, p, v, rm) : d), doc));

const corpus = new SeriesStore();
let corpusN = 0;

/** Run a pure collector function: only ExporterError may escape; samples must render validly. */
async function check(run: () => Sample[] | Promise<Sample[]>): Promise<void> {
  let samples: Sample[];
  try {
    samples = await run();
  } catch (err) {
    expect(err).toBeInstanceOf(ExporterError);
    return;
  }
  for (const s of samples) expect(typeof s.value).toBe('number');
  const store = new SeriesStore();
  store.set({ scope: 'target', id: 'x', source: 'test' }, samples, 0, Infinity);
  const text = await renderStore(store);
  const parsed = parseExposition(text); // throws on any malformed line
  expect(parsed.length).toBe(samples.length);
  // Keep some outputs for one promtool run at the end (each under its own target, so no duplicates).
  if (corpusN++ % 10 === 0)
    corpus.set(
      { scope: 'target', id: `k${corpusN}`, source: 'fuzz' },
      samples.map((s) => ({ ...s, values: [`t${corpusN}`, ...s.values.slice(1)] })),
      0,
      Infinity,
    );
}

const headers = fc.record({
  'x-block-height': fc.option(fc.oneof(fc.string(), fc.constantFrom('0', '18591101', '99999999999999999999')), { nil: undefined }),
  'x-block-timestamp': fc.option(fc.string(), { nil: undefined }),
});
const RUNS = 300;

describe('property: nothing escapes but ExporterError, and output is valid exposition text', () => {
  it('statistics: mutated bodies and random headers', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(VALID.statistics), headers, async (body, h) => {
        await check(() => statisticsSamples('t', body, h));
        await check(() => {
          statisticsFacts(body, h);
          return [];
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('statistics: arbitrary JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => check(() => statisticsSamples('t', body, {}))),
      { numRuns: RUNS },
    );
  });

  it('network history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(VALID.networkhistory), fc.jsonValue()), async (body) => check(() => networkHistorySamples('t', body))),
      { numRuns: RUNS },
    );
  });

  it('key rotations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(VALID.rotation), fc.jsonValue()), async (node) =>
        check(() => {
          parseRotation(node, 'node');
          return [];
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('markets (every per-market series)', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(VALID.markets), async (markets) =>
        check(() =>
          marketsSamples('t', Array.isArray(markets) ? (markets as Record<string, unknown>[]) : [], { maxMarkets: 100, allow: [], countsOnly: false }),
        ),
      ),
      { numRuns: RUNS },
    );
  });

  it('positions', async () => {
    const facts = { id: 'm', decimalPlaces: 3, positionDecimalPlaces: -2, settlementAsset: 'a' };
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(VALID.position), fc.jsonValue()), fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }), async (node, dec) =>
        check(() => positionSamples('t', parsePosition(node, 'p'), facts, dec)),
      ),
      { numRuns: RUNS },
    );
  });

  it('orders', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(VALID.order), fc.jsonValue()), async (body) =>
        check(() => orderSamples('t', body, 3, { id: 'm', decimalPlaces: 5, positionDecimalPlaces: 0, settlementAsset: 'a' })),
      ),
      { numRuns: RUNS },
    );
  });

  it('label values with quotes, backslashes, newlines and non-ASCII are escaped correctly; control characters replaced, the value kept apart', async () => {
    // NUL, ESC and the other C0 controls but tab and newline, DEL and C1: each shown as U+FFFD, and
    // the value suffixed with `~` and 16 hex digits of its SHA-256 (as a long value is).
    const control = (c: number): boolean => (c < 0x20 && c !== 9 && c !== 10) || (c >= 0x7f && c <= 0x9f);
    const exported = (v: string): string =>
      [...v].some((ch) => control(ch.charCodeAt(0)))
        ? `${[...v].map((ch) => (control(ch.charCodeAt(0)) ? '\ufffd' : ch)).join('')}~${createHash('sha256').update(v).digest('hex').slice(0, 16)}`
        : v;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 20 }), async (weird) => {
        const body = structuredClone(VALID.statistics) as { statistics: Record<string, unknown> };
        body.statistics.appVersion = weird;
        body.statistics.chainId = `${weird}"\\\n`;
        const samples = statisticsSamples('t', body, {});
        const store = new SeriesStore();
        store.set({ scope: 'target', id: 'x', source: 'test' }, samples, 0, Infinity);
        const info = parseExposition(await renderStore(store)).find((s) => s.name === 'vega_build_info')!;
        expect(info.labels.app_version).toBe(exported(weird));
        expect(info.labels.chain_id).toBe(exported(`${weird}"\\\n`));
        corpus.set(
          { scope: 'target', id: `w${corpusN++}`, source: 'fuzz' },
          samples.filter((s) => s.metric.name === 'vega_build_info').map((s) => ({ ...s, values: [`w${corpusN}`, ...s.values.slice(1)] })),
          0,
          Infinity,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('promtool accepts everything the properties produced', async () => {
    const r = spawnSync('promtool', ['check', 'metrics'], { input: await renderStore(corpus), encoding: 'utf8' });
    if (r.error) throw new Error(`promtool is required: ${r.error.message}`);
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(corpus.seriesCount()).toBeGreaterThan(100);
  });
});
