/**
 * The polling thread runs below the serving thread's CPU priority. A poll is a burst of work
 * (parse, render, gzip) that nobody waits for within milliseconds; a scrape is. On a machine with
 * few cores the burst otherwise holds the core a scrape needs, and the scrapes that land in it are
 * the slow tail Prometheus sees (docs/performance.md, "Scrapes while polls are applied").
 *
 * Linux gives each thread its own nice value; this sets the calling thread's. Elsewhere, or where
 * the thread cannot be found, nothing changes: polls then share the process's priority.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How much lower than the process: under contention a nice-10 thread gets about a tenth of a core next to a nice-0 one. */
export const POLLING_NICE_INCREMENT = 10;
const LOWEST = 19;

export interface Lowered {
  tid: number;
  from: number;
  to: number;
}

/** The calling thread's kernel id, from `/proc/thread-self` (Linux 3.17 and later). */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lower the calling thread's priority by `by` nice steps (relative, so a process an operator
 * started at a lower priority stays below its own level). Returns what changed, or undefined when
 * nothing could be.
 */
export function lowerThreadPriority(by: number = POLLING_NICE_INCREMENT): Lowered | undefined {
  const tid = threadId();
  if (tid === undefined) return undefined;
  try {
    const from = getPriority(tid);
    const to = Math.min(LOWEST, from + by);
    if (to !== from) setPriority(tid, to);
    return { tid, from, to };
  } catch {
    return undefined;
  }
}
