import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BasicAuth } from '../../../src/exporter/web/auth.js';
import { BcryptPool } from '../../../src/exporter/web/bcrypt-pool.js';

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

  it('a busy answer does not mark its address as failed: its next try takes the place of an address that failed', async () => {
    const a = make({ maxQueuedChecks: 1 });
    // Two first-time addresses hold the worker and the one queue place: Prometheus is told busy.
    const first = [a.check(basic('prometheus', 'x'), 'A'), a.check(basic('prometheus', 'x'), 'B')];
    expect(await a.check(basic('prometheus', 'right'), 'P')).toBe('busy');
    expect(await Promise.all(first)).toEqual(['denied', 'denied']);
    // Now both have failed; the flood goes on, and Prometheus tries again.
    const again = [a.check(basic('prometheus', 'x'), 'A'), a.check(basic('prometheus', 'x'), 'B')];
    expect(await a.check(basic('prometheus', 'right'), 'P')).toBe('ok');
    expect(await Promise.all(again)).toEqual(['denied', 'busy']);
  });

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
    expect(await a.check(basic('prometheus', 'wrong'), 'c')).toBe('denied'); // the one check allowed past the limit
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
    for (let i = 0; i < 11; i++) expect(await a.check(basic('sidecar', `wrong${i}`), '127.0.0.1')).toBe('denied');
    expect(await a.check(basic('sidecar', 'wrong'), '127.0.0.1')).toBe('limited');
    expect(await a.check(basic('prometheus', 'right'), '127.0.0.1')).toBe('ok'); // not cached before: a bcrypt check
    expect(a.retryAfter('127.0.0.1', basic('sidecar', 'x'))).toBeGreaterThan(0);
    expect(a.retryAfter('127.0.0.1', basic('prometheus', 'x'))).toBeUndefined();
  });

  it('past the failure limit an (address, user) is slowed to one check per window / limit, not locked out: the right password still passes (d4b)', async () => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    try {
      const a = make({ maxFailuresPerClient: 3, failureWindowMs: 60_000 });
      for (let i = 0; i < 3; i++) expect(await a.check(basic('prometheus', `wrong${i}`), '10.0.0.9')).toBe('denied');
      expect(await a.check(basic('prometheus', 'right'), '10.0.0.9')).toBe('ok'); // before: 'limited' for 60 s
      const b = make({ maxFailuresPerClient: 3, failureWindowMs: 60_000 });
      for (let i = 0; i < 4; i++) expect(await b.check(basic('prometheus', `wrong${i}`), '10.0.0.9')).toBe('denied');
      expect(await b.check(basic('prometheus', 'right'), '10.0.0.9')).toBe('limited');
      expect(b.retryAfter('10.0.0.9', basic('prometheus', 'x'))).toBe(20); // 60 s / 3
      vi.setSystemTime(1_700_000_020_000);
      expect(await b.check(basic('prometheus', 'right'), '10.0.0.9')).toBe('ok');
    } finally {
      vi.useRealTimers();
    }
  });

  it('one check at a time per address; one from an address without failures goes first, taking the place of the newest waiting one from an address with failures (d4)', async () => {
    const a = make({ maxConcurrentChecks: 1, maxQueuedChecks: 2 });
    for (const bad of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) expect(await a.check(basic('prometheus', 'wrong'), bad)).toBe('denied');
    const order: string[] = [];
    const track = (name: string, p: Promise<string>): Promise<string> => p.then((r) => (order.push(`${name}:${r}`), r));
    await Promise.all([
      track('bad1', a.check(basic('prometheus', 'w1'), '192.0.2.1')), // runs
      track('bad1again', a.check(basic('prometheus', 'w1b'), '192.0.2.1')), // refused: 192.0.2.1 has a check already
      track('bad2', a.check(basic('prometheus', 'w2'), '192.0.2.2')), // waits
      track('bad3', a.check(basic('prometheus', 'w3'), '192.0.2.3')), // waits, then gives its place up
      track('good', a.check(basic('prometheus', 'right'), '10.0.0.1')),
    ]);
    expect(order).toEqual(['bad1again:busy', 'bad3:busy', 'bad1:denied', 'good:ok', 'bad2:denied']);
  });
});

describe('unknown users (n11)', () => {
  it("an unknown user's password is compared with a configured hash of the highest cost (12), as a known user's is", async () => {
    const users = { prometheus: bcrypt.hashSync('right', 12), other: bcrypt.hashSync('x', 4) };
    const a = new BasicAuth(users, { maxConcurrentChecks: 1, maxQueuedChecks: 4, maxFailuresPerClient: 100, failureWindowMs: 60_000 });
    auths.push(a);
    // What bcrypt is asked to compare, not how long it takes: a timing comparison fails on a busy machine.
    const compare = vi.spyOn(BcryptPool.prototype, 'compare');
    try {
      expect(await a.check(basic('prometheus', 'wrong'), '10.0.0.1')).toBe('denied');
      expect(await a.check(basic('nobody', 'wrong'), '10.0.0.1')).toBe('denied');
      expect(compare.mock.calls.map((c) => c[1])).toEqual([users.prometheus, users.prometheus]);
      expect(users.prometheus.slice(0, 7)).toBe('$2b$12$');
    } finally {
      compare.mockRestore();
    }
  });
});
