/**
 * Runs one collector for one scope (a target, or a network): polls with no overlap at a stable
 * offset within the interval, on the process's one scheduler tick (engine/cron.ts), a deadline per run, the result applied
 * to the store in one step, success/duration/last-success series, and one log line per state change (not per failed poll).
 * A network-scoped runner tries its candidate targets in order until one answers.
 */
import type { Collector, CollectorIdentity, CollectResult, Fetcher } from './types.js';
import type { Facts } from './facts.js';
import { ExporterError, errorCode } from '../errors.js';
import { SELF } from './self-metrics.js';
import type { Sample } from './labels.js';
import type { SeriesStore, StoreKey } from './store.js';
import type { Logger } from '../logger.js';
import { sharedScheduler, stableOffset, type ScheduledJob, type Scheduler } from './cron.js';
import { linkedSignal } from '../http/deadline.js';
import type { Limiter } from './limiter.js';

export interface RunnerSettings {
  intervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  pageSize: number;
  maxPages: number;
  /** Series this runner's scope (its target, or its network) may hold across its collectors' data. */
  seriesLimit: number;
  /** Series this runner's collector may hold: its weighted part of seriesLimit. */
  seriesShare: number;
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
  facts: Facts | undefined;
  /** The target that answered the last successful poll. */
  answeredBy: string | undefined;
  /** Rows skipped so far, by reason (a counter). */
  skipped: Map<string, number>;
  /** The last poll's series were cut at the scope's series limit. */
  limited: boolean;
}

/** What the landing page and /readyz show of a runner. */
export type RunnerStatus = Pick<RunnerState, 'runs' | 'success' | 'lastSuccessMs' | 'lastErrorCode'> & { scope: string; collector: string };

export interface Candidate {
  target: string;
  client: Fetcher;
}

export interface RunnerOptions {
  /** Target name (node scope) or network (network scope). */
  scopeValue: string;
  collector: CollectorIdentity;
  instance: Collector;
  /** The targets to ask, in order; a node-scoped runner has exactly one. */
  candidates: () => Candidate[];
  store: SeriesStore;
  settings: RunnerSettings;
  log: Logger;
  onApplied?: (runner: CollectorRunner) => void;
  /** Where the first poll waits its turn (many runners start at once); it runs at once without. */
  firstPolls?: Limiter | undefined;
  /** The process's scheduler unless given one (tests). */
  scheduler?: Scheduler;
}

interface Asked {
  result?: CollectResult;
  answeredBy?: string;
  error: unknown;
}

/** How long after its deadline a poll whose abort went unheard is abandoned. */
const WATCHDOG_GRACE_MS = 1000;
/** How long readiness waits for a runner's first poll: a silent node must not hold it back a whole deadline. */
const READY_AFTER_MS = 5000;

export class CollectorRunner {
  readonly state: RunnerState = {
    runs: 0,
    success: undefined,
    lastSuccessMs: undefined,
    durationS: undefined,
    lastErrorCode: undefined,
    pagesTotal: 0,
    truncated: false,
    facts: undefined,
    answeredBy: undefined,
    skipped: new Map(),
    limited: false,
  };
  readonly scopeValue: string;
  readonly collector: CollectorIdentity;
  readonly settings: RunnerSettings;
  /** Where in each interval this runner polls: a function of its identity only. */
  readonly offsetMs: number;
  private job: ScheduledJob | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly dataKey: StoreKey;
  private readonly metaKey: StoreKey;
  private readonly log: Logger;
  /** (field, reason) pairs already logged: a bad field is logged once, not once per poll. */
  private readonly loggedSkips = new Set<string>();
  /** When the first poll began. */
  private firstStartedMs: number | undefined;

  constructor(private readonly o: RunnerOptions) {
    this.scopeValue = o.scopeValue;
    this.collector = o.collector;
    this.settings = o.settings;
    this.offsetMs = stableOffset(`${o.scopeValue}/${o.collector.name}`, o.settings.intervalMs);
    const node = o.collector.scope === 'node';
    this.dataKey = { scope: node ? 'target' : 'network', id: o.scopeValue, source: o.collector.name };
    this.metaKey = { ...this.dataKey, meta: true };
    this.log = o.log.child({ [node ? 'target' : 'network']: o.scopeValue, collector: o.collector.name });
  }

  /** Run now (readiness), then on the schedule at this runner's offset. */
  start(): void {
    // Skipped if a scheduled run or a probe came first while it waited.
    const first = (): Promise<void> => (this.state.runs === 0 && !this.inFlight ? this.runOnce() : Promise.resolve());
    void (this.o.firstPolls ? this.o.firstPolls.run(first) : first());
    this.job = (this.o.scheduler ?? sharedScheduler(this.o.log)).every(this.settings.intervalMs, this.offsetMs, () => {
      // A poll still running is joined, not doubled.
      this.runOnce().catch((err: unknown) => this.log.error({ code: errorCode(err), err: (err as Error).message }, 'poll failed unexpectedly'));
    });
  }

  /** Stop the schedule and abort the poll in flight. With `drop`, remove this runner's series. */
  async stop(drop = false): Promise<void> {
    this.job?.cancel();
    this.abort.abort(new ExporterError('POLL_TIMEOUT', 'collector stopping'));
    await this.inFlight?.catch(() => {});
    if (drop) {
      this.o.store.delete(this.dataKey);
      this.o.store.delete(this.metaKey);
    }
  }

  /** The first poll has ended, or has run for READY_AFTER_MS: enough for /readyz, whatever its result. */
  attempted(now = Date.now()): boolean {
    return this.state.runs > 0 || (this.firstStartedMs !== undefined && now - this.firstStartedMs >= READY_AFTER_MS);
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
    this.firstStartedMs ??= Date.now();
    const started = performance.now();
    const linked = linkedSignal([this.abort.signal, extra], this.settings.timeoutMs);
    // The deadline works through the abort signal; should a layer below ignore it, the watchdog
    // abandons the poll shortly after, so that every poll ends and is reported failed.
    let watchdog: NodeJS.Timeout | undefined;
    const abandoned = new Promise<Asked>((resolve) => {
      watchdog = setTimeout(
        () => resolve({ error: new ExporterError('POLL_TIMEOUT', `poll still running ${WATCHDOG_GRACE_MS} ms after its deadline; abandoned`) }),
        this.settings.timeoutMs + WATCHDOG_GRACE_MS,
      );
      watchdog.unref();
    });
    try {
      const { result, answeredBy, error } = await Promise.race([this.ask(linked.signal), abandoned]);
      if (this.abort.signal.aborted) return;
      await this.apply(result, answeredBy, error, (performance.now() - started) / 1000);
    } finally {
      clearTimeout(watchdog);
      linked.dispose();
    }
  }

  /** Ask the candidates in order until one answers. */
  private async ask(signal: AbortSignal): Promise<Asked> {
    let error: unknown;
    const candidates = this.o.candidates();
    // Made only when needed: an error captures a stack trace, and polls run many times a second.
    if (candidates.length === 0) error = new ExporterError('UPSTREAM_CONNECT', 'no healthy target to ask');
    for (const cand of candidates) {
      try {
        const result = await this.o.instance.collect({
          target: this.scopeValue,
          client: cand.client,
          signal,
          pageSize: this.settings.pageSize,
          maxPages: this.settings.maxPages,
        });
        return { result, answeredBy: cand.target, error: undefined };
      } catch (err) {
        error = err;
        if (signal.aborted) break;
        if (this.collector.scope === 'network') this.log.debug({ answeredBy: cand.target, code: errorCode(err) }, 'failing over to the next target');
      }
    }
    return { error };
  }

  private async apply(result: CollectResult | undefined, answeredBy: string | undefined, error: unknown, durationS: number): Promise<void> {
    const now = Date.now();
    // The data first, a slice at a time (a large network's poll); then the state and its series in one step.
    if (result) await this.o.store.setInTurns(this.dataKey, this.bounded(result.samples, result.limited === true), now, this.settings.maxAgeMs);
    const wasFailing = this.state.success === false;
    const s = this.state;
    s.runs += 1;
    s.durationS = durationS;
    if (result) {
      s.pagesTotal += result.pages ?? 0;
      if (result.pages !== undefined) s.truncated = result.truncated !== undefined;
      if (result.truncated) this.log.warn({ reason: result.truncated }, 'list walk truncated; series are incomplete');
      s.success = true;
      s.lastSuccessMs = now;
      s.lastErrorCode = undefined;
      s.facts = result.facts;
      s.answeredBy = answeredBy;
      this.countSkips(result.skipped ?? []);
      if (wasFailing) this.log.info({}, 'collector recovered');
    } else {
      const code = errorCode(error);
      s.success = false;
      if (!wasFailing || s.lastErrorCode !== code) this.log.warn({ code, err: error instanceof Error ? error.message : String(error) }, 'collector failing');
      else this.log.debug({ code }, 'collector still failing');
      s.lastErrorCode = code;
    }
    this.o.store.set(this.metaKey, this.metaSamples(result?.up), now, Infinity);
    this.o.store.expire(now);
    this.o.onApplied?.(this);
  }

  private countSkips(skipped: readonly { reason: string; field: string; rows?: number }[]): void {
    for (const { reason, field, rows } of skipped) {
      this.state.skipped.set(reason, (this.state.skipped.get(reason) ?? 0) + (rows ?? 1));
      const key = `${reason}\u0000${field}`;
      if (this.loggedSkips.has(key)) continue;
      this.loggedSkips.add(key);
      this.log.warn({ code: 'UPSTREAM_BAD_FIELD', reason, field }, 'rows with a bad field are skipped; the other rows are exported');
    }
  }

  /**
   * Like Prometheus's sample_limit, per collector: its series up to its share of the scope's limit
   * (and never past what the scope has left), the cut flagged by
   * datanode_exporter_(network_)collector_series_limited and logged once. `cut`: the collector cut its series itself.
   */
  private bounded(samples: Sample[], cut: boolean): Sample[] {
    const { seriesLimit, seriesShare } = this.settings;
    const budget = Math.max(0, Math.min(seriesShare, seriesLimit - this.o.store.seriesIn(this.dataKey)));
    const limited = cut || samples.length > budget;
    if (limited && !this.state.limited) {
      this.log.warn(
        { code: 'SERIES_LIMIT', series: samples.length, kept: budget, share: seriesShare, limit: seriesLimit },
        'series limit reached: the collector stops adding series',
      );
    }
    if (!limited && this.state.limited) this.log.info({}, 'back under the series limit');
    this.state.limited = limited;
    return samples.length > budget ? samples.slice(0, budget) : samples;
  }

  private metaSamples(up: number | undefined): Sample[] {
    const v = this.scopeValue;
    const c = this.collector;
    const s = this.state;
    const node = c.scope === 'node';
    const out: Sample[] = [
      { metric: node ? SELF.collectorSuccess : SELF.netCollectorSuccess, values: [v, c.name], value: s.success ? 1 : 0 },
      { metric: node ? SELF.collectorDuration : SELF.netCollectorDuration, values: [v, c.name], value: s.durationS ?? 0 },
    ];
    if (s.lastSuccessMs !== undefined)
      out.push({ metric: node ? SELF.collectorLastSuccess : SELF.netCollectorLastSuccess, values: [v, c.name], value: s.lastSuccessMs / 1000 });
    out.push({ metric: node ? SELF.collectorSeriesLimited : SELF.netCollectorSeriesLimited, values: [v, c.name], value: s.limited ? 1 : 0 });
    if (c.upMetric) out.push({ metric: c.upMetric, values: [v], value: s.success ? (up ?? 1) : 0 });
    if (s.pagesTotal > 0 || c.paginated) {
      out.push({ metric: node ? SELF.upstreamPages : SELF.netUpstreamPages, values: [v, c.name], value: s.pagesTotal });
      out.push({ metric: node ? SELF.paginationTruncated : SELF.netPaginationTruncated, values: [v, c.name], value: s.truncated ? 1 : 0 });
    }
    for (const [reason, n] of s.skipped) out.push({ metric: node ? SELF.rowsSkipped : SELF.netRowsSkipped, values: [v, c.name, reason], value: n });
    if (!node && s.answeredBy !== undefined) out.push({ metric: SELF.networkSource, values: [v, c.name, s.answeredBy], value: 1 });
    return out;
  }
}
