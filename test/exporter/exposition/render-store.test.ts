import { describe, expect, it } from 'vitest';
import { M } from '../../../src/exporter/exposition/catalogue.js';
import { escapeLabel, formatValue, sampleLine } from '../../../src/exporter/exposition/render.js';
import { FAST_GZIP_FROM_BYTES, SeriesStore, gzipBody } from '../../../src/exporter/exposition/store.js';
import { constants, gunzipSync, gzipSync } from 'node:zlib';

describe('render', () => {
  it('escapes label values: backslash, quote, newline; keeps non-ASCII', () => {
    expect(escapeLabel('a\\b"c\nd é')).toBe('a\\\\b\\"c\\nd é');
    expect(sampleLine({ metric: M.peers, values: ['x"y'], value: 3 })).toBe('vega_peers{target="x\\"y"} 3\n');
  });

  it('formats special floats the Prometheus way', () => {
    expect(formatValue(NaN)).toBe('NaN');
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(-Infinity)).toBe('-Inf');
    expect(formatValue(1e21)).toBe('1e+21');
  });
});

describe('store', () => {
  it('merges sources per family with one HELP/TYPE, in catalogue order', () => {
    const s = new SeriesStore();
    s.set({ scope: 'target', id: 'b', source: 'test' }, [{ metric: M.peers, values: ['b'], value: 2 }, { metric: M.blockHeight, values: ['b'], value: 20 }], 0, Infinity);
    s.set({ scope: 'target', id: 'a', source: 'test' }, [{ metric: M.peers, values: ['a'], value: 1 }], 0, Infinity);
    const text = s.render().toString();
    expect(text.match(/# TYPE vega_peers gauge/g)).toHaveLength(1);
    expect(text.indexOf('vega_block_height{target="b"}')).toBeLessThan(text.indexOf('vega_peers{target="a"}'));
    expect(text.indexOf('vega_peers{target="a"}')).toBeLessThan(text.indexOf('vega_peers{target="b"}'));
    expect(gunzipSync(s.renderGzip()).toString()).toBe(text);
    expect(s.seriesCount()).toBe(3);
  });

  it('drops a source past its maximum age and re-renders', () => {
    const s = new SeriesStore();
    s.set({ scope: 'target', id: 'old', source: 'test' }, [{ metric: M.peers, values: ['old'], value: 1 }], 1000, 3000);
    s.set({ scope: 'target', id: 'old', source: 'test', meta: true }, [{ metric: M.collectorSuccess, values: ['old', 'statistics'], value: 0 }], 1000, Infinity);
    expect(s.expire(3999)).toEqual([]);
    expect(s.render().toString()).toContain('vega_peers');
    expect(s.expire(4001)).toEqual([{ scope: 'target', id: 'old', source: 'test' }]);
    expect(s.render().toString()).not.toContain('vega_peers');
    expect(s.render().toString()).toContain('vega_collector_success');
  });
});

describe('store: series per scope (the series limit)', () => {
  const line = (target: string, n: number) => Array.from({ length: n }, (_, i) => ({ metric: M.peers, values: [`${target}-${i}`], value: 1 }));
  it('counts the other data entries of the same scope, through replace, delete, deleteWhere and expiry', () => {
    const store = new SeriesStore();
    const key = (id: string, source: string, meta = false) => ({ scope: 'target' as const, id, source, ...(meta ? { meta } : {}) });
    store.set(key('a', 'statistics'), line('a', 3), 0, Infinity);
    store.set(key('a', 'consistency'), line('a', 2), 0, 1000);
    store.set(key('a', 'statistics', true), line('a', 7), 0, Infinity); // meta: not counted
    store.set(key('b', 'statistics'), line('b', 5), 0, Infinity); // another scope
    store.set({ scope: 'network', id: 'a', source: 'markets' }, line('n', 4), 0, Infinity); // same id, other scope
    expect(store.linesIn(key('a', 'statistics'))).toBe(2);
    expect(store.linesIn(key('a', 'consistency'))).toBe(3);
    expect(store.linesIn(key('a', 'datanode_info'))).toBe(5);
    store.set(key('a', 'consistency'), line('a', 6), 0, 1000); // replaced, not added
    expect(store.linesIn(key('a', 'statistics'))).toBe(6);
    store.delete(key('a', 'statistics'));
    expect(store.linesIn(key('a', 'consistency'))).toBe(0);
    expect(store.linesIn(key('a', 'statistics'))).toBe(6);
    store.expire(5000); // consistency's max age has passed
    expect(store.linesIn(key('a', 'statistics'))).toBe(0);
    store.deleteWhere((k) => k.id === 'b');
    expect(store.linesIn(key('b', 'consistency'))).toBe(0);
    expect(store.linesIn({ scope: 'network', id: 'a', source: 'market_data' })).toBe(4);
  });
});

describe('gzipBody', () => {
  // Bodies of repeated but not trivially compressible lines, like a /metrics page.
  const body = (bytes: number): Buffer => {
    let s = '';
    for (let i = 0; s.length < bytes; i++) s += `vega_market_info{target="node-${i % 97}",market_id="${(i * 2654435761) % 4294967296}"} ${i}\n`;
    return Buffer.from(s.slice(0, bytes));
  };

  it('gzips a small body at zlib\'s default level, which is what every scrape of it then moves', () => {
    const b = body(200_000);
    expect(b.length).toBeLessThan(FAST_GZIP_FROM_BYTES);
    const gz = gzipBody(b);
    expect(gunzipSync(gz).equals(b)).toBe(true);
    expect(gz.equals(gzipSync(b))).toBe(true);
    expect(gz.length).toBeLessThan(gzipSync(b, { level: constants.Z_BEST_SPEED }).length);
  });

  it('gzips a large body at level 1, which takes about half the time', () => {
    const b = body(FAST_GZIP_FROM_BYTES);
    const gz = gzipBody(b);
    expect(gunzipSync(gz).equals(b)).toBe(true);
    expect(gz.equals(gzipSync(b, { level: 1 }))).toBe(true);
  });
});
