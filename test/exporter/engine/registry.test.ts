import { afterEach, describe, expect, it, vi } from 'vitest';
import { M } from '../../helpers/metrics.js';
import { Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';
import { Exposition, FamilyRegistry, RENDER_SLICE, storeSource } from '../../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { CATALOGUE, TEST_BUILD, renderStore } from '../../helpers/render.js';

const key = { scope: 'network' as const, id: 'n', source: 'key_rotations' };

describe('formats', () => {
  const store = new SeriesStore();
  store.set(
    key,
    [
      { metric: M.rotations, values: ['n', 'a"b'], value: 3 },
      { metric: M.rotationLastHeight, values: ['n', 'a"b'], value: 120 },
    ],
    0,
    Infinity,
  );

  it('text: HELP and TYPE per family, escaped labels, families apart by a blank line', async () => {
    const text = await renderStore(store, 'text');
    expect(text).toBe(
      `# HELP vega_key_rotations_total ${M.rotations.help}\n# TYPE vega_key_rotations_total counter\nvega_key_rotations_total{network="n",node_id="a\\"b"} 3\n\n` +
        `# HELP vega_key_rotation_last_block_height ${M.rotationLastHeight.help}\n# TYPE vega_key_rotation_last_block_height gauge\nvega_key_rotation_last_block_height{network="n",node_id="a\\"b"} 120\n`,
    );
  });

  it('OpenMetrics: counters named without _total, their samples with it, no blank lines, # EOF last', async () => {
    const text = await renderStore(store, 'openmetrics');
    expect(text).toBe(
      `# HELP vega_key_rotations ${M.rotations.help}\n# TYPE vega_key_rotations counter\nvega_key_rotations_total{network="n",node_id="a\\"b"} 3\n` +
        `# HELP vega_key_rotation_last_block_height ${M.rotationLastHeight.help}\n# TYPE vega_key_rotation_last_block_height gauge\nvega_key_rotation_last_block_height{network="n",node_id="a\\"b"} 120\n# EOF\n`,
    );
  });
});

describe('the body is rendered after changes, at most once a second', () => {
  afterEach(() => void vi.useRealTimers());

  it('serves the last render until the next one, and renders a burst of changes once', async () => {
    vi.useFakeTimers();
    const store = new SeriesStore();
    const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => store.seriesCount() });
    const set = (v: number) => store.set({ scope: 'target', id: 't', source: 's' }, [{ metric: M.peers, values: ['t'], value: v }], 0, Infinity);
    set(1);
    const first = (await expo.body('text')).plain.toString();
    expect(first).toContain('vega_peers{target="t"} 1');
    expect(first).toContain('datanode_exporter_series 1');
    expect(first).toContain('process_cpu_seconds_total');
    for (let v = 2; v <= 50; v++) set(v);
    // Within the second after the last render: still the old body.
    expect((await expo.body('text')).plain.toString()).toContain('vega_peers{target="t"} 1\n');
    await vi.advanceTimersByTimeAsync(1000);
    await vi.waitFor(async () => expect((await expo.body('text')).plain.toString()).toContain('vega_peers{target="t"} 50\n'));
    expo.stop();
  });
});

describe('a render never holds the event loop for its whole length', () => {
  it('other work runs between the families it renders anew; a scrape meanwhile gets the last body', async () => {
    const store = new SeriesStore();
    const set = (v: number): void =>
      store.set(
        { scope: 'target', id: 't', source: 's' },
        [
          { metric: M.peers, values: ['t'], value: v },
          { metric: M.ordersTotal, values: ['t'], value: v },
          { metric: M.rotations, values: ['n', 'x'], value: v },
        ],
        0,
        Infinity,
      );
    set(1);
    const expo = new Exposition(store, CATALOGUE, { build: TEST_BUILD, seriesCount: () => store.seriesCount() });
    const first = await expo.body('text');
    set(2);
    // Each family read by the render, and each turn of the loop (work re-queued each time it runs).
    const events: string[] = [];
    const read = store.lists.bind(store);
    vi.spyOn(store, 'lists').mockImplementation((m) => (events.push('family'), read(m)));
    let rendered = false;
    const rendering = expo.flush().then(() => void (rendered = true));
    const again = (): void => {
      if (rendered) return;
      events.push('turn');
      setImmediate(again);
    };
    setImmediate(again);
    expect(await expo.body('text')).toBe(first);
    await rendering;
    // Three families rendered anew, the loop turning between each and the next.
    const families = events.flatMap((e, i) => (e === 'family' ? [i] : []));
    expect(families).toHaveLength(3);
    for (let f = 1; f < families.length; f++) expect(events.slice(families[f - 1], families[f])).toContain('turn');
    expect((await expo.body('text')).plain.toString()).toContain('vega_peers{target="t"} 2\n');
    expo.stop();
  });
});

describe('the same text as prom-client renders plain gauges and counters', () => {
  /** prom-client on its own: plain gauges and counters, set with the same series in the same order. */
  async function plain(format: 'text' | 'openmetrics', families: [typeof M.peers, [Record<string, string>, number][]][]): Promise<string> {
    const registry = new Registry<RegistryContentType>();
    registry.setContentType(format === 'text' ? Registry.PROMETHEUS_CONTENT_TYPE : Registry.OPENMETRICS_CONTENT_TYPE);
    for (const [def, series] of families) {
      const config = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [registry] };
      if (def.type === 'counter') {
        const c = new Counter(config);
        for (const [labels, v] of series) c.inc(labels, v);
      } else {
        const g = new Gauge(config);
        for (const [labels, v] of series) g.set(labels, v);
      }
    }
    return registry.metrics();
  }

  /**
   * With the exporter's own metrics, the polled families are rendered one by one and the own metrics
   * follow: the polled part alone. The text format gives blank lines no meaning, and prom-client puts
   * one between families only when it renders them together: they are left out of the comparison.
   */
  const polledPart = (body: string, own: boolean, format: 'text' | 'openmetrics'): string => {
    if (!own) return body;
    const part = body.slice(0, body.indexOf('# HELP process_'));
    return format === 'text' ? part : `${part}# EOF\n`;
  };
  const expected = (text: string, own: boolean, format: 'text' | 'openmetrics'): string => (own && format === 'text' ? text.replace(/\n\n/g, '\n') : text);

  it.each([
    ['text', false],
    ['openmetrics', false],
    ['text', true],
    ['openmetrics', true],
  ] as const)("%s (own metrics: %s), before and after polls change some targets' series", async (format, withOwn) => {
    const store = new SeriesStore();
    const reg = new FamilyRegistry(format, CATALOGUE, storeSource(store), withOwn ? { build: TEST_BUILD, seriesCount: () => 0 } : undefined);
    const poll = (t: string, peers: number, orders: number) =>
      store.set(
        { scope: 'target', id: t, source: 'statistics' },
        [
          { metric: M.peers, values: [t], value: peers },
          { metric: M.ordersTotal, values: [t], value: orders },
        ],
        0,
        Infinity,
      );
    poll('a', 1, 10);
    poll('b', 2, 20);
    expect(polledPart((await reg.render()).toString(), withOwn, format)).toBe(
      expected(
        await plain(format, [
          [
            M.peers,
            [
              [{ target: 'a' }, 1],
              [{ target: 'b' }, 2],
            ],
          ],
          [
            M.ordersTotal,
            [
              [{ target: 'a' }, 10],
              [{ target: 'b' }, 20],
            ],
          ],
        ]),
        withOwn,
        format,
      ),
    );
    poll('b', 3, 30);
    store.delete({ scope: 'target', id: 'a', source: 'statistics' });
    poll('c', 4, 40);
    expect(polledPart((await reg.render()).toString(), withOwn, format)).toBe(
      expected(
        await plain(format, [
          [
            M.peers,
            [
              [{ target: 'b' }, 3],
              [{ target: 'c' }, 4],
            ],
          ],
          [
            M.ordersTotal,
            [
              [{ target: 'b' }, 30],
              [{ target: 'c' }, 40],
            ],
          ],
        ]),
        withOwn,
        format,
      ),
    );
    // One source changes, the other's lines are kept from the last render.
    poll('c', 5, 50);
    expect(polledPart((await reg.render()).toString(), withOwn, format)).toBe(
      expected(
        await plain(format, [
          [
            M.peers,
            [
              [{ target: 'b' }, 3],
              [{ target: 'c' }, 5],
            ],
          ],
          [
            M.ordersTotal,
            [
              [{ target: 'b' }, 30],
              [{ target: 'c' }, 50],
            ],
          ],
        ]),
        withOwn,
        format,
      ),
    );
  });

  it.each(['text', 'openmetrics'] as const)('%s: a family of one source, too large to render in one turn, rendered in slices', async (format) => {
    const store = new SeriesStore();
    const reg = new FamilyRegistry(format, CATALOGUE, storeSource(store), { build: TEST_BUILD, seriesCount: () => 0 });
    const n = 2 * RENDER_SLICE + 7;
    const targets = Array.from({ length: n }, (_, i) => `t${String(i).padStart(5, '0')}`);
    store.set(
      { scope: 'network', id: 'net', source: 'statistics' },
      targets.flatMap((t, i) => [
        { metric: M.peers, values: [t], value: i },
        { metric: M.ordersTotal, values: [t], value: 2 * i },
      ]),
      0,
      Infinity,
    );
    expect(polledPart((await reg.render()).toString(), true, format)).toBe(
      expected(
        await plain(format, [
          [M.peers, targets.map((t, i) => [{ target: t }, i])],
          [M.ordersTotal, targets.map((t, i) => [{ target: t }, 2 * i])],
        ]),
        true,
        format,
      ),
    );
  });
});
