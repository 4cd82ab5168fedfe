import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BasicAuth } from '../../../src/exporter/web/auth.js';

const auths: BasicAuth[] = [];
afterEach(async () => {
  for (const a of auths.splice(0)) await a.close();
});
const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('BasicAuth under load', () => {
  const hash = bcrypt.hashSync('right', 10);
  const make = (limits: Partial<ConstructorParameters<typeof BasicAuth>[1]> = {}): BasicAuth => {
    const a = new BasicAuth(
      { prometheus: hash },
      { maxConcurrentChecks: 1, maxQueuedChecks: 2, maxFailuresPerClient: 100, failureWindowMs: 60_000, ...limits },
    );
    auths.push(a);
    return a;
  };

  it('one check runs, two wait, the next is refused at once (busy); queued checks of clients that left are dropped', async () => {
    const a = make();
    let left = false;
    const results = await Promise.all([
      a.check(basic('prometheus', 'x1'), 'c1'),
      a.check(basic('prometheus', 'x2'), 'c2', () => left),
      a.check(basic('prometheus', 'x3'), 'c3', () => left),
      a.check(basic('prometheus', 'x4'), 'c4'),
      (async () => {
        left = true; // the two queued clients disconnect while the first check runs
        return 'marker';
      })(),
    ]);
    expect(results).toEqual(['denied', 'gone', 'gone', 'busy', 'marker']);
  });

  it('a right password passes and is then cached (no bcrypt, even over the failure limit)', async () => {
    const a = make({ maxFailuresPerClient: 1 });
    expect(await a.check(basic('prometheus', 'right'), 'c')).toBe('ok');
    expect(await a.check(basic('prometheus', 'wrong'), 'c')).toBe('denied');
    expect(await a.check(basic('prometheus', 'wrong'), 'c')).toBe('limited');
    // The pool busy and its queue full with other clients' checks: a cached success needs neither
    // (through bcrypt it would be refused as busy), and it is answered before any of them.
    const order: string[] = [];
    const others = [1, 2, 3].map((i) => a.check(basic('prometheus', `x${i}`), `o${i}`).then((r) => void order.push(`other ${r}`)));
    const cached = a.check(basic('prometheus', 'right'), 'c').then((r) => void order.push(`cached ${r}`));
    await Promise.all([...others, cached]);
    expect(order[0]).toBe('cached ok');
    expect(await a.check(basic('nobody', 'right'), 'other')).toBe('denied');
  });

  it('a used credential stays cached (sliding expiry): 100 addresses flooding wrong passwords never hold it up, hours later', async () => {
    const a = make({ maxFailuresPerClient: 10 });
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    try {
      expect(await a.check(basic('prometheus', 'right'), '10.0.0.1')).toBe('ok');
      const flood: Promise<unknown>[] = [];
      for (let minute = 1; minute <= 120; minute++) {
        vi.setSystemTime(1_700_000_000_000 + minute * 60_000);
        // Every minute each of 100 addresses sends wrong passwords: the bcrypt queue stays full.
        for (let i = 0; i < 100; i++) flood.push(a.check(basic('prometheus', `wrong${minute}`), `192.0.2.${i}`));
        // Prometheus scrapes every minute: answered from the cache, never queued behind the flood.
        expect(await a.check(basic('prometheus', 'right'), '10.0.0.1')).toBe('ok');
      }
      await Promise.all(flood);
    } finally {
      vi.useRealTimers();
    }
  }, 60_000);

  it("failures count per address and user: another user's wrong passwords from Prometheus's address do not lock it out", async () => {
    const a = make({ maxFailuresPerClient: 10 });
    for (let i = 0; i < 10; i++) expect(await a.check(basic('sidecar', `wrong${i}`), '127.0.0.1')).toBe('denied');
    expect(await a.check(basic('sidecar', 'wrong'), '127.0.0.1')).toBe('limited');
    expect(await a.check(basic('prometheus', 'right'), '127.0.0.1')).toBe('ok'); // not cached before: a bcrypt check
    expect(a.retryAfter('127.0.0.1', basic('sidecar', 'x'))).toBeGreaterThan(0);
    expect(a.retryAfter('127.0.0.1', basic('prometheus', 'x'))).toBeUndefined();
  });
});
