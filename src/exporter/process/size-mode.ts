/**
 * V8's `--optimize-for-size` while the exposition is small.
 *
 * The launch flag (launch.ts) holds resident memory down where there is memory to save: at ~10,000
 * series and up, and on the polling thread. It also costs every request CPU, which weighs most where
 * the body is small, and there it saves only a MiB or two (docs/
 * performance.md, "V8 favours speed while the exposition is small"). So the single-thread exporter
 * turns it off as it starts, on again once the series count reaches SIZE_FROM_SERIES, and off again
 * below SPEED_BELOW_SERIES once every collector has polled; the gap between the two keeps an
 * exposition near one bound from switching at every poll. V8 reads this flag at run time (the young
 * generation keeps the size it was given at start). It is process-wide, so the threaded exporter
 * never switches it: the polling thread's collections were measured with it on.
 * A process started without the flag is left as started.
 */
import { setFlagsFromString } from 'node:v8';

export const SPEED_BELOW_SERIES = 4_000;
export const SIZE_FROM_SERIES = 5_000;
/** How often the series count is looked at besides changes (for the way back to speed). */
export const SIZE_MODE_CHECK_MS = 5_000;

export type V8Mode = 'size' | 'speed';

export class SizeMode {
  private mode: V8Mode | undefined;

  constructor(
    execArgv: readonly string[] = process.execArgv,
    private readonly set: (flags: string) => void = setFlagsFromString,
  ) {
    this.mode = execArgv.includes('--optimize-for-size') ? 'size' : undefined;
  }

  /** The mode now; undefined when the process was started without the flag (never switched). */
  get current(): V8Mode | undefined {
    return this.mode;
  }

  /**
   * Favour speed from the start, before the scrape path's code is compiled: code V8 compiled under
   * the flag stays as slow after the flag is off (measured: switching after the first scrapes
   * gained nothing).
   */
  begin(): void {
    if (this.mode !== 'size') return;
    this.set('--no-optimize-for-size');
    this.mode = 'speed';
  }

  /** Switch for this many series, if it crosses a bound; returns the new mode when it switched. */
  update(series: number): V8Mode | undefined {
    if (this.mode === undefined) return undefined;
    const next: V8Mode = series < SPEED_BELOW_SERIES ? 'speed' : series >= SIZE_FROM_SERIES ? 'size' : this.mode;
    if (next === this.mode) return undefined;
    this.set(next === 'speed' ? '--no-optimize-for-size' : '--optimize-for-size');
    this.mode = next;
    return next;
  }
}
