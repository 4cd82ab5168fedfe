/**
 * The composition root: configuration and the collector registry in, a fleet of runners polling
 * into one series store, rendered by a prom-client registry and served over HTTP.
 */
import { COLLECTORS } from './vega/collectors/index.js';
import type { AnyCollectorModule } from './engine/define.js';
import type { Config } from './config/schema.js';
import { SELF } from './engine/self-metrics.js';
import { catalogueOf } from './fleet/metrics.js';
import { SeriesStore, type StoreKey } from './engine/store.js';
import { Exposition, type Format } from './engine/registry.js';
import { Fleet } from './fleet/fleet.js';
import type { RuntimeContext } from './fleet/runtime-context.js';
import { ApiSli } from './fleet/api-sli.js';
import { PacerRegistry } from './http/pace.js';
import { ByteBudget } from './http/budget.js';
import { Limiter } from './engine/limiter.js';
import type { Logger } from './logger.js';
import type { CollectorRunner, RunnerStatus } from './engine/runner.js';
import type { ProbeResult } from './fleet/probe.js';
import { startWeb, type RunningWeb, type WebAuth } from './web/start.js';
import { BUILD, VERSION } from './version.js';

export { VERSION };
/** First polls in flight at once: enough to hide upstream latency, few enough to keep event-loop turns short. */
const FIRST_POLLS_AT_ONCE = 64;

/** The outcome of the last configuration load (start, SIGHUP, POST /-/reload). */
const RELOAD_KEY: StoreKey = { scope: 'exporter', id: '', source: 'config' };

/** Settings that a reload applies without rebuilding the runtimes (web and log: see restartOnly). */
const LIVE_SETTINGS = ['targets', 'discovery', 'shard', 'web', 'log'] as const;

/**
 * The settings of `next` that differ from `running` and that only a restart applies: the HTTP
 * server's (its address, path, limits, timeouts and web-config file are fixed when it starts) but
 * web.enable_lifecycle (read per request), the logger's, and http.max_held_bytes.
 */
export function restartOnly(running: Config, next: Config): string[] {
  const differ = (section: 'web' | 'log', skip: readonly string[] = []): string[] => {
    const a = running[section] as Record<string, unknown>;
    const b = next[section] as Record<string, unknown>;
    return [...new Set([...Object.keys(a), ...Object.keys(b)])]
      .filter((k) => !skip.includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]))
      .sort()
      .map((k) => `${section}.${k}`);
  };
  // Every target's held answers share one budget, made at start.
  const held = running.http.max_held_bytes !== next.http.max_held_bytes ? ['http.max_held_bytes'] : [];
  return [...differ('web', ['enable_lifecycle']), ...differ('log'), ...held];
}

export class Exporter {
  readonly store: SeriesStore;
  readonly exposition: Exposition;
  /** Pacing and back-off per upstream host, kept across reloads (a reload lifts back-offs and applies new pacing). */
  private readonly pacers = new PacerRegistry();
  private readonly fleet: Fleet;
  private web: RunningWeb | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  /** When the running configuration was loaded. */
  private lastLoadedMs = 0;
  /** The configuration the server and logger were started with: what restart-only settings still are. */
  private readonly startedWith: Config;
  /** Settings the last loaded configuration changes that only a restart applies. */
  private restartNeeded: string[] = [];

  constructor(
    config: Config,
    private readonly log: Logger,
    /** Re-reads the configuration for SIGHUP and POST /-/reload; throws ConfigError when invalid. */
    private readonly loadConfig?: () => Config,
    collectors: readonly AnyCollectorModule[] = COLLECTORS,
  ) {
    this.store = new SeriesStore();
    const catalogue = catalogueOf(collectors);
    const sli = new ApiSli();
    this.exposition = new Exposition(this.store, catalogue, {
      build: BUILD,
      seriesCount: () => this.store.seriesCount(),
      parted: [sli],
      onTruncated: (limit) => this.log.warn({ code: 'BODY_LIMIT', limit }, '/metrics reached limits.metrics_body_bytes: later families are left out'),
    });
    this.applyLimits(config);
    const ctx: RuntimeContext = {
      config,
      store: this.store,
      log,
      collectors,
      pacers: this.pacers,
      heldBytes: new ByteBudget(config.http.max_held_bytes),
      firstPolls: new Limiter(FIRST_POLLS_AT_ONCE),
      apiSli: sli,
    };
    this.startedWith = config;
    this.fleet = new Fleet(ctx);
    this.reloaded(true);
  }

  /** As blackbox_exporter: whether the last load succeeded, and when the running configuration was loaded. */
  private reloaded(ok: boolean): void {
    const now = Date.now();
    if (ok) this.lastLoadedMs = now;
    this.store.set(
      RELOAD_KEY,
      [
        { metric: SELF.configReloadSuccessful, values: [], value: ok ? 1 : 0 },
        { metric: SELF.configReloadSuccessTimestamp, values: [], value: this.lastLoadedMs / 1000 },
        { metric: SELF.configRestartNeeded, values: [], value: this.restartNeeded.length > 0 ? 1 : 0 },
      ],
      now,
      Infinity,
    );
  }

  /** Label-value cap (applied as polls are stored) and body cap (applied as /metrics is rendered). */
  private applyLimits(config: Config): void {
    this.store.labelValueBytes = config.limits.label_value_bytes;
    this.exposition.setLimit(config.limits.metrics_body_bytes);
  }

  get config(): Config {
    return this.fleet.config;
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
   * Collectors whose first poll has neither ended nor run a few seconds (empty when ready). Networks not known yet (no
   * target has answered) do not hold readiness back unless `strict`: an exporter whose node is
   * down must still be scraped, to report it down. `strict` also waits for every first poll to end.
   */
  pending(strict = false): string[] {
    const out = this.runners.filter((r) => (strict ? r.state.runs === 0 : !r.attempted())).map((r) => `${r.scopeValue}/${r.collector.name}`);
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

  status(): RunnerStatus[] {
    return this.runners.map((r) => ({
      scope: r.scopeValue,
      collector: r.collector.name,
      runs: r.state.runs,
      success: r.state.success,
      lastSuccessMs: r.state.lastSuccessMs,
      lastErrorCode: r.state.lastErrorCode,
    }));
  }

  /** The health listener's /healthz, when one was started. */
  get healthUrl(): string | undefined {
    return this.web?.healthUrl;
  }

  /** Poll, and serve /metrics and the other routes. */
  async start(listenAddress = this.config.web.listen_address, auth?: WebAuth): Promise<string> {
    this.web = await startWeb(
      {
        metrics: (format) => this.exposition.body(format),
        status: () => this.status(),
        pending: () => this.pending(),
        probe: (q, timeout, format) => this.probe(q, timeout, format),
        reload: () => this.reload(),
        log: this.log,
        lifecycle: () => this.config.web.enable_lifecycle,
        telemetryPath: this.config.web.telemetry_path,
        about: () => ({ build: BUILD, targets: [...this.targets.values()].map((t) => ({ name: t.cfg.name, url: t.cfg.url })) }),
      },
      this.config.web,
      listenAddress,
      auth,
    );
    await this.startCore();
    return this.web.url;
  }

  /**
   * Re-read the configuration; targets whose settings did not change keep running and keep their
   * series. Returns the settings that only a restart applies (their running values are kept).
   */
  async reload(): Promise<string[]> {
    try {
      await this.apply();
    } catch (err) {
      this.reloaded(false);
      throw err;
    }
    this.reloaded(true);
    return this.restartNeeded;
  }

  private async apply(): Promise<void> {
    if (!this.loadConfig) throw new Error('this exporter was started without a configuration source');
    const next = this.loadConfig();
    const rest = (c: Config): string => JSON.stringify({ ...c, ...Object.fromEntries(LIVE_SETTINGS.map((k) => [k, null])) });
    const structural = rest(next) !== rest(this.config);
    const restart = restartOnly(this.startedWith, next);
    // A reload lifts every back-off a node imposed, and applies new pacing settings.
    this.pacers.reset(next.http.requests_per_second, next.http.burst);
    this.applyLimits(next);
    await this.fleet.reconfigure(next, structural);
    this.restartNeeded = restart;
    if (restart.length === 0) this.log.info({ targets: this.targets.size, structural }, 'configuration reloaded');
    else
      this.log.warn(
        { code: 'RESTART_NEEDED', settings: restart, targets: this.targets.size, structural },
        `configuration reloaded but ${restart.join(', ')} ${restart.length === 1 ? 'needs' : 'need'} a restart: the running value is kept until then`,
      );
  }

  probe(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined, format: Format = 'text'): Promise<ProbeResult> {
    return this.fleet.prober.probe(query, scrapeTimeoutSeconds, format);
  }

  /** Stop schedules, abort in-flight polls, close the server and the upstream pools. */
  async stop(): Promise<void> {
    clearInterval(this.expiryTimer);
    this.exposition.stop();
    await this.fleet.stop();
    await this.web?.stop();
  }
}
