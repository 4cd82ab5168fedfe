import { describe, expect, it } from 'vitest';
import { M } from '../../helpers/metrics.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';

describe('store', () => {
  it("gives a family's series across sources in key order, with capped labels", () => {
    const s = new SeriesStore();
    s.set(
      { scope: 'target', id: 'b', source: 'test' },
      [
        { metric: M.peers, values: ['b'], value: 2 },
        { metric: M.blockHeight, values: ['b'], value: 20 },
      ],
      0,
      Infinity,
    );
    s.set({ scope: 'target', id: 'a', source: 'test' }, [{ metric: M.peers, values: ['a'], value: 1 }], 0, Infinity);
    expect(s.series(M.peers)).toEqual([
      { labels: { target: 'a' }, value: 1 },
      { labels: { target: 'b' }, value: 2 },
    ]);
    expect(s.series(M.peers, (k) => k.id === 'b')).toEqual([{ labels: { target: 'b' }, value: 2 }]);
    expect(s.seriesCount()).toBe(3);
    expect(s.has(M.blockHeight)).toBe(true);
    expect(s.has(M.backlog)).toBe(false);
  });

  it('tells every subscriber of each change until it unsubscribes', () => {
    const s = new SeriesStore();
    const told: string[] = [];
    const offA = s.subscribe(() => told.push('a'));
    s.subscribe(() => told.push('b'));
    s.set({ scope: 'target', id: 'a', source: 'statistics' }, [{ metric: M.peers, values: ['a'], value: 1 }], 0, Infinity);
    offA();
    s.delete({ scope: 'target', id: 'a', source: 'statistics' });
    s.delete({ scope: 'target', id: 'a', source: 'statistics' });
    expect(told).toEqual(['a', 'b', 'b']);
  });

  it("a family's version changes when its series in an entry change or the entry is removed, and only then", () => {
    const s = new SeriesStore();
    const a = { scope: 'target' as const, id: 'a', source: 'statistics' };
    const b = { scope: 'target' as const, id: 'b', source: 'blocks' };
    const told: number[] = [];
    s.subscribe(() => told.push(s.version));
    s.set(a, [{ metric: M.peers, values: ['a'], value: 1 }], 0, Infinity);
    const v1 = s.familyVersion(M.peers);
    s.set(b, [{ metric: M.backlog, values: ['b'], value: 1 }], 0, Infinity);
    expect(s.familyVersion(M.peers)).toBe(v1);
    // The same series again: no change to render, no subscriber told.
    const before = told.length;
    s.set(a, [{ metric: M.peers, values: ['a'], value: 1 }], 1000, Infinity);
    expect(s.familyVersion(M.peers)).toBe(v1);
    expect(told.length).toBe(before);
    // Another family in the same entry: both change (one gone, one new), the other entry's family not.
    const backlog = s.familyVersion(M.backlog);
    s.set(a, [{ metric: M.blockHeight, values: ['a'], value: 7 }], 2000, Infinity);
    expect(s.familyVersion(M.peers)).not.toBe(v1);
    expect(s.familyVersion(M.backlog)).toBe(backlog);
    expect(s.series(M.peers)).toEqual([]);
    expect(s.series(M.blockHeight)).toEqual([{ labels: { target: 'a' }, value: 7 }]);
    s.set(a, [{ metric: M.peers, values: ['a'], value: 1 }], 3000, Infinity);
    const v1b = s.familyVersion(M.peers);
    s.set(a, [{ metric: M.peers, values: ['a'], value: 2 }], 0, Infinity);
    const v2 = s.familyVersion(M.peers);
    expect(v2).not.toBe(v1b);
    s.delete(a);
    expect(s.familyVersion(M.peers)).not.toBe(v2);
  });

  it('a poll that repeats the last one keeps its series objects; what changed is new, and every value is as sent', () => {
    const s = new SeriesStore(24);
    const key = { scope: 'target' as const, id: 'a', source: 'markets' };
    const long = 'm'.repeat(40);
    const poll = (values: [string, string, number][]) =>
      s.set(
        key,
        values.map(([id, state, v]) => ({ metric: M.marketState, values: ['net', id, state], value: v })),
        0,
        Infinity,
      );
    poll([
      ['m1', 'STATE_ACTIVE', 1],
      ['m2', 'STATE_ACTIVE', 1],
      [long, 'STATE_ACTIVE', 1],
    ]);
    const first = s.series(M.marketState);
    poll([
      ['m1', 'STATE_ACTIVE', 1],
      ['m2', 'STATE_ACTIVE', 1],
      [long, 'STATE_ACTIVE', 1],
    ]);
    const same = s.series(M.marketState);
    same.forEach((v, i) => expect(v).toBe(first[i]));
    // m2 changes value, the long id's series moves up a place, m1 is gone, m3 is new.
    poll([
      ['m2', 'STATE_ACTIVE', 0],
      [long, 'STATE_ACTIVE', 1],
      ['m3', 'STATE_PENDING', 1],
    ]);
    const next = s.series(M.marketState);
    // The long id as the cap writes it: cut to 24 bytes with `~` and 16 hex digits of its hash.
    const cut = expect.stringMatching(/^m{7}~[0-9a-f]{16}$/);
    expect(next.map((v) => [v.labels.market_id, v.labels.state, v.value])).toEqual([
      ['m2', 'STATE_ACTIVE', 0],
      [cut, 'STATE_ACTIVE', 1],
      ['m3', 'STATE_PENDING', 1],
    ]);
    expect(next[0]).not.toBe(first[1]);
    expect(first[1]!.value).toBe(1); // the series it replaces is left as it was
    expect(next[0]!.labels).not.toBe(first[0]!.labels);
    // A series at a place whose labels differ is built anew, never given another's labels.
    expect(next[1]!.labels).toEqual({ network: 'net', market_id: first[2]!.labels.market_id, state: 'STATE_ACTIVE' });
    expect(first[2]!.labels.market_id).toEqual(cut);
  });

  it('a large poll stored in turns: replaced in one step, every series as sent, capped duplicates across slices left out, unchanged series kept', async () => {
    const s = new SeriesStore(24);
    const key = { scope: 'network' as const, id: 'net', source: 'markets' };
    let told = 0;
    s.subscribe(() => told++);
    const long = 'x'.repeat(40);
    const n = 12_001;
    // Two long ids whose capped forms are equal would share a series: the second, far into the poll, is left out.
    const poll = (v: number) =>
      Array.from({ length: n }, (_, i) => ({ metric: M.marketState, values: ['net', i === n - 1 ? long : `m${i}`, 'STATE_ACTIVE'], value: i === 0 ? v : i }));
    const samples = [...poll(7), { metric: M.marketState, values: ['net', long, 'STATE_ACTIVE'], value: -1 }];
    const storing = s.setInTurns(key, samples, 0, Infinity);
    expect(s.series(M.marketState)).toEqual([]); // nothing stored until the whole poll is
    await storing;
    expect(told).toBe(1);
    const first = s.series(M.marketState);
    expect(first).toHaveLength(n);
    expect(first[0]).toEqual({ labels: { network: 'net', market_id: 'm0', state: 'STATE_ACTIVE' }, value: 7 });
    expect(first[6000]).toEqual({ labels: { network: 'net', market_id: 'm6000', state: 'STATE_ACTIVE' }, value: 6000 });
    expect(first[n - 1]!.labels.market_id).toMatch(/^x{7}~[0-9a-f]{16}$/);
    expect(first[n - 1]!.value).toBe(n - 1);
    expect(s.seriesCount()).toBe(n + 1); // the samples of the poll, as set() counts them
    // The next poll changes one value: every other series object is kept.
    await s.setInTurns(key, poll(8), 0, Infinity);
    const next = s.series(M.marketState);
    expect(next[0]!.value).toBe(8);
    expect(next[0]).not.toBe(first[0]);
    expect(next.slice(1).every((v, i) => v === first[i + 1])).toBe(true);
  });

  it('drops a source past its maximum age', () => {
    const s = new SeriesStore();
    s.set({ scope: 'target', id: 'old', source: 'test' }, [{ metric: M.peers, values: ['old'], value: 1 }], 1000, 3000);
    s.set(
      { scope: 'target', id: 'old', source: 'test', meta: true },
      [{ metric: M.collectorSuccess, values: ['old', 'statistics'], value: 0 }],
      1000,
      Infinity,
    );
    expect(s.expire(3999)).toEqual([]);
    expect(s.has(M.peers)).toBe(true);
    expect(s.expire(4001)).toEqual([{ scope: 'target', id: 'old', source: 'test' }]);
    expect(s.has(M.peers)).toBe(false);
    expect(s.has(M.collectorSuccess)).toBe(true);
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
    expect(store.seriesIn(key('a', 'statistics'))).toBe(2);
    expect(store.seriesIn(key('a', 'consistency'))).toBe(3);
    expect(store.seriesIn(key('a', 'datanode_info'))).toBe(5);
    store.set(key('a', 'consistency'), line('a', 6), 0, 1000); // replaced, not added
    expect(store.seriesIn(key('a', 'statistics'))).toBe(6);
    store.delete(key('a', 'statistics'));
    expect(store.seriesIn(key('a', 'consistency'))).toBe(0);
    expect(store.seriesIn(key('a', 'statistics'))).toBe(6);
    store.expire(5000); // consistency's max age has passed
    expect(store.seriesIn(key('a', 'statistics'))).toBe(0);
    store.deleteWhere((k) => k.id === 'b');
    expect(store.seriesIn(key('b', 'consistency'))).toBe(0);
    expect(store.seriesIn({ scope: 'network', id: 'a', source: 'market_data' })).toBe(4);
  });
});
