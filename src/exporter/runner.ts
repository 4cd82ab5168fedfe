/**
 * Runs one collector for one target: a node-cron schedule with no overlap and a small random
 * delay, a deadline per run, the result applied to the store in one step, per-collector
 * success/duration/last-success series, and one log line per state change (not per failed poll).
 */
import cron, { type ScheduledTask } from 'node-cron';
import { M } from './catalogue.js';
import type { Collector } from './collectors/types.js';
import { ExporterError } from './errors.js';
import type { DatanodeClient } from './http/client.js';
import type { Logger } from './logger.js';
import type { Sample } from './render.js';
import type { SeriesStore } from './store.js';

export interface RunnerSettings {
  intervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  cron: string;
  pageSize: number;
  maxPages: number;
}

export interface RunnerState {
  runs: number;
  success: boolean | undefined;
  lastSuccessMs: number | undefined;
  durationS: number | undefined;
  lastErrorCode: string | undefined;
  pagesTotal: number;
  truncated: boolean;
}

export class CollectorRunner {
  readonly state: RunnerState = { runs: 0, success: undefined, lastSuccessMs: undefined, durationS: undefined, lastErrorCode: undefined, pagesTotal: 0, truncated: false };
  private task: ScheduledTask | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly dataKey: string;
  private readonly metaKey: string;

  constructor(
    readonly target: string,
    readonly collector: Collector,
    private readonly client: DatanodeClient,
    private readonly store: SeriesStore,
    readonly settings: RunnerSettings,
    private readonly log: Logger,
    private readonly onApplied: () => void = () => {},
  ) {
    this.dataKey = `${target}\u0000${collector.name}`;
    this.metaKey = `${target}\u0000${collector.name}\u0000meta`;
  }

  /** Run now, then on the schedule. */
  start(): void {
    void this.runOnce();
    this.task = cron.schedule(this.settings.cron, () => this.runOnce(), {
      name: this.dataKey,
      noOverlap: true,
      // Spread targets that share a schedule so they do not all hit at the same instant.
      maxRandomDelay: Math.min(1000, Math.floor(this.settings.intervalMs / 10)),
    });
  }

  async stop(): Promise<void> {
    await this.task?.destroy();
    this.abort.abort(new ExporterError('POLL_TIMEOUT', 'exporter stopping'));
    await this.inFlight?.catch(() => {});
  }

  runOnce(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.poll().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async poll(): Promise<void> {
    if (this.abort.signal.aborted) return;
    const started = performance.now();
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    const wasFailing = this.state.success === false;
    let samples: Sample[] | undefined;
    let up: number | undefined;
    let error: unknown;
    try {
      const result = await this.collector.collect({ target: this.target, client: this.client, signal, pageSize: this.settings.pageSize, maxPages: this.settings.maxPages });
      samples = result.samples;
      up = result.up;
      this.state.pagesTotal += result.pages ?? 0;
      if (result.pages !== undefined) this.state.truncated = result.truncated !== undefined;
      if (result.truncated) this.log.warn({ target: this.target, collector: this.collector.name, reason: result.truncated }, 'list walk truncated; series are incomplete');
    } catch (err) {
      error = err;
    }
    if (this.abort.signal.aborted) return;
    const now = Date.now();
    this.state.runs += 1;
    this.state.durationS = (performance.now() - started) / 1000;
    if (samples) {
      this.state.success = true;
      this.state.lastSuccessMs = now;
      this.state.lastErrorCode = undefined;
      this.store.set(this.dataKey, samples, now, this.settings.maxAgeMs);
      if (wasFailing) this.log.info({ target: this.target, collector: this.collector.name }, 'collector recovered');
    } else {
      const code = error instanceof ExporterError ? error.code : 'UNEXPECTED';
      this.state.success = false;
      if (!wasFailing || this.state.lastErrorCode !== code) {
        this.log.warn({ target: this.target, collector: this.collector.name, code, err: error instanceof Error ? error.message : String(error) }, 'collector failing');
      } else {
        this.log.debug({ target: this.target, collector: this.collector.name, code }, 'collector still failing');
      }
      this.state.lastErrorCode = code;
    }
    this.store.set(this.metaKey, this.metaSamples(up), now, Infinity);
    this.store.expire(now);
    this.onApplied();
  }

  private metaSamples(up: number | undefined): Sample[] {
    const t = this.target;
    const c = this.collector.name;
    const s = this.state;
    const out: Sample[] = [
      { metric: M.collectorSuccess, values: [t, c], value: s.success ? 1 : 0 },
      { metric: M.collectorDuration, values: [t, c], value: s.durationS ?? 0 },
    ];
    if (s.lastSuccessMs !== undefined) out.push({ metric: M.collectorLastSuccess, values: [t, c], value: s.lastSuccessMs / 1000 });
    if (this.collector.upMetric) out.push({ metric: this.collector.upMetric, values: [t], value: s.success ? (up ?? 1) : 0 });
    if (s.pagesTotal > 0 || this.collector.name === 'key_rotations') {
      out.push({ metric: M.upstreamPages, values: [t, c], value: s.pagesTotal });
      out.push({ metric: M.paginationTruncated, values: [t, c], value: s.truncated ? 1 : 0 });
    }
    return out;
  }
}
