/**
 * Password checks off the serving thread: a bounded pool of worker threads running bcryptjs, with
 * a bounded queue whose jobs are dropped when their client has gone. Checks from addresses that
 * have not failed or been refused lately go first, so a wrong-password flood cannot keep a right
 * password waiting.
 */
import { Worker } from 'node:worker_threads';
import type { CompareReply, CompareRequest } from './bcrypt-worker.js';

/** Limits on password checking (`web.auth` in the configuration file). */
export interface AuthLimits {
  /** bcrypt verifications running at once, each in a worker thread. */
  maxConcurrentChecks: number;
  /**
   * Checks waiting for a free worker; beyond this a request is answered 429 without bcrypt, unless
   * it comes from an address in good standing: then it takes the place of the newest waiting
   * check from an address that has failed or been refused lately.
   */
  maxQueuedChecks: number;
  /**
   * Failed checks one client address may make per user name and window; beyond them, one check
   * per window / maxFailuresPerClient (429 with Retry-After meanwhile, without bcrypt).
   */
  maxFailuresPerClient: number;
  failureWindowMs: number;
}

export const DEFAULT_AUTH_LIMITS: AuthLimits = { maxConcurrentChecks: 2, maxQueuedChecks: 32, maxFailuresPerClient: 10, failureWindowMs: 60_000 };

/** The worker's module, compiled beside this one (bcrypt-worker.ts). */
function startWorker(): Worker {
  const url = new URL(`./bcrypt-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  if (url.pathname.endsWith('.js')) return new Worker(url);
  // Run from the TypeScript sources (the tests): a worker thread has no loader for .ts of its own.
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true });
}

interface Job {
  /** Whom the check is for: its priority is looked up when a place or a worker is given out. */
  address: string;
  pass: string;
  hash: string;
  /** The client is gone: the job is dropped instead of run. */
  gone: () => boolean;
  resolve: (r: CheckResult) => void;
}

/**
 * At most N bcrypt verifications at once, each in its own worker thread (bcryptjs's async form
 * still runs ~75 ms slices on the calling thread), a bounded queue in front of them, and queued
 * work dropped when its client disconnects.
 */
export class BcryptPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Job[] = [];
  /** Addresses with a check waiting or running. */
  private readonly checking = new Set<string>();
  private readonly running = new Map<number, (ok: boolean) => void>();
  private nextId = 1;
  private closed = false;

  /**
   * `rank(address)`: where an address's checks wait, lower first (0: it has not failed or been
   * refused lately); when the queue is full, a check takes the place of one ranked further back.
   */
  constructor(
    private readonly limits: AuthLimits,
    private readonly rank: (address: string) => number = () => 0,
  ) {}

  /**
   * One check at a time per client address: a second one is refused at once, so that each address
   * holds at most one place, and one that has not failed lately can always take a place from one
   * that has.
   */
  compare(pass: string, hash: string, gone: () => boolean, address = ''): Promise<CheckResult> {
    return new Promise((done) => {
      if (this.checking.has(address)) return done('busy');
      if (this.queue.length >= this.limits.maxQueuedChecks) {
        // The newest of the checks ranked furthest back, if behind this one.
        const mine = this.rank(address);
        let i = -1;
        let worst = mine;
        this.queue.forEach((j, k) => {
          const r = this.rank(j.address);
          if (r >= worst && r > mine) [i, worst] = [k, r];
        });
        if (i < 0) return done('busy');
        this.queue.splice(i, 1)[0]!.resolve('busy');
      }
      this.checking.add(address);
      const resolve = (r: CheckResult): void => {
        this.checking.delete(address);
        done(r);
      };
      this.queue.push({ address, pass, hash, gone, resolve });
      this.pump();
    });
  }

  private worker(): Worker | undefined {
    const w = this.idle.pop();
    if (w) return w;
    if (this.all.length >= this.limits.maxConcurrentChecks || this.closed) return undefined;
    const created = startWorker();
    created.unref();
    created.on('message', (m: CompareReply) => {
      this.running.get(m.id)?.(m.ok);
      this.running.delete(m.id);
      this.idle.push(created);
      this.pump();
    });
    created.on('error', () => {});
    this.all.push(created);
    return created;
  }

  private pump(): void {
    for (;;) {
      if (this.queue.length === 0) return;
      // The oldest of the checks ranked first.
      let i = 0;
      this.queue.forEach((j, k) => {
        if (this.rank(j.address) < this.rank(this.queue[i]!.address)) i = k;
      });
      const job = this.queue[i]!;
      if (job.gone()) {
        this.queue.splice(i, 1);
        job.resolve('gone');
        continue;
      }
      const w = this.worker();
      if (!w) return;
      this.queue.splice(i, 1);
      const id = this.nextId++;
      this.running.set(id, (ok) => job.resolve(ok ? 'ok' : 'denied'));
      w.postMessage({ id, pass: job.pass, hash: job.hash } satisfies CompareRequest);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.resolve('gone');
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

export type CheckResult = 'ok' | 'denied' | 'limited' | 'busy' | 'gone';
