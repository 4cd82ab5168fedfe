/**
 * Runs one collector for one scope (a target, or a network): a node-cron schedule with no overlap
 * and a small random delay, a deadline per run, the result applied to the store in one step,
 * success/duration/last-success series, and one log line per state change (not per failed poll).
 * A network-scoped runner tries its candidate targets in order until one answers.
 */
import cron, { type ScheduledTask } from 'node-cron';
import { M } from '../exposition/catalogue.js';
import type { Collector, NodeFacts } from '../collectors/types.js';
import { ExporterError } from '../errors.js';
import { linkedSignal } from './deadline.js';
import type { DatanodeClient } from '../upstream/client.js';
import type { Logger } from '../process/logger.js';
import type { Sample } from '../exposition/render.js';
import type { SeriesStore } from '../exposition/store.js';

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
  /** Facts from the last successful poll. */
  facts: NodeFacts | undefined;
  /** The target that answered the last successful poll. */
  answeredBy: string | undefined;
}

export interface Candidate {
  target: string;
  client: DatanodeClient;
}

/** Store keys: a target's start with its name and NUL, a network's with NUL "net" NUL. */
export const targetKeyPrefix = (target: string): string => `${target}\u0000`;
export const networkKeyPrefix = (network: string): string => `\u0000net\u0000${network}\u0000`;

export class CollectorRunner {
  readonly state: RunnerState = { runs: 0, success: undefined, lastSuccessMs: undefined, durationS: undefined, lastErrorCode: undefined, pagesTotal: 0, truncated: false, facts: undefined, answeredBy: undefined };
  private task: ScheduledTask | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly dataKey: string;
  private readonly metaKey: string;

  constructor(
    /** Target name (node scope) or network (network scope). */
    readonly scopeValue: string,
    readonly collector: Collector,
    private readonly candidates: () => Candidate[],
    private readonly store: SeriesStore,
    readonly settings: RunnerSettings,
    private readonly log: Logger,
    private readonly onApplied: (runner: CollectorRunner) => void = () => {},
  ) {
    const prefix = collector.scope === 'node' ? targetKeyPrefix(scopeValue) : networkKeyPrefix(scopeValue);
    this.dataKey = `${prefix}${collector.name}`;
    this.metaKey = `${prefix}${collector.name}\u0000meta`;
  }

  /** For node scope: the target name. */
  get target(): string {
    return this.scopeValue;
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

  /** Stop the schedule and abort the poll in flight. With `drop`, remove this runner's series. */
  async stop(drop = false): Promise<void> {
    await this.task?.destroy();
    this.abort.abort(new ExporterError('POLL_TIMEOUT', 'collector stopping'));
    await this.inFlight?.catch(() => {});
    if (drop) {
      this.store.delete(this.dataKey);
      this.store.delete(this.metaKey);
    }
  }

  /** Poll now (joining a poll already in flight); `signal` can shorten the deadline (probes). */
  runOnce(signal?: AbortSignal): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.poll(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async poll(extra?: AbortSignal): Promise<void> {
    if (this.abort.signal.aborted) return;
    const started = performance.now();
    const linked = linkedSignal([this.abort.signal, extra], this.settings.timeoutMs);
    try {
      await this.pollWith(linked.signal, started);
    } finally {
      linked.dispose();
    }
  }

  private async pollWith(signal: AbortSignal, started: number): Promise<void> {
    const wasFailing = this.state.success === false;
    const c = this.collector;
    let result: Awaited<ReturnType<Collector['collect']>> | undefined;
    let answeredBy: string | undefined;
    let error: unknown = new ExporterError('UPSTREAM_CONNECT', 'no healthy target to ask');
    for (const cand of this.candidates()) {
      try {
        result = await c.collect({ target: this.scopeValue, client: cand.client, signal, pageSize: this.settings.pageSize, maxPages: this.settings.maxPages });
        answeredBy = cand.target;
        break;
      } catch (err) {
        error = err;
        if (signal.aborted) break;
        if (c.scope === 'network') this.log.debug({ network: this.scopeValue, collector: c.name, target: cand.target, code: errorCode(err) }, 'failing over to the next target');
      }
    }
    if (this.abort.signal.aborted) return;
    const now = Date.now();
    const who = c.scope === 'node' ? { target: this.scopeValue } : { network: this.scopeValue };
    this.state.runs += 1;
    this.state.durationS = (performance.now() - started) / 1000;
    if (result) {
      this.state.pagesTotal += result.pages ?? 0;
      if (result.pages !== undefined) this.state.truncated = result.truncated !== undefined;
      if (result.truncated) this.log.warn({ ...who, collector: c.name, reason: result.truncated }, 'list walk truncated; series are incomplete');
      this.state.success = true;
      this.state.lastSuccessMs = now;
      this.state.lastErrorCode = undefined;
      this.state.facts = result.facts;
      this.state.answeredBy = answeredBy;
      this.store.set(this.dataKey, result.samples, now, this.settings.maxAgeMs);
      if (wasFailing) this.log.info({ ...who, collector: c.name }, 'collector recovered');
    } else {
      const code = errorCode(error);
      this.state.success = false;
      if (!wasFailing || this.state.lastErrorCode !== code) {
        this.log.warn({ ...who, collector: c.name, code, err: error instanceof Error ? error.message : String(error) }, 'collector failing');
      } else {
        this.log.debug({ ...who, collector: c.name, code }, 'collector still failing');
      }
      this.state.lastErrorCode = code;
    }
    this.store.set(this.metaKey, this.metaSamples(result?.up), now, Infinity);
    this.store.expire(now);
    this.onApplied(this);
  }

  private metaSamples(up: number | undefined): Sample[] {
    const v = this.scopeValue;
    const c = this.collector.name;
    const s = this.state;
    const node = this.collector.scope === 'node';
    const out: Sample[] = [
      { metric: node ? M.collectorSuccess : M.netCollectorSuccess, values: [v, c], value: s.success ? 1 : 0 },
      { metric: node ? M.collectorDuration : M.netCollectorDuration, values: [v, c], value: s.durationS ?? 0 },
    ];
    if (s.lastSuccessMs !== undefined) out.push({ metric: node ? M.collectorLastSuccess : M.netCollectorLastSuccess, values: [v, c], value: s.lastSuccessMs / 1000 });
    if (this.collector.upMetric) out.push({ metric: this.collector.upMetric, values: [v], value: s.success ? (up ?? 1) : 0 });
    if (s.pagesTotal > 0 || this.collector.name === 'key_rotations') {
      out.push({ metric: node ? M.upstreamPages : M.netUpstreamPages, values: [v, c], value: s.pagesTotal });
      out.push({ metric: node ? M.paginationTruncated : M.netPaginationTruncated, values: [v, c], value: s.truncated ? 1 : 0 });
    }
    if (!node && s.answeredBy !== undefined) out.push({ metric: M.networkSource, values: [v, c, s.answeredBy], value: 1 });
    return out;
  }
}

function errorCode(err: unknown): string {
  return err instanceof ExporterError ? err.code : 'UNEXPECTED';
}
