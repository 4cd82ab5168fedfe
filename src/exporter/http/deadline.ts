/**
 * A deadline signal linked to longer-lived ones, released when done. AbortSignal.any() would do
 * the same, but on Node 20 every call leaves a reference on each parent until the parent aborts:
 * a runner's stop signal lives as long as the process, so that leaked a little on every poll.
 */
import { ExporterError } from '../errors.js';

export interface Linked {
  signal: AbortSignal;
  dispose: () => void;
}

export function linkedSignal(parents: readonly (AbortSignal | undefined)[], timeoutMs: number, what = 'poll'): Linked {
  const ac = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  for (const p of parents) {
    if (!p) continue;
    if (p.aborted) {
      ac.abort(p.reason);
      break;
    }
    const on = (): void => ac.abort(p.reason);
    p.addEventListener('abort', on, { once: true });
    listeners.push([p, on]);
  }
  const timer = setTimeout(() => ac.abort(new ExporterError('POLL_TIMEOUT', `${what} deadline of ${timeoutMs} ms exceeded`)), timeoutMs);
  timer.unref();
  return {
    signal: ac.signal,
    dispose: () => {
      clearTimeout(timer);
      for (const [p, on] of listeners) p.removeEventListener('abort', on);
    },
  };
}
