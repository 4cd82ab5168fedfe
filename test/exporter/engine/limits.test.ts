import { describe, expect, it } from 'vitest';
import { M } from '../../helpers/metrics.js';
import { capLabel, toSeries } from '../../../src/exporter/engine/labels.js';
import { Exposition } from '../../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { CATALOGUE, TEST_BUILD } from '../../helpers/render.js';
import { parseExposition } from '../../helpers/expo.js';
import { EnumLabels, oneHot } from '../../../src/exporter/vega/scale.js';

describe('label values are capped', () => {
  it('a long value is cut to the cap with a hash suffix; two long values never collide; short ones are untouched', () => {
    const a = `${'x'.repeat(40_000)}a`;
    const b = `${'x'.repeat(40_000)}b`;
    expect(Buffer.byteLength(capLabel(a, 128))).toBeLessThanOrEqual(128);
    expect(capLabel(a, 128)).not.toBe(capLabel(b, 128));
    expect(capLabel(a, 128)).toBe(capLabel(a, 128));
    expect(capLabel('short', 128)).toBe('short');
    const multi = 'é'.repeat(200); // 2 bytes each: cut on a character boundary
    expect(Buffer.byteLength(capLabel(multi, 128))).toBeLessThanOrEqual(128);
    expect(capLabel(multi, 128)).toMatch(/^é+~[0-9a-f]{16}$/);
  });

  it("a value in a capped value's form is hashed too: it never equals another value's capped form", () => {
    const long = 'y'.repeat(300);
    const form = capLabel(long, 128);
    expect(form).toMatch(/^y{111}~[0-9a-f]{16}$/);
    // A node sending that form as an id of its own: exported hashed, not as sent.
    expect(capLabel(form, 128)).not.toBe(form);
    expect(capLabel(form, 128)).toMatch(/^y{111}~[0-9a-f]{16}$/);
    expect(capLabel('m~0123456789abcdef', 128)).toMatch(/^m~0123456789abcdef~[0-9a-f]{16}$/);
    // Not that form: upper-case hex, 15 digits, no tilde.
    for (const v of ['m~0123456789ABCDEF', 'm~0123456789abcde', 'm0123456789abcdef0']) expect(capLabel(v, 128)).toBe(v);
  });

  it('two samples that come to share a series through capping give one series', () => {
    const id = 'i'.repeat(5000);
    const series = toSeries([
      { metric: M.marketState, values: ['net', id, 'STATE_ACTIVE'], value: 1 },
      { metric: M.marketState, values: ['net', id, 'STATE_ACTIVE'], value: 0 },
      { metric: M.marketState, values: ['net', id, 'STATE_CLOSED'], value: 0 },
    ]).get(M.marketState)!;
    expect(series.map((s) => [s.labels.state, s.value])).toEqual([
      ['STATE_ACTIVE', 1],
      ['STATE_CLOSED', 0],
    ]);
  });

  it('stored series carry capped values', () => {
    const [v] = toSeries([{ metric: M.marketInfo, values: ['net', 'i'.repeat(5000), 'c', 'n', 'future', 'a', 'q', 't'], value: 1 }]).get(M.marketInfo)!;
    expect(v!.labels.market_id).toMatch(/^i{111}~[0-9a-f]{16}$/);
    expect(v!.labels.network).toBe('net');
  });
});

describe('series identity', () => {
  // Label values that, joined as `name:value,` pairs without escaping, spell the same key.
  const a = { network: 'n', market_id: 'b', code: 'C,market_id:a', name: 'N', product: 'future', settlement_asset: 's', quote_name: 'q', tags: '' };
  const b = { ...a, market_id: 'a,market_id:b', code: 'C' };
  const names = ['network', 'market_id', 'code', 'name', 'product', 'settlement_asset', 'quote_name', 'tags'] as const;

  it.each(['text', 'openmetrics'] as const)('two series whose label values join to the same text stay two series (%s)', async (format) => {
    const store = new SeriesStore();
    store.set(
      { scope: 'network', id: 'n', source: 'markets' },
      [a, b].map((l, i) => ({ metric: M.marketInfo, values: names.map((k) => l[k]), value: i + 1 })),
      0,
      Infinity,
    );
    const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => 2 });
    const body = (await expo.body(format)).plain.toString();
    const info = parseExposition(body).filter((s) => s.name === 'vega_market_info');
    expect(info.map((s) => [s.labels, s.value])).toEqual([
      [a, 1],
      [b, 2],
    ]);
    expo.stop();
  });

  it('NUL, ESC and other control characters never reach the body; two names differing only there stay apart', async () => {
    const store = new SeriesStore();
    const names2 = ['evil\u0000name', 'evil\u001b[2Jname', 'evil\u009bname'];
    store.set(
      { scope: 'network', id: 'n', source: 'markets' },
      names2.map((n, i) => ({ metric: M.marketInfo, values: names.map((k) => (k === 'name' ? n : a[k])), value: i })),
      0,
      Infinity,
    );
    const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => 3 });
    for (const format of ['text', 'openmetrics'] as const) {
      const body = (await expo.body(format)).plain.toString();
      expect([...body].filter((ch) => /[\p{Cc}]/u.test(ch) && ch !== '\n')).toEqual([]);
      const shown = parseExposition(body)
        .filter((s) => s.name === 'vega_market_info')
        .map((s) => s.labels.name);
      expect(new Set(shown).size).toBe(3);
      for (const v of shown) expect(v).toMatch(/^evil\ufffd(\[2J)?name~[0-9a-f]{16}$/);
    }
    expo.stop();
  });
});

describe('the rendered body is capped', () => {
  it('families past limits.metrics_body_bytes are left out and datanode_exporter_metrics_truncated says so', async () => {
    const store = new SeriesStore();
    let told = 0;
    const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => 0, onTruncated: () => void told++ });
    expo.setLimit(64 * 1024);
    store.set({ scope: 'target', id: 't', source: 'statistics' }, [{ metric: M.peers, values: ['t'], value: 7 }], 0, Infinity);
    store.set(
      { scope: 'network', id: 'n', source: 'markets' },
      Array.from({ length: 3000 }, (_, i) => ({ metric: M.marketDecimals, values: ['n', `m${i}`], value: 1 })),
      0,
      Infinity,
    );
    const body = (await expo.body('text')).plain.toString();
    expect(body.length).toBeLessThanOrEqual(64 * 1024);
    expect(body).toContain('datanode_exporter_metrics_truncated 1');
    expect(body).not.toContain('vega_market_decimal_places{');
    expect(body).toContain('vega_peers{target="t"} 7');
    expect(told).toBe(1);
    expo.stop();
  });
});

describe('enum labels', () => {
  it('known values, a few unknown ones by name, then other', () => {
    const e = new EnumLabels(['A', 'B'], 2);
    expect(['A', 'X', 'Y', 'Z', 'X', 'W'].map((v) => e.label(v))).toEqual(['A', 'X', 'Y', 'other', 'X', 'other']);
    expect(oneHot(['A', 'B'], 'Z', e)).toEqual([
      ['A', 0],
      ['B', 0],
      ['other', 1],
    ]);
  });
});
