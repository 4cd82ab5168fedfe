/**
 * Wires configuration, clients, collectors, runners, the store and the server into one exporter,
 * and keeps the fleet in shape: targets from the config and discovery (sharded), a runtime per
 * target for node-scoped collectors, a runtime per network for network-scoped ones, the fleet
 * signals, reloads, and on-demand probes.
 */
import type http from 'node:http';
import { isMainThread } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { M, type CollectorName } from './exposition/catalogue.js';
import { consistencyCollector } from './collectors/consistency.js';
import { Directory } from './upstream/directory.js';
import { KeyRotationsCollector } from './collectors/key-rotations.js';
import { MarketsCollector } from './collectors/markets.js';
import { networkHistoryCollector } from './collectors/network-history.js';
import { NodeSignaturesCollector } from './collectors/node-signatures.js';
import { OrdersCollector } from './collectors/orders.js';
import { PartiesCollector } from './collectors/parties.js';
import { PositionsCollector } from './collectors/positions.js';
import { statisticsCollector } from './collectors/statistics.js';
import type { Collector } from './collectors/types.js';
import { intervalToCron, isEnabled } from './config/settings.js';
import type { CollectorConfig, CollectorKey, Config, TargetConfig } from './config/schema.js';
import { Discovery } from './fleet/discovery.js';
import { candidateOrder, fleetSamples, networkOf, shardOf, type TargetView } from './fleet/signals.js';
import { GcHint } from './process/gc-hint.js';
import { DatanodeClient } from './upstream/client.js';
import type { Logger } from './process/logger.js';
import { header, sampleLine, type Sample } from './exposition/render.js';
import { CollectorRunner, targetKeyPrefix, type RunnerSettings } from './schedule/runner.js';
// The server and prom-client are loaded only by start(): the polling worker needs neither.
import type https from 'node:https';
import type { WebConfig } from './web/auth.js';
import type { PolledBody, RunnerStatus } from './web/server.js';
import { SeriesStore } from './exposition/store.js';

export { VERSION } from './process/version.js';
import { VERSION } from './process/version.js';

const NODE_COLLECTORS = ['statistics', 'network_history', 'consistency'] as const;
const NETWORK_COLLECTORS = ['key_rotations', 'markets', 'positions', 'parties', 'node_signatures', 'orders'] as const;

function makeNetworkCollector(key: (typeof NETWORK_COLLECTORS)[number], config: Config, directory: Directory): Collector {
  const c = config.collectors;
  switch (key) {
    case 'key_rotations':
      return new KeyRotationsCollector();
    case 'markets':
      return new MarketsCollector({ maxMarkets: c.markets.max_markets, allow: c.markets.allow, countsOnly: c.markets.counts_only }, directory);
    case 'positions':
      return new PositionsCollector(c.positions.party_ids, c.positions.market_ids, directory);
    case 'parties':
      return new PartiesCollector(c.parties.party_ids);
    case 'node_signatures':
      return new NodeSignaturesCollector(c.node_signatures.ids);
    case 'orders':
      return new OrdersCollector(c.orders.ids, directory);
  }
}

const NODE_COLLECTOR: Record<(typeof NODE_COLLECTORS)[number], Collector> = {
  statistics: statisticsCollector,
  network_history: networkHistoryCollector,
  consistency: consistencyCollector,
};

function runnerSettings(config: Config, key: CollectorKey): RunnerSettings {
  const c: CollectorConfig = config.collectors[key];
  return {
    intervalMs: c.interval,
    // Leave a little of the interval free so a slow poll never runs into the next one.
    timeoutMs: c.timeout ?? Math.max(1000, Math.floor(c.interval * 0.8)),
    maxAgeMs: c.max_age ?? c.interval * 3,
    cron: intervalToCron(c.interval)!,
    pageSize: config.http.page_size,
    maxPages: config.http.max_pages,
  };
}

/** One data node: its HTTP client, its request counters, its node-scoped runners. */
class TargetRuntime {
  readonly client: DatanodeClient;
  readonly runners: CollectorRunner[] = [];
  private readonly counts = new Map<string, number>();

  constructor(readonly cfg: TargetConfig, config: Config, private readonly store: SeriesStore, log: Logger, onApplied: (r: CollectorRunner) => void) {
    const h = config.http;
    this.client = new DatanodeClient({
      url: cfg.url,
      headers: cfg.headers,
      connectTimeoutMs: h.connect_timeout,
      headersTimeoutMs: h.headers_timeout,
      bodyTimeoutMs: h.body_timeout,
      requestTimeoutMs: h.request_timeout,
      maxResponseBytes: h.max_response_bytes,
      requestsPerSecond: h.requests_per_second,
      burst: h.burst,
      retries: h.retries,
      onRequest: (endpoint, status) => {
        const k = `${endpoint}\u0000${status}`;
        this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
      },
    });
    const candidates = () => [{ target: cfg.name, client: this.client }];
    for (const key of NODE_COLLECTORS) {
      if (!isEnabled(config, key)) continue;
      this.runners.push(new CollectorRunner(cfg.name, NODE_COLLECTOR[key], candidates, store, runnerSettings(config, key), log.child({ target: cfg.name }), (r) => {
        this.applyRequestCounts();
        onApplied(r);
      }));
    }
  }

  /** Identity for reloads: a target is unchanged when its whole configuration is. */
  get identity(): string {
    return JSON.stringify(this.cfg);
  }

  runner(name: CollectorName): CollectorRunner | undefined {
    return this.runners.find((r) => r.collector.name === name);
  }

  /** The last non-empty chain id seen: a node that replays reports "" for a while. */
  private knownChainId: string | undefined;

  view(): TargetView {
    const stats = this.runner('statistics')?.state;
    const cons = this.runner('consistency')?.state;
    const fp = cons?.success ? cons.facts : undefined;
    if (stats?.facts?.chainId) this.knownChainId = stats.facts.chainId;
    return {
      name: this.cfg.name,
      configuredNetwork: this.cfg.network,
      healthy: stats?.success === true,
      facts: stats?.facts ? { ...stats.facts, chainId: stats.facts.chainId || this.knownChainId } : undefined,
      fingerprint: fp?.fingerprint !== undefined ? { value: fp.fingerprint, height: fp.fingerprintHeight } : undefined,
    };
  }

  /** Upstream request counters are re-rendered with each applied poll (they only move during polls). */
  applyRequestCounts(): void {
    const samples: Sample[] = [...this.counts.entries()].sort().map(([k, v]) => {
      const [endpoint, status] = k.split('\u0000') as [string, string];
      return { metric: M.upstreamRequests, values: [this.cfg.name, endpoint, status], value: v };
    });
    this.store.set(`${targetKeyPrefix(this.cfg.name)}http`, samples, Date.now(), Infinity);
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
    if (drop) this.store.delete(`${targetKeyPrefix(this.cfg.name)}http`);
    await this.client.close();
  }
}

/** One network: network-scoped runners that ask the freshest healthy member first. */
class NetworkRuntime {
  readonly runners: CollectorRunner[] = [];

  constructor(readonly network: string, config: Config, store: SeriesStore, log: Logger, members: () => TargetRuntime[]) {
    // Requests made for the network are counted on the targets that served them.
    const applied = () => members().forEach((t) => t.applyRequestCounts());
    const directory = new Directory(config.collectors.positions.asset_decimals);
    const candidates = () => {
      const rts = members();
      const byName = new Map(rts.map((t) => [t.cfg.name, t]));
      return candidateOrder(rts.map((t) => t.view())).map((name) => ({ target: name, client: byName.get(name)!.client }));
    };
    for (const key of NETWORK_COLLECTORS) {
      if (!isEnabled(config, key)) continue;
      this.runners.push(new CollectorRunner(network, makeNetworkCollector(key, config, directory), candidates, store, runnerSettings(config, key), log.child({ network }), applied));
    }
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
  }
}

export interface ProbeResult {
  status: number;
  body: string;
}

const FLEET_KEY = '\u0000fleet';
/** Above this heap a forced collection would pause scrapes noticeably (gc-hint.ts). */
const SERVING_THREAD_GC_MAX_HEAP = 64 * 2 ** 20;

export class Exporter {
  readonly store = new SeriesStore();
  readonly targets = new Map<string, TargetRuntime>();
  readonly networks = new Map<string, NetworkRuntime>();
  private discovery: Discovery;
  private server: http.Server | undefined;
  private started = false;
  private expiryTimer: NodeJS.Timeout | undefined;
  private stopSelf: (() => void) | undefined;
  /** Probe targets given as allowed URLs: polled on demand only, kept apart from /metrics. */
  private readonly probeTargets = new Map<string, { rt: TargetRuntime; store: SeriesStore }>();

  constructor(
    public config: Config,
    private readonly log: Logger,
    /** Re-reads the configuration for SIGHUP and POST /-/reload; throws ConfigError when invalid. */
    private readonly loadConfig?: () => Config,
  ) {
    this.discovery = new Discovery(config.discovery.files, log);
    // On the serving thread a forced collection pauses scrapes: only while the heap is small.
    this.store.gcHint = new GcHint({ maxHeapBytes: isMainThread ? SERVING_THREAD_GC_MAX_HEAP : Infinity });
  }

  /** Every runner, node- and network-scoped. */
  get runners(): CollectorRunner[] {
    return [...[...this.targets.values()].flatMap((t) => t.runners), ...[...this.networks.values()].flatMap((n) => n.runners)];
  }

  /**
   * Collectors that have not completed a poll yet (empty when ready). Networks not known yet (no
   * target has answered) do not hold readiness back unless `strict`: an exporter whose node is
   * down must still be scraped, to report it down.
   */
  pending(strict = false): string[] {
    const out = this.runners.filter((r) => r.state.runs === 0).map((r) => `${r.scopeValue}/${r.collector.name}`);
    const wantNetwork = NETWORK_COLLECTORS.some((k) => isEnabled(this.config, k));
    if (strict && wantNetwork && this.networks.size === 0) out.push('network-scoped collectors (no network known yet)');
    if (this.targets.size === 0) out.push('targets (none configured or discovered)');
    return out;
  }

  /** The configured and discovered targets this shard owns. */
  private wantedTargets(): TargetConfig[] {
    const byName = new Map<string, TargetConfig>();
    for (const t of this.config.targets) byName.set(t.name, t);
    for (const t of this.discovery.targets) {
      if (byName.has(t.name)) this.log.debug({ target: t.name }, 'discovered target shadowed by a configured one');
      else byName.set(t.name, t);
    }
    let list = [...byName.values()];
    if (this.config.shard) {
      const [i, n] = this.config.shard.split('/').map(Number) as [number, number];
      list = list.filter((t) => shardOf(t.name, n) === i);
    }
    return list;
  }

  /** Bring the running targets in line with the wanted ones; unchanged targets keep running. */
  private async applyTargets(): Promise<void> {
    const wanted = new Map(this.wantedTargets().map((t) => [t.name, t]));
    for (const [name, rt] of this.targets) {
      const w = wanted.get(name);
      if (!w || JSON.stringify(w) !== rt.identity) {
        this.targets.delete(name);
        await rt.stop(!w); // a changed target keeps its series until its next poll replaces them
        this.log.info({ target: name }, w ? 'target changed' : 'target removed');
      }
    }
    for (const [name, cfg] of wanted) {
      if (this.targets.has(name)) continue;
      const rt = new TargetRuntime(cfg, this.config, this.store, this.log, () => this.reconcile());
      this.targets.set(name, rt);
      if (this.started) rt.start();
      this.log.info({ target: name }, 'target added');
    }
    this.reconcile();
  }

  /** After a node-scoped poll: networks follow their members, and the fleet signals are recomputed. */
  private reconcile(): void {
    const views = [...this.targets.values()].map((t) => t.view());
    const members = new Map<string, string[]>();
    for (const v of views) {
      const n = networkOf(v);
      if (n !== undefined) members.set(n, [...(members.get(n) ?? []), v.name]);
    }
    for (const [n, rt] of this.networks) {
      if (!members.has(n)) {
        this.networks.delete(n);
        void rt.stop(true);
        this.log.info({ network: n }, 'network has no targets left');
      }
    }
    for (const n of members.keys()) {
      if (this.networks.has(n)) continue;
      const rt = new NetworkRuntime(n, this.config, this.store, this.log, () => [...this.targets.values()].filter((t) => networkOf(t.view()) === n));
      this.networks.set(n, rt);
      if (this.started) rt.start();
      this.log.info({ network: n }, 'network found');
    }
    this.store.set(FLEET_KEY, fleetSamples(views, this.config.fleet.agreement_tolerance_blocks), Date.now(), Infinity);
  }

  /** Start polling: targets from the config and discovery, schedules, expiry. No HTTP server. */
  async startCore(): Promise<void> {
    await this.discovery.refresh();
    this.started = true;
    await this.applyTargets();
    this.discovery.watch(this.config.discovery.refresh_interval, () => {
      void this.applyTargets();
    });
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

  /** Poll and serve in this thread (tests, and --web.single-thread). */
  async start(listenAddress = this.config.web.listen_address, web?: { config: WebConfig; tls: https.ServerOptions | undefined }): Promise<string> {
    const [{ SelfMetrics, createSelfRegistry }, { createHandler, listen }] = await Promise.all([import('./exposition/self-metrics.js'), import('./web/server.js')]);
    const self = new SelfMetrics(createSelfRegistry(VERSION, () => this.store.seriesCount()));
    await self.refresh();
    this.stopSelf = self.keepFresh();
    const handler = createHandler({
      polled: () => this.polled(),
      self,
      status: () => this.status(),
      pending: () => this.pending(),
      probe: (q, timeout) => this.probe(q, timeout),
      reload: () => this.reload(),
    });
    const w = this.config.web;
    const guarded = web ? (await import('./web/auth.js')).protect(handler, web.config) : handler;
    this.server = await listen(guarded, { address: listenAddress, maxConnections: w.max_connections, headersTimeoutMs: w.read_header_timeout, requestTimeoutMs: w.request_timeout, tls: web?.tls });
    await this.startCore();
    const a = this.server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `${web?.tls ? 'https' : 'http'}://${host}:${a.port}`;
  }

  /** Re-read the configuration; targets whose settings did not change keep running and keep their series. */
  async reload(): Promise<void> {
    if (!this.loadConfig) throw new Error('this exporter was started without a configuration source');
    const next = this.loadConfig();
    const strip = (c: Config) => JSON.stringify({ ...c, targets: null, discovery: null, shard: null, web: null, log: null });
    const structural = strip(next) !== strip(this.config);
    if (next.web.listen_address !== this.config.web.listen_address) this.log.warn({}, 'web.listen_address changes need a restart');
    this.config = next;
    if (structural) {
      // Collector or HTTP settings changed: rebuild every runtime, keeping the series until replaced.
      await Promise.all([...this.targets.values()].map((t) => t.stop(false)));
      await Promise.all([...this.networks.values()].map((n) => n.stop(false)));
      this.targets.clear();
      this.networks.clear();
    }
    this.discovery.stop();
    this.discovery = new Discovery(next.discovery.files, this.log);
    await this.discovery.refresh();
    this.discovery.watch(next.discovery.refresh_interval, () => {
      void this.applyTargets();
    });
    const before = new Set(this.targets.keys());
    await this.applyTargets();
    // Series of targets that vanished with a structural rebuild are dropped too.
    for (const key of this.store.keys()) {
      const target = key.split('\u0000')[0]!;
      if (target !== '' && !this.targets.has(target) && !before.has(target)) this.store.delete(key);
    }
    this.log.info({ targets: this.targets.size, structural }, 'configuration reloaded');
  }

  /**
   * /probe?target=<name or allowed URL>[&collectors=a,b]: the target's node-scoped series, polled
   * now if older than probe.max_age, within the scrape's deadline.
   */
  async probe(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined): Promise<ProbeResult> {
    const started = performance.now();
    const target = query.get('target') ?? '';
    let rt = this.targets.get(target);
    let store = this.store;
    if (!rt) {
      const allowed = this.config.probe.allowed_urls.some((prefix) => target.startsWith(prefix));
      if (!allowed) return { status: 400, body: `unknown target ${JSON.stringify(target.slice(0, 200))}: not configured and not an allowed URL\n` };
      let entry = this.probeTargets.get(target);
      if (!entry) {
        const s = new SeriesStore();
        entry = { rt: new TargetRuntime({ name: target.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 63), url: target, headers: {} }, this.config, s, this.log, () => {}), store: s };
        this.probeTargets.set(target, entry);
        if (this.probeTargets.size > 64) {
          const [oldest, old] = this.probeTargets.entries().next().value as [string, { rt: TargetRuntime }];
          this.probeTargets.delete(oldest);
          void old.rt.stop(true);
        }
      }
      rt = entry.rt;
      store = entry.store;
    }
    const wanted = (query.get('collectors') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = wanted.filter((w) => !rt!.runners.some((r) => r.collector.name === w));
    if (unknown.length > 0) return { status: 400, body: `unknown or disabled collectors: ${unknown.join(', ')} (node-scoped: ${rt.runners.map((r) => r.collector.name).join(', ')})\n` };
    const runners = wanted.length === 0 ? rt.runners : rt.runners.filter((r) => wanted.includes(r.collector.name));
    // Leave half a second of Prometheus's deadline for rendering and the network.
    const budget = Math.min(this.config.probe.timeout, scrapeTimeoutSeconds !== undefined ? Math.max(0.1, scrapeTimeoutSeconds - 0.5) * 1000 : Infinity);
    const signal = AbortSignal.timeout(Math.max(100, budget));
    const now = Date.now();
    // A poll already in flight is joined, but the probe never waits past its own deadline.
    const expired = new Promise<'late'>((resolve) => signal.addEventListener('abort', () => resolve('late'), { once: true }));
    const waited = await Promise.all(
      runners.map((r) => (r.state.lastSuccessMs === undefined || now - r.state.lastSuccessMs > this.config.probe.max_age || r.state.success === false ? Promise.race([r.runOnce(signal).then(() => 'done' as const), expired]) : ('fresh' as const))),
    );
    const success = !waited.includes('late') && runners.every((r) => r.state.success === true);
    const prefix = targetKeyPrefix(rt.cfg.name);
    const names = new Set(runners.map((r) => r.collector.name as string));
    const body = store.renderFiltered((key) => key.startsWith(prefix) && (names.has(key.slice(prefix.length).split('\u0000')[0]!) || key === `${prefix}http`)).toString('utf8');
    const tail = [
      header(M.probeSuccess), sampleLine({ metric: M.probeSuccess, values: [rt.cfg.name], value: success ? 1 : 0 }),
      header(M.probeDuration), sampleLine({ metric: M.probeDuration, values: [rt.cfg.name], value: (performance.now() - started) / 1000 }),
    ].join('');
    return { status: 200, body: body + tail };
  }

  /** Stop schedules, abort in-flight polls, close the server and the upstream pools. */
  async stop(): Promise<void> {
    clearInterval(this.expiryTimer);
    this.store.gcHint?.cancel();
    this.stopSelf?.();
    this.discovery.stop();
    await Promise.all([...this.networks.values()].map((n) => n.stop(false)));
    await Promise.all([...this.targets.values()].map((t) => t.stop(false)));
    await Promise.all([...this.probeTargets.values()].map((p) => p.rt.stop(false)));
    if (this.server) {
      const s = this.server;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }
}

