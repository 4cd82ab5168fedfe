/**
 * CollectorRunner with fake collectors and a real store: no overlap, the deadline, fail-over,
 * one log line per state change, the meta series, max age, stop. runOnce is driven directly;
 * one test lets the scheduler fire on a 1 s schedule.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CollectContext, CollectResult, CollectorIdentity, Fetcher } from '../../../src/exporter/engine/types.js';
import { ExporterError } from '../../../src/exporter/errors.js';
import { M } from '../../helpers/metrics.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { CollectorRunner, type Candidate, type RunnerSettings } from '../../../src/exporter/engine/runner.js';
import { Scrape } from '../../helpers/expo.js';
import { LogCapture, waitFor } from '../../helpers/exporter.js';
import { withFakeClock } from '../../helpers/fake-clock.js';
import { Scheduler } from '../../../src/exporter/engine/cron.js';

const SETTINGS: RunnerSettings = {
  intervalMs: 1000,
  timeoutMs: 500,
  maxAgeMs: 3000,
  pageSize: 50,
  maxPages: 5,
  seriesLimit: Infinity,
  seriesShare: Infinity,
};
const NODE: CollectorIdentity = { name: 'statistics', scope: 'node', upMetric: M.up };
const NET: CollectorIdentity = { name: 'markets', scope: 'network' };

type Collect = (ctx: CollectContext, target: string) => Promise<CollectResult>;
const ok =
  (value = 1, extra: Partial<CollectResult> = {}): Collect =>
  async (ctx) => ({ samples: [{ metric: M.peers, values: [ctx.target], value }], ...extra });
const fail =
  (code: ConstructorParameters<typeof ExporterError>[0] = 'UPSTREAM_HTTP'): Collect =>
  async () => {
    throw new ExporterError(code, `failed with ${code}`);
  };

/** A fake client per target name: the collector learns which candidate it was handed. */
const clients = new Map<Fetcher, string>();
const candidate = (target: string): Candidate => {
  const client: Fetcher = { get: () => Promise.reject(new Error(`the runner tests' collectors fetch nothing (${target})`)) };
  clients.set(client, target);
  return { target, client };
};

const stopping: CollectorRunner[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (stopping.length) await stopping.pop()!.stop();
});

/** A runner whose collector behaviour the test swaps in `h.collect`; every call is recorded. */
function harness(o: { identity?: CollectorIdentity; scope?: string; targets?: string[]; settings?: Partial<RunnerSettings>; scheduler?: Scheduler } = {}) {
  const logs = new LogCapture();
  const store = new SeriesStore();
  const calls: { target: string; signal: AbortSignal }[] = [];
  const h = {
    logs,
    store,
    calls,
    collect: ok(),
    scrape: () => Scrape.fromStore(store),
    runner: undefined as unknown as CollectorRunner,
  };
  h.runner = new CollectorRunner({
    scopeValue: o.scope ?? 'dn1',
    collector: o.identity ?? NODE,
    instance: {
      collect: (ctx) => {
        const target = clients.get(ctx.client)!;
        calls.push({ target, signal: ctx.signal });
        return h.collect(ctx, target);
      },
    },
    candidates: () => (o.targets ?? [o.scope ?? 'dn1']).map(candidate),
    store,
    settings: { ...SETTINGS, ...o.settings },
    log: createLogger('info', logs),
    scheduler: o.scheduler,
  });
  stopping.push(h.runner);
  return h;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A collect that only ends when its signal aborts, with the signal's reason. */
const hang: Collect = (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }));

describe('CollectorRunner.runOnce', () => {
  it('counts as attempted for readiness once its first poll has run 5 s, before the deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const h = harness({ settings: { timeoutMs: 48_000 } });
    h.collect = hang;
    expect(h.runner.attempted()).toBe(false);
    const run = h.runner.runOnce();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(h.runner.attempted()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.runner.attempted()).toBe(true);
    expect(h.runner.state.runs).toBe(0); // still polling: no result is made up
    await vi.advanceTimersByTimeAsync(44_000);
    await run;
    expect(h.runner.state).toMatchObject({ runs: 1, success: false });
  });

  it('a collect that never settles and ignores its abort signal is abandoned shortly after the deadline: failed, vega_up 0, one log line', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = harness({ settings: { timeoutMs: 500 } });
    h.collect = () => new Promise(() => {}); // deaf to the signal, as undici was with a CR/LF header
    let ended = false;
    const run = h.runner.runOnce().then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(h.calls[0]!.signal.aborted).toBe(true);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    await run;
    expect(h.runner.state).toMatchObject({ runs: 1, success: false, lastErrorCode: 'POLL_TIMEOUT' });
    expect(h.scrape().value('vega_up', { target: 'dn1' })).toBe(0);
    // The next poll is not stuck behind the abandoned one; its failure is not logged again.
    const again = h.runner.runOnce();
    await vi.advanceTimersByTimeAsync(1500);
    await again;
    expect(h.runner.state.runs).toBe(2);
    expect(h.logs.parsed().filter((l) => l.msg === 'collector failing')).toHaveLength(1);
  });

  it('does not overlap: a second call while a poll is in flight joins it', async () => {
    const h = harness();
    const gate = deferred<CollectResult>();
    h.collect = (ctx, target) => Promise.race([gate.promise, hang(ctx, target)]); // stop() can end it if the test fails early
    const first = h.runner.runOnce();
    const second = h.runner.runOnce();
    expect(second).toBe(first);
    expect(h.calls).toHaveLength(1);
    gate.resolve({ samples: [] });
    await Promise.all([first, second]);
    expect(h.runner.state.runs).toBe(1);
    h.collect = ok();
    await h.runner.runOnce(); // once settled, the next call polls again
    expect(h.calls).toHaveLength(2);
    expect(h.runner.state.runs).toBe(2);
  });

  it('the deadline aborts a slow collect with POLL_TIMEOUT and records a failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = harness({ settings: { timeoutMs: 500 } });
    h.collect = hang;
    const run = h.runner.runOnce();
    await vi.advanceTimersByTimeAsync(499);
    expect(h.calls[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run;
    const signal = h.calls[0]!.signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ExporterError);
    expect((signal.reason as ExporterError).code).toBe('POLL_TIMEOUT');
    expect(h.runner.state).toMatchObject({ runs: 1, success: false, lastErrorCode: 'POLL_TIMEOUT' });
    expect(h.scrape().value('datanode_exporter_collector_success', { target: 'dn1', collector: 'statistics' })).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // the deadline timer is released
  });

  it('a caller signal (a probe) shortens the deadline', async () => {
    const h = harness();
    h.collect = hang;
    const ac = new AbortController();
    const run = h.runner.runOnce(ac.signal);
    ac.abort(new ExporterError('POLL_TIMEOUT', 'probe deadline'));
    await run;
    expect(h.runner.state).toMatchObject({ success: false, lastErrorCode: 'POLL_TIMEOUT' });
  });
});

describe('network scope', () => {
  it('fails over to the next candidate; the answering target is the source series', async () => {
    const h = harness({ identity: NET, scope: 'main', targets: ['dnA', 'dnB', 'dnC'] });
    h.collect = (ctx, target) => (target === 'dnA' ? fail('UPSTREAM_CONNECT')(ctx, target) : ok(5)(ctx, target));
    await h.runner.runOnce();
    expect(h.calls.map((c) => c.target)).toEqual(['dnA', 'dnB']);
    expect(h.runner.state).toMatchObject({ success: true, answeredBy: 'dnB' });
    const s = h.scrape();
    expect(s.all('datanode_exporter_network_collector_source_info')).toEqual([
      { name: 'datanode_exporter_network_collector_source_info', labels: { network: 'main', collector: 'markets', target: 'dnB' }, value: 1 },
    ]);
    expect(s.value('datanode_exporter_network_collector_success', { network: 'main', collector: 'markets' })).toBe(1);
    expect(s.value('vega_peers', { target: 'main' })).toBe(5); // the collector was asked for the network's series
    expect(s.has('datanode_exporter_collector_success')).toBe(false);
  });

  it('when every candidate fails the last error counts; with no candidate, UPSTREAM_CONNECT', async () => {
    const h = harness({ identity: NET, scope: 'main', targets: ['dnA', 'dnB'] });
    h.collect = (ctx, target) => fail(target === 'dnA' ? 'UPSTREAM_HTTP' : 'UPSTREAM_BAD_JSON')(ctx, target);
    await h.runner.runOnce();
    expect(h.runner.state).toMatchObject({ success: false, lastErrorCode: 'UPSTREAM_BAD_JSON', answeredBy: undefined });
    expect(h.scrape().has('datanode_exporter_network_collector_source_info')).toBe(false);

    const none = harness({ identity: NET, scope: 'empty', targets: [] });
    await none.runner.runOnce();
    expect(none.runner.state).toMatchObject({ success: false, lastErrorCode: 'UPSTREAM_CONNECT' });
  });

  it('a deadline does not move on to the next candidate', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = harness({ identity: NET, scope: 'main', targets: ['dnA', 'dnB'], settings: { timeoutMs: 100 } });
    h.collect = hang;
    const run = h.runner.runOnce();
    await vi.advanceTimersByTimeAsync(100);
    await run;
    expect(h.calls.map((c) => c.target)).toEqual(['dnA']);
    expect(h.runner.state.lastErrorCode).toBe('POLL_TIMEOUT');
  });
});

describe('logging', () => {
  const messages = (logs: LogCapture): string[] => logs.parsed().map((l) => `${l.level as string} ${l.msg as string}${l.code ? ` ${l.code as string}` : ''}`);

  it('one line per state change, not per failed poll', async () => {
    const h = harness();
    await h.runner.runOnce(); // ok from the start: nothing to say
    h.collect = fail('UPSTREAM_HTTP');
    for (let i = 0; i < 3; i++) await h.runner.runOnce();
    h.collect = fail('UPSTREAM_TIMEOUT'); // another reason is another state
    for (let i = 0; i < 2; i++) await h.runner.runOnce();
    h.collect = ok();
    for (let i = 0; i < 2; i++) await h.runner.runOnce();
    expect(messages(h.logs)).toEqual(['warn collector failing UPSTREAM_HTTP', 'warn collector failing UPSTREAM_TIMEOUT', 'info collector recovered']);
    expect(h.runner.state.runs).toBe(8);
  });

  it('each line names the target once (node scope) or the network once (network scope)', async () => {
    const node = harness({ scope: 'dn1' });
    node.collect = fail();
    await node.runner.runOnce();
    const net = harness({ identity: NET, scope: 'main', targets: ['dnA'] });
    net.collect = fail();
    await net.runner.runOnce();
    const [nodeLine] = node.logs.lines;
    const [netLine] = net.logs.lines;
    expect(nodeLine!.match(/"target":/g)).toHaveLength(1);
    expect(nodeLine!).not.toContain('"network":');
    expect(netLine!.match(/"network":/g)).toHaveLength(1);
    expect(netLine!).not.toContain('"target":');
    expect(JSON.parse(nodeLine!)).toMatchObject({ target: 'dn1', collector: 'statistics', code: 'UPSTREAM_HTTP', err: 'failed with UPSTREAM_HTTP' });
    expect(JSON.parse(netLine!)).toMatchObject({ network: 'main', collector: 'markets' });
  });
});

describe('series', () => {
  it('meta series: success, duration, last success and the up gauge', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 1, 12, 0, 0));
    const h = harness();
    h.collect = ok(7, { up: 1 });
    await h.runner.runOnce();
    let s = h.scrape();
    const l = { target: 'dn1', collector: 'statistics' };
    expect(s.value('datanode_exporter_collector_success', l)).toBe(1);
    expect(s.value('datanode_exporter_collector_duration_seconds', l)).toBe(h.runner.state.durationS);
    expect(h.runner.state.durationS).toBeGreaterThanOrEqual(0);
    expect(s.value('datanode_exporter_collector_last_success_timestamp_seconds', l)).toBe(Date.UTC(2026, 10, 1, 12, 0, 0) / 1000);
    expect(s.value('vega_up', { target: 'dn1' })).toBe(1);
    expect(s.value('vega_peers', { target: 'dn1' })).toBe(7);
    expect(s.has('datanode_exporter_upstream_pages_total')).toBe(false); // not paginated, no pages reported

    vi.setSystemTime(Date.UTC(2026, 10, 1, 12, 0, 1));
    h.collect = fail();
    await h.runner.runOnce();
    s = h.scrape();
    expect(s.value('datanode_exporter_collector_success', l)).toBe(0);
    expect(s.value('vega_up', { target: 'dn1' })).toBe(0);
    expect(s.value('datanode_exporter_collector_last_success_timestamp_seconds', l)).toBe(Date.UTC(2026, 10, 1, 12, 0, 0) / 1000);
  });

  it('the up gauge takes the value the collector decides', async () => {
    const h = harness();
    h.collect = ok(1, { up: 0 });
    await h.runner.runOnce();
    expect(h.scrape().value('vega_up', { target: 'dn1' })).toBe(0);
    expect(h.scrape().value('datanode_exporter_collector_success', { target: 'dn1', collector: 'statistics' })).toBe(1);
  });

  it('paginated collectors: pages counted across polls, truncation flag follows the last walk', async () => {
    const h = harness({ identity: { name: 'key_rotations', scope: 'node', paginated: true } });
    const l = { target: 'dn1', collector: 'key_rotations' };
    h.collect = fail();
    await h.runner.runOnce();
    expect(h.scrape().value('datanode_exporter_upstream_pages_total', l)).toBe(0); // exported from the first poll
    expect(h.scrape().value('datanode_exporter_pagination_truncated', l)).toBe(0);
    h.collect = ok(1, { pages: 5, truncated: 'page_cap' });
    await h.runner.runOnce();
    expect(h.scrape().value('datanode_exporter_upstream_pages_total', l)).toBe(5);
    expect(h.scrape().value('datanode_exporter_pagination_truncated', l)).toBe(1);
    expect(h.logs.parsed().filter((x) => x.msg === 'list walk truncated; series are incomplete')).toEqual([expect.objectContaining({ reason: 'page_cap' })]);
    h.collect = ok(1, { pages: 2 });
    await h.runner.runOnce();
    expect(h.scrape().value('datanode_exporter_upstream_pages_total', l)).toBe(7);
    expect(h.scrape().value('datanode_exporter_pagination_truncated', l)).toBe(0);
  });

  it('a failure keeps the previous data series until their maximum age', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.UTC(2026, 10, 1, 12, 0, 0);
    vi.setSystemTime(t0);
    const h = harness({ settings: { maxAgeMs: 3000 } });
    h.collect = ok(9);
    await h.runner.runOnce();
    h.collect = fail();
    vi.setSystemTime(t0 + 3000);
    await h.runner.runOnce();
    expect(h.scrape().value('vega_peers', { target: 'dn1' })).toBe(9);
    vi.setSystemTime(t0 + 3001);
    await h.runner.runOnce();
    const s = h.scrape();
    expect(s.has('vega_peers')).toBe(false);
    expect(s.value('datanode_exporter_collector_success', { target: 'dn1', collector: 'statistics' })).toBe(0); // meta stays
  });

  it("stop(true) removes the runner's series; stop() keeps them", async () => {
    const kept = harness({ scope: 'dn1' });
    const dropped = harness({ scope: 'dn2' });
    await kept.runner.runOnce();
    await dropped.runner.runOnce();
    await kept.runner.stop();
    await dropped.runner.stop(true);
    expect(kept.scrape().has('vega_peers')).toBe(true);
    expect(kept.scrape().has('datanode_exporter_collector_success')).toBe(true);
    expect(dropped.store.seriesCount()).toBe(0);
  });
});

describe('start and stop', () => {
  it('polls at once, then on the schedule; after stop nothing polls', async () => {
    await withFakeClock(Date.UTC(2030, 0, 7, 9, 0, 3, 250), async (clock) => {
      // A scheduler of its own, made on the fake clock.
      const h = harness({ settings: { intervalMs: 1000 }, scheduler: new Scheduler() });
      h.runner.start();
      expect(h.calls).toHaveLength(1); // the first poll starts synchronously
      await clock.advance(3000);
      expect(h.calls).toHaveLength(4); // and one a second
      await h.runner.stop();
      await clock.advance(3000);
      await h.runner.runOnce();
      expect(h.calls).toHaveLength(4);
    });
  });

  it('stop aborts the poll in flight and does not apply it', async () => {
    const h = harness();
    h.collect = hang;
    const run = h.runner.runOnce();
    await h.runner.stop();
    await run;
    expect(h.calls[0]!.signal.aborted).toBe(true);
    expect(h.runner.state.runs).toBe(0);
    expect(h.store.seriesCount()).toBe(0);
  });
});

describe('first polls', () => {
  it('take their turn through the limiter: at most its size in flight when many runners start at once', async () => {
    const { Limiter } = await import('../../../src/exporter/engine/limiter.js');
    const limiter = new Limiter(3);
    const store = new SeriesStore();
    let active = 0;
    let peak = 0;
    let done = 0;
    const runners = Array.from({ length: 30 }, (_, i) => {
      const scope = `dn${i}`;
      const r = new CollectorRunner({
        scopeValue: scope,
        collector: NODE,
        instance: {
          collect: async (ctx) => {
            active += 1;
            peak = Math.max(peak, active);
            await new Promise((res) => setTimeout(res, 5));
            active -= 1;
            done += 1;
            return { samples: [{ metric: M.peers, values: [ctx.target], value: 1 }] };
          },
        },
        candidates: () => [candidate(scope)],
        store,
        // An hourly schedule: only the first polls run in this test.
        settings: { ...SETTINGS, intervalMs: 3_600_000 },
        log: createLogger('info', new LogCapture()),
        firstPolls: limiter,
      });
      stopping.push(r);
      return r;
    });
    for (const r of runners) r.start();
    await waitFor(() => done === 30, 5000);
    expect(peak).toBe(3);
    expect(runners.every((r) => r.state.runs === 1)).toBe(true);
  });
});
