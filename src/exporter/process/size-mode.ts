/**
 * V8's `--optimize-for-size` while the exposition and the upstream bodies are small.
 *
 * The launch flag (launch.ts) holds resident memory down where there is memory to save: large
 * expositions, large upstream bodies, and the polling thread. It also costs every request CPU,
 * which weighs most where the body is small, and there it saves little (docs/performance.md,
 * "V8 favours speed while the exposition is small"). So the single-thread exporter turns it off as
 * it starts; on again for good at the first upstream body of SIZE_FROM_BODY_BYTES, before that body
 * is parsed (parsing a large body without the flag raised the resident peak); on again while the
 * series count is at SIZE_FROM_SERIES or more, and back to speed below SPEED_BELOW_SERIES once
 * every collector has polled. The gap between the two bounds keeps an exposition near one of them
 * from switching at every poll. V8 reads this flag at run time (the young generation keeps the
 * size it was given at start). It is process-wide, so the large-body latch is too, and the
 * threaded exporter never switches it: the polling thread's collections were measured with it on.
 * A process started without the flag is left as started.
 */
import { setFlagsFromString } from 'node:v8';

export const SPEED_BELOW_SERIES = 4_000;
export const SIZE_FROM_SERIES = 5_000;
/** An upstream body this large turns size mode on for the rest of the process's life. */
export const SIZE_FROM_BODY_BYTES = 1024 * 1024;
/** How often the series count is looked at besides changes (for the way back to speed). */
export const SIZE_MODE_CHECK_MS = 5_000;

export type V8Mode = 'size' | 'speed';

/** The switch the upstream client reports body sizes to: set by begin(), cleared by end(). */
let following: SizeMode | undefined;
/** A large body was seen: size for the rest of the process's life, across exporter restarts. */
let latched = false;

/** Called by the upstream client with each body's size before it is parsed. */
export function upstreamBody(bytes: number): void {
  if (bytes >= SIZE_FROM_BODY_BYTES) following?.largeBody(bytes);
}

export class SizeMode {
  private mode: V8Mode | undefined;

  /** Forget a large body (tests only: the latch is process-wide). */
  static resetLatch(): void {
    latched = false;
  }

  constructor(
    execArgv: readonly string[] = process.execArgv,
    private readonly set: (flags: string) => void = setFlagsFromString,
    /** Told of each switch, with what caused it (for the log). */
    private readonly onSwitch: (mode: V8Mode, cause: Record<string, number>) => void = () => {},
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
   * gained nothing). From here on, upstream body sizes reach this switch.
   */
  begin(): void {
    if (this.mode === undefined) return;
    following = this;
    if (!latched) this.switchTo('speed', {});
  }

  /** Stop following upstream bodies (the exporter stopped); the flag stays as it is. */
  end(): void {
    if (following === this) following = undefined;
  }

  /** Switch for this many series, if it crosses a bound; returns the new mode when it switched. */
  update(series: number): V8Mode | undefined {
    if (this.mode === undefined) return undefined;
    const next: V8Mode = latched || series >= SIZE_FROM_SERIES ? 'size' : series < SPEED_BELOW_SERIES ? 'speed' : this.mode;
    return this.switchTo(next, { series });
  }

  /** A large upstream body is about to be parsed: size from now on. */
  largeBody(bytes: number): void {
    if (this.mode === undefined) return;
    latched = true;
    this.switchTo('size', { bytes });
  }

  private switchTo(next: V8Mode, cause: Record<string, number>): V8Mode | undefined {
    if (next === this.mode) return undefined;
    this.set(next === 'speed' ? '--no-optimize-for-size' : '--optimize-for-size');
    this.mode = next;
    this.onSwitch(next, cause);
    return next;
  }
}
