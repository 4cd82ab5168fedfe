/**
 * Long loops give the event loop a turn every few milliseconds: the partitioning of Node's guide
 * "Don't Block the Event Loop". A poll of a large list (a thousand markets, tens of thousands of
 * samples) otherwise holds the thread for a fifth of a second, and a scrape that arrives meanwhile,
 * answered from the last body in a millisecond, waits for all of it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a loop runs before it lets the event loop turn. */
export const TURN_MS = 8;

export class Turns {
  private since = performance.now();

  /** After TURN_MS of work since the last turn, wait for the event loop to turn (I/O, timers, scrapes first). */
  async next(): Promise<void> {
    if (performance.now() - this.since < TURN_MS) return;
    await nextTurn();
    this.since = performance.now();
  }
}
