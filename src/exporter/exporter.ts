/**
 * The composition root: configuration and the collector registry in, a fleet of runners polling
 * into one series store, served over HTTP (here, or by the serving thread: process/threaded.ts).
 */
import { isMainThread } from 'node:worker_threads';
import { COLLECTORS } from './collectors/index.js';
import type { AnyCollectorModule } from './collectors/define.js';
import type { Config } from './config/schema.js';
import { catalogueOf } from './exposition/catalogue.js';
import { SeriesStore } from './exposition/store.js';
import { setLabelValueLimit } from './exposition/render.js';
import { Fleet } from './fleet/fleet.js';
import type { RuntimeContext } from './fleet/runtime-context.js';
import { GcHint, POLLING_HEAP_GROWTH_BUDGET, plainGc } from './process/gc-hint.js';
import { SIZE_FROM_SERIES, SIZE_MODE_CHECK_MS, SizeMode } from './process/size-mode.js';
import { PacerRegistry } from './upstream/pace.js';
import { Limiter } from './schedule/limiter.js';
import type { Logger } from './process/logger.js';
import type { CollectorRunner, RunnerStatus } from './schedule/runner.js';
import { Prober, type ProbeResult } from './web/probe.js';
import type { PolledBody } from './web/server.js';
import type { RunningWeb, WebAuth } from './web/start.js';

export { VERSION } from './process/version.js';

/** Above this heap a forced collection would pause scrapes noticeably (docs/performance.md). */
const SERVING_THREAD_GC_MAX_HEAP = 64 * 2 ** 20;
/** First polls in flight at once: enough to hide upstream latency, few enough to keep event-loop turns short. */
const FIRST_POLLS_AT_ONCE = 64;

/** Settings that a reload applies without rebuilding the runtimes. */
const LIVE_SETTINGS = ['targets', 'discovery', 'shard', 'web', 'log'] as const;

export class Exporter {
  readonly store: SeriesStore;
  private readonly ctx: RuntimeContext;
  private readonly fleet: Fleet;
  private readonly prober: Prober;
  private web: RunningWeb | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private sizeModeTimer: NodeJS.Timeout | undefined;
  private sizeMode: SizeMode | undefined;

  constructor(
    config: Config,
    private readonly log: Logger,
    /** Re-reads the configuration for SIGHUP and POST /-/reload; throws ConfigError when invalid. */
    private readonly loadConfig?: () => Config,
    collectors: readonly AnyCollectorModule[] = COLLECTORS,
  ) {
    this.store = new SeriesStore(catalogueOf(collectors));
    // On the serving thread a forced collection pauses scrapes: only while the heap is small. It
    // compacts there, where resident memory was measured to need it (docs/performance.md, "Node
    // 24"); the polling thread keeps the plain one its during-polls figures were measured with, and
    // bounds its heap's growth itself (V8's is raised, process-wide, when it starts: raiseHeapGrowth).
    this.store.gcHint = isMainThread ? new GcHint({ maxHeapBytes: SERVING_THREAD_GC_MAX_HEAP }) : new GcHint({ gc: plainGc(), growthBudgetBytes: POLLING_HEAP_GROWTH_BUDGET });
    this.applyLimits(config);
    this.store.onTruncated = (bytes) => this.log.warn({ code: 'BODY_LIMIT', bytes, limit: this.config.limits.metrics_body_bytes }, '/metrics reached limits.metrics_body_bytes: later families are left out'); 
    this.ctx = { config, store: this.store, log, collectors, pacers: new PacerRegistry(), firstPolls: new Limiter(FIRST_POLLS_AT_ONCE) };
    this.fleet = new Fleet(this.ctx);
    this.prober = new Prober(this.ctx, (name) => this.fleet.targets.get(name));
  }

  /** Label-value cap and body cap: applied at render time, on this thread. */
  private applyLimits(config: Config): void {
    setLabelValueLimit(config.limits.label_value_bytes);
    this.store.bodyLimitBytes = config.limits.metrics_body_bytes;
  }

  get config(): Config {
    return this.ctx.config;
  }

  get targets(): Fleet['targets'] {
    return this.fleet.targets;
  }

  get networks(): Fleet['networks'] {
    return this.fleet.networks;
  }

  /** Every runner, node- and network-scoped. */
  get runners(): CollectorRunner[] {
    return this.fleet.runners;
  }

  /**
   * Collectors that have not completed a poll yet (empty when ready). Networks not known yet (no
   * target has answered) do not hold readiness back unless `strict`: an exporter whose node is
   * down must still be scraped, to report it down.
   */
  pending(strict = false): string[] {
    const out = this.runners.filter((r) => r.state.runs === 0).map((r) => `${r.scopeValue}/${r.collector.name}`);
    if (strict && this.fleet.wantsNetworks && this.networks.size === 0) out.push('network-scoped collectors (no network known yet)');
    if (this.targets.size === 0) out.push('targets (none configured or discovered)');
    return out;
  }

  /** Start polling: targets from the config and discovery, schedules, expiry. No HTTP server. */
  async startCore(): Promise<void> {
    await this.fleet.start();
    // Series past their maximum age disappear even when nothing else happens.
    this.expiryTimer = setInterval(() => this.store.expire(Date.now()), 1000);
    this.expiryTimer.unref();
  }

  /** The polled part of /metrics, cached by the store until it changes. */
  polled(): PolledBody {
    return { plain: this.store.render(), gzip: this.store.renderGzip(), version: this.store.version };
  }

  status(): RunnerStatus[] {
    return this.runners.map((r) => ({ scope: r.scopeValue, collector: r.collector.name, runs: r.state.runs, success: r.state.success, lastSuccessMs: r.state.lastSuccessMs, lastErrorCode: r.state.lastErrorCode }));
  }

  /** Poll and serve in this thread (tests, and small configurations). */
  async start(listenAddress = this.config.web.listen_address, auth?: WebAuth): Promise<string> {
    const sizeMode = new SizeMode(process.execArgv, undefined, (mode, cause) =>
      this.log.info({ ...cause, v8: mode === 'speed' ? '--no-optimize-for-size' : '--optimize-for-size' }, `V8 now favours ${mode}`),
    );
    this.sizeMode = sizeMode;
    if (isMainThread) sizeMode.begin();
    // The server and prom-client are loaded here only: the polling thread needs neither.
    const { startWeb } = await import('./web/start.js');
    this.web = await startWeb(
      {
        polled: () => this.polled(),
        status: () => this.status(),
        pending: () => this.pending(),
        probe: (q, timeout) => this.probe(q, timeout),
        reload: () => this.reload(),
        log: this.log,
        lifecycle: () => this.config.web.enable_lifecycle,
        seriesCount: () => this.store.seriesCount(),
      },
      this.config.web,
      listenAddress,
      auth,
    );
    this.followSeriesCount(sizeMode);
    await this.startCore();
    return this.web.url;
  }

  /**
   * Polling and serving here: V8 favours speed while the exposition is small (process/size-mode.ts).
   * Back to size as soon as a change takes the series count over the bound, so that no later poll
   * of a large exposition runs without the flag; back to speed only once every collector has polled.
   */
  private followSeriesCount(mode: SizeMode): void {
    if (!isMainThread || mode.current === undefined) return;
    const look = (ready: boolean): void => {
      const series = this.store.seriesCount();
      if (!ready && series < SIZE_FROM_SERIES) return;
      mode.update(series);
    };
    this.store.onChange = () => {
      if (mode.current === 'speed') look(false);
    };
    this.sizeModeTimer = setInterval(() => look(this.pending().length === 0), SIZE_MODE_CHECK_MS);
    this.sizeModeTimer.unref();
  }

  /** Re-read the configuration; targets whose settings did not change keep running and keep their series. */
  async reload(): Promise<void> {
    if (!this.loadConfig) throw new Error('this exporter was started without a configuration source');
    const next = this.loadConfig();
    const rest = (c: Config): string => JSON.stringify({ ...c, ...Object.fromEntries(LIVE_SETTINGS.map((k) => [k, null])) });
    const structural = rest(next) !== rest(this.config);
    if (next.web.listen_address !== this.config.web.listen_address) this.log.warn({}, 'web.listen_address changes need a restart');
    // A reload lifts every back-off a node imposed, and applies new pacing settings.
    this.ctx.pacers?.reset(next.http.requests_per_second, next.http.burst);
    this.applyLimits(next);
    await this.fleet.reconfigure(next, structural);
    this.log.info({ targets: this.targets.size, structural }, 'configuration reloaded');
  }

  probe(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined): Promise<ProbeResult> {
    return this.prober.probe(query, scrapeTimeoutSeconds);
  }

  /** Stop schedules, abort in-flight polls, close the server and the upstream pools. */
  async stop(): Promise<void> {
    clearInterval(this.expiryTimer);
    clearInterval(this.sizeModeTimer);
    this.sizeMode?.end();
    this.store.gcHint?.cancel();
    await this.fleet.stop();
    await this.prober.stop();
    await this.web?.stop();
  }
}
