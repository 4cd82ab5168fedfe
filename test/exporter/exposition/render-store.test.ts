import { describe, expect, it } from 'vitest';
import { M } from '../../../src/exporter/exposition/catalogue.js';
import { escapeLabel, formatValue, sampleLine } from '../../../src/exporter/exposition/render.js';
import { SeriesStore } from '../../../src/exporter/exposition/store.js';
import { gunzipSync } from 'node:zlib';

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
