/**
 * Spread polls: each (target, collector) fires at a stable offset within its interval, so 100
 * targets' polls do not all land in the same second, and a reload keeps unchanged targets' offsets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import cron from 'node-cron';
import { describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../../src/exporter/config/schema.js';
import { intervalToCron, spreadSchedule, stableOffset } from '../../../src/exporter/schedule/cron.js';
import { lifecycle } from '../../helpers/lifecycle.js';

const life = lifecycle();
// No chain id comes back from a refusing target, so network-scoped runners would never start: readiness would wait.
const NO_NETWORK = { markets: { enabled: false }, key_rotations: { enabled: false } };

/** When node-cron would fire `expression` next, `n` times, plus the in-tick delay. */
function fireTimes(intervalMs: number, offsetMs: number, n: number): number[] {
  const plan = spreadSchedule(intervalMs, offsetMs)!;
  expect(cron.validate(plan.expression)).toBe(true);
  const task = cron.createTask(plan.expression, () => {});
  const out = task.getNextRuns(n).map((d) => d.getTime() + plan.delayMs);
  void task.destroy();
  return out;
}

describe('spreadSchedule', () => {
  it('fires every interval at the offset, for every allowed interval shape', () => {
    const cases: [number, number][] = [
      [1000, 0], [1000, 437], [15_000, 0], [15_000, 7_250], [15_000, 14_999], [30_000, 29_001],
      [60_000, 59_999], [300_000, 123_456], [3_600_000, 3_599_999], [21_600_000, 20_000_123], [86_400_000, 45_296_789],
    ];
    for (const [interval, offset] of cases) {
      const times = fireTimes(interval, offset, 4);
      for (const t of times) expect(((t % interval) + interval) % interval, `${interval}/${offset}`).toBe(offset);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(interval);
    }
  });

  it('refuses what intervalToCron refuses, and offsets outside the interval', () => {
    for (const ms of [7000, 45_000, 90_000, 7 * 60_000, 5 * 3_600_000, 1500]) {
      expect(intervalToCron(ms)).toBeUndefined();
      expect(spreadSchedule(ms, 0)).toBeUndefined();
    }
    expect(spreadSchedule(15_000, 15_000)).toBeUndefined();
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
    const names = Array.from({ length: 100 }, (_, i) => `dn-${String(i + 1).padStart(3, '0')}`);
    const config = (list: string[], marketsInterval: string): Config =>
      configSchema.parse({ targets: list.map((name) => ({ name, url })), log: { level: 'silent' }, http: { retries: 0 }, collectors: { statistics: { interval: '15s' }, markets: { interval: marketsInterval } } });
    let next = config(names, '1m');
    const e = await life.exporter(url, { collectors: NO_NETWORK }, 'silent', () => next);
    // The helper starts with its own one-target config: reload into the fleet first.
    next = config(names, '1m');
    await e.exporter.reload();
    const offsets = (): Map<string, number> =>
      new Map(e.exporter.runners.filter((r) => r.collector.name === 'statistics').map((r) => [r.scopeValue, r.offsetMs]));
    const before = offsets();
    expect(before.size).toBe(100);

    const perSecond = new Array<number>(15).fill(0);
    for (const o of before.values()) perSecond[Math.floor(o / 1000)]! += 1;
    const share = 100 / 15;
    // Clock-aligned schedules put all 100 into one second; a hash spreads them like dice.
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(Math.ceil(2.5 * share));
    expect(perSecond.filter((n) => n > 0).length).toBeGreaterThanOrEqual(12);
    for (const [name, o] of before) expect(o).toBe(stableOffset(`${name}/statistics`, 15_000));

    // A reload that drops one target, adds one and rebuilds every runtime (a collector setting changed).
    next = config([...names.slice(1), 'dn-new'], '5m');
    await e.exporter.reload();
    const after = offsets();
    expect(after.has('dn-001')).toBe(false);
    expect(after.has('dn-new')).toBe(true);
    for (const name of names.slice(1)) expect(after.get(name), name).toBe(before.get(name));
  });

  it('a runner polls at its offset (wall clock, within 150 ms)', { timeout: 15_000 }, async () => {
    const url = await refusingServer();
    // A target whose 2 s offset has a sub-second part, so both the cron seconds and the in-tick delay show.
    const name = Array.from({ length: 50 }, (_, i) => `t${i}`).find((n) => stableOffset(`${n}/statistics`, 2000) % 1000 > 300 && stableOffset(`${n}/statistics`, 2000) % 1000 < 700)!;
    const offset = stableOffset(`${name}/statistics`, 2000);
    const e = await life.exporter(url, { targets: [{ name, url }], http: { retries: 0 }, collectors: { statistics: { interval: '2s' }, network_history: { enabled: false }, consistency: { enabled: false }, ...NO_NETWORK } }, 'silent');
    const runner = e.exporter.runners.find((r) => r.collector.name === 'statistics')!;
    expect(runner.offsetMs).toBe(offset);
    const at: number[] = [];
    let seen = runner.state.runs;
    // Three intervals and a half: a tick the scheduler skips on a busy machine still leaves two.
    const end = Date.now() + 7000;
    while (Date.now() < end) {
      if (runner.state.runs !== seen) {
        seen = runner.state.runs;
        at.push(Date.now());
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(at.length).toBeGreaterThanOrEqual(2);
    for (const t of at) {
      const d = (((t % 2000) - offset) + 2000) % 2000;
      expect(Math.min(d, 2000 - d), `poll at ${t % 2000} ms into the interval, offset ${offset}`).toBeLessThan(150);
    }
  });
});
