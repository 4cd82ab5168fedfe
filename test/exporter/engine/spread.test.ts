/**
 * Spread polls: each (target, collector) fires at a stable offset within its interval, so 100
 * targets' polls do not all land in the same second, and a reload keeps unchanged targets' offsets.
 *
 * Nothing here waits on the wall clock: the scheduler and the runners run on a fake clock that
 * drives the scheduler's own timers (test/helpers/fake-clock.ts), where a start lands on the exact
 * millisecond of its offset; the fleet's runners are checked by their offsets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { configSchema, type Config } from '../../../src/exporter/config/schema.js';
import { Exporter } from '../../../src/exporter/exporter.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { isSchedulable, nextDue, Scheduler, stableOffset } from '../../../src/exporter/engine/cron.js';
import { CollectorRunner, type RunnerOptions } from '../../../src/exporter/engine/runner.js';
import { LogCapture } from '../../helpers/exporter.js';
import { withFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { lifecycle } from '../../helpers/lifecycle.js';

const life = lifecycle();
// No chain id comes back from a refusing target, so network-scoped runners would never start.
const NO_NETWORK = { markets: { enabled: false }, key_rotations: { enabled: false } };
const FLEET = Array.from({ length: 100 }, (_, i) => `dn-${String(i + 1).padStart(3, '0')}`);
const mod = (t: number, m: number): number => ((t % m) + m) % m;
// A Monday 09:00:03.250 UTC: not aligned to any interval, and not on a whole second.
const T0 = Date.UTC(2030, 0, 7, 9, 0, 3, 250);

/** Offsets (or poll times) per second of a 15 s interval: spread like dice, not all in one second. */
function expectSpreadOver15s(phases: Iterable<number>, count: number): void {
  const perSecond = new Array<number>(15).fill(0);
  for (const p of phases) perSecond[Math.floor(p / 1000)]! += 1;
  expect(perSecond.reduce((a, b) => a + b, 0)).toBe(count);
  const share = count / 15;
  // Clock-aligned schedules put all 100 into one second; a hash spreads them like dice.
  expect(Math.max(...perSecond), `per second: ${perSecond.join(' ')}`).toBeLessThanOrEqual(Math.ceil(2.5 * share));
  expect(perSecond.filter((n) => n > 0).length, `per second: ${perSecond.join(' ')}`).toBeGreaterThanOrEqual(12);
}

describe('the scheduler', () => {
  it('takes any whole second from 1 s to 24 h', () => {
    for (const ms of [1000, 7000, 45_000, 90_000, 7 * 60_000, 5 * 3_600_000, 86_400_000]) expect(isSchedulable(ms), `${ms}`).toBe(true);
    for (const ms of [0, 999, 1500, 86_401_000, -1000, Number.NaN]) expect(isSchedulable(ms), `${ms}`).toBe(false);
    expect(() => new Scheduler().every(1500, 0, () => {})).toThrow(RangeError);
    expect(() => new Scheduler().every(15_000, 15_000, () => {})).toThrow(RangeError);
  });

  it('nextDue: the first time after now on the offset', () => {
    expect(nextDue(10_000, 15_000, 0)).toBe(15_000);
    expect(nextDue(15_000, 15_000, 0)).toBe(30_000);
    expect(nextDue(14_999, 15_000, 14_999)).toBe(29_999);
    expect(nextDue(0, 90_000, 45_500)).toBe(45_500);
  });

  it('starts each job every interval at its offset, to the millisecond, for intervals that divide nothing', async () => {
    const cases: [number, number][] = [
      [1000, 0],
      [1000, 437],
      [7000, 6999],
      [15_000, 7_250],
      [45_000, 44_001],
      [90_000, 123],
      [3_600_000, 3_599_999],
      [86_400_000, 36_000_123],
    ];
    // Three hours of ticks (a day's would take the fake clock a minute): the daily job starts 0 or 1 times.
    const SPAN = 3 * 3_600_000;
    await withFakeClock(T0, async (clock) => {
      const scheduler = new Scheduler();
      const started = cases.map(() => [] as number[]);
      const jobs = cases.map(([interval, offset], i) => scheduler.every(interval, offset, () => started[i]!.push(Date.now())));
      await clock.advance(SPAN);
      for (const [i, [interval, offset]] of cases.entries()) {
        const times = started[i]!;
        expect(times.length, `${interval}/${offset}`).toBe(Math.floor((T0 + SPAN - nextDue(T0, interval, offset)) / interval) + 1);
        for (const t of times) expect(mod(t, interval), `${interval}/${offset}`).toBe(offset);
        for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!).toBe(interval);
      }
      for (const j of jobs) j.cancel();
    });
  });

  it('one timer for any number of jobs, gone with the last one; a cancelled job starts no more', async () => {
    await withFakeClock(T0, async (clock) => {
      const before = vi.getTimerCount();
      const scheduler = new Scheduler();
      let hourly = 0;
      const offsets = Array.from({ length: 1000 }, (_, i) => (i * 3_599) % 3_600_000);
      const jobs = offsets.map((o) => scheduler.every(3_600_000, o, () => (hourly += 1)));
      let fast = 0;
      const each = scheduler.every(1000, 500, () => (fast += 1));
      // The tick, and a start for each job due before T0's second ends (09:00:03.250 to 09:00:04):
      // the hourly ones with offsets in that span, and the fast one at 09:00:03.500.
      const dueThisSecond = offsets.filter((o) => o >= 3_250 && o < 4_000).length + 1;
      expect(vi.getTimerCount()).toBe(before + 1 + dueThisSecond);
      await clock.advance(10_000);
      expect(fast).toBe(10);
      // 10 s of the hour hold the offsets 0 to 10 s of the 1000 hourly jobs' spread.
      expect(hourly).toBe(offsets.filter((o) => mod(o - T0, 3_600_000) < 10_000).length);
      each.cancel();
      await clock.advance(10_000);
      expect(fast).toBe(10);
      for (const j of jobs) j.cancel();
      expect(scheduler.size).toBe(0);
      expect(vi.getTimerCount()).toBe(before);
    });
  });

  it('a job that cancels the last job and schedules one in its place leaves one tick running', async () => {
    await withFakeClock(T0, async (clock) => {
      const before = vi.getTimerCount();
      const scheduler = new Scheduler();
      let replaced = 0;
      const first = scheduler.every(1000, 0, () => {
        first.cancel();
        scheduler.every(1000, 0, () => (replaced += 1));
      });
      await clock.advance(5_000);
      expect(replaced).toBe(4);
      // The tick alone: T0 + 5 s is 09:00:08.250, past this second's start at :08.000.
      expect(vi.getTimerCount()).toBe(before + 1);
    });
  });

  it('a tick that comes late starts what is overdue at once, then keeps the rhythm', async () => {
    await withFakeClock(T0, async (clock) => {
      const scheduler = new Scheduler();
      const times: number[] = [];
      const job = scheduler.every(2000, 300, () => times.push(Date.now()));
      // The event loop blocked for 5.5 s: time moves on, no timer fires meanwhile.
      const blocked = Date.now() + 5_500;
      const { vi } = await import('vitest');
      vi.setSystemTime(blocked);
      await clock.advance(6_000);
      job.cancel();
      expect(times.length).toBeGreaterThanOrEqual(3);
      // The first start is the overdue one, at the first tick after the block.
      expect(times[0]).toBeGreaterThanOrEqual(blocked);
      expect(mod(times[0]!, 2000)).not.toBe(300);
      // Once each, back on the offset afterwards.
      for (const t of times.slice(1)) expect(mod(t, 2000)).toBe(300);
      expect(new Set(times).size).toBe(times.length);
    });
  });
});

/** A target that refuses every poll quickly: only the schedule matters here. */
async function refusingServer(): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(503);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  life.defer(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a fleet of 100 targets', () => {
  it('spreads statistics polls over their 15 s interval and keeps the offsets across a reload', async () => {
    const url = await refusingServer();
    const config = (list: string[], marketsInterval: string): Config =>
      configSchema().parse({
        targets: list.map((name) => ({ name, url })),
        log: { level: 'silent' },
        http: { retries: 0 },
        collectors: { ...NO_NETWORK, statistics: { interval: '15s' }, markets: { enabled: false, interval: marketsInterval } },
      });
    let next = config(FLEET, '1m');
    // The polling core only (no HTTP server), and no wait for readiness: only the runners' offsets matter.
    const ex = new Exporter(next, createLogger('silent', new LogCapture()), () => next);
    life.defer(() => ex.stop());
    await ex.startCore();
    const offsets = (): Map<string, number> => new Map(ex.runners.filter((r) => r.collector.name === 'statistics').map((r) => [r.scopeValue, r.offsetMs]));
    const before = offsets();
    expect(before.size).toBe(100);
    expectSpreadOver15s(before.values(), 100);
    for (const [name, o] of before) expect(o).toBe(stableOffset(`${name}/statistics`, 15_000));

    // A reload that drops one target, adds one and rebuilds every runtime (a collector setting changed).
    next = config([...FLEET.slice(1), 'dn-new'], '5m');
    await ex.reload();
    const after = offsets();
    expect(after.has('dn-001')).toBe(false);
    expect(after.has('dn-new')).toBe(true);
    for (const name of FLEET.slice(1)) expect(after.get(name), name).toBe(before.get(name));
  });
});

/**
 * Real runners on the scheduler, on a fake clock. The collector answers at once and notes the time it
 * was asked: on a fake clock that is the millisecond the schedule fired, exactly.
 */
describe('runners polling on the spread schedule (fake clock)', () => {
  const quiet: RunnerOptions['log'] = (() => {
    const l = { child: () => l, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
    return l as unknown as RunnerOptions['log'];
  })();
  // The store is not under test: one that takes anything (and reports nothing held).
  const anyStore = new Proxy({}, { get: () => () => 0 }) as RunnerOptions['store'];

  /** Start a runner per name; `asked` gets the (fake) time of every poll, by name. */
  function startRunners(names: string[], intervalMs: number, asked: Map<string, number[]>, scheduler: Scheduler): CollectorRunner[] {
    return names.map((name) => {
      const runner = new CollectorRunner({
        scopeValue: name,
        collector: { name: 'statistics', scope: 'node' },
        instance: {
          collect: (ctx) => {
            asked.set(ctx.target, [...(asked.get(ctx.target) ?? []), Date.now()]);
            return Promise.resolve({ samples: [] });
          },
        },
        candidates: () => [{ target: name, client: {} as never }],
        store: anyStore,
        settings: {
          intervalMs,
          timeoutMs: 1000,
          maxAgeMs: 3 * intervalMs,
          pageSize: 100,
          maxPages: 1,
          seriesLimit: 1000,
          seriesShare: 1000,
        },
        log: quiet,
        scheduler,
      });
      runner.start();
      return runner;
    });
  }

  /**
   * Run `names` for `intervals` + 1 intervals from the clock's current time; returns each name's
   * scheduled polls. Checks the runner's contract on the way: one poll at start (readiness), then
   * after a first interval, exactly one
   * poll per interval, every poll at t ≡ offset (mod interval), consecutive polls one interval apart.
   */
  async function observe(clock: FakeClock, names: string[], intervalMs: number, intervals: number): Promise<Map<string, number[]>> {
    const start = Date.now();
    const asked = new Map<string, number[]>();
    // A scheduler of its own, made on the fake clock.
    const runners = startRunners(names, intervalMs, asked, new Scheduler());
    try {
      for (const name of names) expect(asked.get(name), `${name}: the poll at start`).toEqual([start]);
      asked.clear();
      await clock.advance((intervals + 1) * intervalMs);
    } finally {
      await Promise.all(runners.map((r) => r.stop(true)));
    }
    for (const [i, name] of names.entries()) {
      const offset = stableOffset(`${name}/statistics`, intervalMs);
      expect(runners[i]!.offsetMs).toBe(offset);
      const times = asked.get(name) ?? [];
      for (const t of times) expect(mod(t, intervalMs), `${name}: poll ${t - start} ms after start, offset ${offset}`).toBe(offset);
      for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!, `${name}: gap between polls`).toBe(intervalMs);
      const settled = times.filter((t) => t >= start + intervalMs && t < start + (intervals + 1) * intervalMs);
      expect(settled.length, `${name}: polls per interval after the first`).toBe(intervals);
    }
    return asked;
  }

  it('a runner polls at its offset: the cron second and the sub-second delay both show', async () => {
    // A target whose 2 s offset has a sub-second part, so both the tick's second and the delay within it show.
    const name = Array.from({ length: 50 }, (_, i) => `t${i}`).find(
      (n) => stableOffset(`${n}/statistics`, 2000) % 1000 > 300 && stableOffset(`${n}/statistics`, 2000) % 1000 < 700,
    )!;
    expect(name, 'a target whose 2 s offset has a sub-second part').toBeDefined();
    await withFakeClock(T0, async (clock) => {
      const asked = await observe(clock, [name], 2000, 3);
      expect(asked.get(name)!.length).toBeGreaterThanOrEqual(3);
    });
  });

  it('100 runners poll spread over their 15 s interval, and rebuilt runners keep their offsets', async () => {
    await withFakeClock(T0, async (clock) => {
      const before = await observe(clock, FLEET, 15_000, 2);
      // Where in the interval each one actually polled, from the fake clock.
      const phase = (asked: Map<string, number[]>, name: string): number => mod(asked.get(name)!.at(-1)!, 15_000);
      expectSpreadOver15s(
        FLEET.map((n) => phase(before, n)),
        100,
      );

      // Stopped and rebuilt (a reload), one target dropped and one added, at a later time.
      await clock.advance(4_321);
      const next = [...FLEET.slice(1), 'dn-new'];
      const after = await observe(clock, next, 15_000, 2);
      expect(after.has('dn-001')).toBe(false);
      expect(after.get('dn-new')!.length).toBeGreaterThanOrEqual(2);
      for (const name of FLEET.slice(1)) expect(phase(after, name), name).toBe(phase(before, name));
    });
  });
});
