/**
 * The fleet in shape: targets from the configuration and discovery (this shard's only), a runtime
 * per target for node-scoped collectors, a runtime per network for network-scoped ones, and the
 * fleet signals recomputed after each node-scoped poll. Reloads keep unchanged targets running.
 */
import { isEnabled } from '../engine/define.js';
import type { Config, TargetConfig } from '../config/schema.js';
import type { StoreKey } from '../engine/store.js';
import type { CollectorRunner } from '../engine/runner.js';
import { Discovery, type DiscoveryLimits } from './discovery.js';
import { NetworkRuntime } from './network-runtime.js';
import type { RuntimeContext } from './runtime-context.js';
import { fleetSamples, networkOf } from './signals.js';
import { inShard } from './shard.js';
import { TargetRuntime } from './target-runtime.js';

const FLEET_KEY: StoreKey = { scope: 'exporter', id: '', source: 'fleet' };

const discoveryLimits = (c: Config): DiscoveryLimits => ({ maxTargetsPerFile: c.discovery.max_targets_per_file, maxTargets: c.discovery.max_targets });

export class Fleet {
  readonly targets = new Map<string, TargetRuntime>();
  readonly networks = new Map<string, NetworkRuntime>();
  private discovery: Discovery;
  private started = false;
  /** Reconciling is O(targets) and polls complete often with many targets: it is paced (reconcileSoon). */
  private reconciledAt = 0;
  private reconcileCostMs = 0;
  private reconcileTimer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: RuntimeContext) {
    this.discovery = new Discovery(ctx.config.discovery.files, ctx.log, discoveryLimits(ctx.config));
  }

  private now(): number {
    return this.ctx.now ? this.ctx.now() : performance.now();
  }

  get runners(): CollectorRunner[] {
    return [...[...this.targets.values()].flatMap((t) => t.runners), ...[...this.networks.values()].flatMap((n) => n.runners)];
  }

  /** Whether any network-scoped collector is enabled (so some network is expected). */
  get wantsNetworks(): boolean {
    return this.ctx.collectors.some((m) => m.scope === 'network' && isEnabled(this.ctx.config, m));
  }

  async start(): Promise<void> {
    await this.discovery.refresh();
    this.started = true;
    await this.applyTargets();
    this.watchDiscovery();
  }

  /**
   * Take a new configuration. A structural change (collector or HTTP settings) rebuilds every
   * runtime, keeping the series until replaced; otherwise only changed targets restart.
   */
  async reconfigure(next: Config, structural: boolean): Promise<void> {
    this.ctx.config = next;
    if (structural) {
      await Promise.all([...this.targets.values()].map((t) => t.stop(false)));
      await Promise.all([...this.networks.values()].map((n) => n.stop(false)));
      this.targets.clear();
      this.networks.clear();
    }
    this.discovery.stop();
    this.discovery = new Discovery(next.discovery.files, this.ctx.log, discoveryLimits(next));
    await this.discovery.refresh();
    this.watchDiscovery();
    const before = new Set(this.targets.keys());
    await this.applyTargets();
    // Series of targets that vanished with a structural rebuild are dropped too.
    this.ctx.store.deleteWhere((k) => k.scope === 'target' && !this.targets.has(k.id) && !before.has(k.id));
  }

  async stop(): Promise<void> {
    clearTimeout(this.reconcileTimer);
    this.discovery.stop();
    await Promise.all([...this.networks.values()].map((n) => n.stop(false)));
    await Promise.all([...this.targets.values()].map((t) => t.stop(false)));
  }

  private watchDiscovery(): void {
    this.discovery.watch(this.ctx.config.discovery.refresh_interval, () => {
      void this.applyTargets();
    });
  }

  /** The configured and discovered targets this shard owns. */
  private wantedTargets(): TargetConfig[] {
    const byName = new Map<string, TargetConfig>();
    for (const t of this.ctx.config.targets) byName.set(t.name, t);
    for (const t of this.discovery.targets) {
      if (byName.has(t.name)) this.ctx.log.debug({ target: t.name }, 'discovered target shadowed by a configured one');
      else byName.set(t.name, t);
    }
    return inShard([...byName.values()], this.ctx.config.shard);
  }

  /** Bring the running targets in line with the wanted ones; unchanged targets keep running. */
  private async applyTargets(): Promise<void> {
    const wanted = new Map(this.wantedTargets().map((t) => [t.name, t]));
    for (const [name, rt] of this.targets) {
      const w = wanted.get(name);
      if (!w || JSON.stringify(w) !== rt.identity) {
        this.targets.delete(name);
        await rt.stop(!w); // a changed target keeps its series until its next poll replaces them
        this.ctx.log.info({ target: name }, w ? 'target changed' : 'target removed');
      }
    }
    for (const [name, cfg] of wanted) {
      if (this.targets.has(name)) continue;
      const rt = new TargetRuntime(cfg, this.ctx, () => this.reconcileSoon());
      this.targets.set(name, rt);
      if (this.started) rt.start();
      this.ctx.log.info({ target: name }, 'target added');
    }
    this.reconcile();
  }

  /**
   * After a node-scoped poll: reconcile now, unless the last one was less than ten times its own
   * cost ago; then once, that long after it. A few targets still reconcile after every poll; with
   * many, polls complete so often that reconciling after each cost more than the polls themselves,
   * and this keeps it to a tenth of the thread at most.
   */
  private reconcileSoon(): void {
    if (this.reconcileTimer) return;
    const wait = this.reconciledAt + 10 * this.reconcileCostMs - this.now();
    if (wait <= 0) return this.reconcile();
    this.reconcileTimer = setTimeout(() => {
      this.reconcileTimer = undefined;
      this.reconcile();
    }, wait);
  }

  /** Networks follow their members, and the fleet signals are recomputed. */
  private reconcile(): void {
    const t0 = this.now();
    const views = [...this.targets.values()].map((t) => t.view());
    const members = new Map<string, string[]>();
    for (const v of views) {
      const n = networkOf(v);
      if (n === undefined) continue;
      const list = members.get(n);
      if (list) list.push(v.name);
      else members.set(n, [v.name]);
    }
    for (const [n, rt] of this.networks) {
      if (members.has(n)) continue;
      this.networks.delete(n);
      void rt.stop(true);
      this.ctx.log.info({ network: n }, 'network has no targets left');
    }
    for (const n of members.keys()) {
      if (this.networks.has(n)) continue;
      const rt = new NetworkRuntime(n, this.ctx, () => [...this.targets.values()].filter((t) => networkOf(t.view()) === n));
      this.networks.set(n, rt);
      if (this.started) rt.start();
      this.ctx.log.info({ network: n }, 'network found');
    }
    this.ctx.store.set(FLEET_KEY, fleetSamples(views, this.ctx.config.fleet.agreement_tolerance_blocks), Date.now(), Infinity);
    this.reconciledAt = this.now();
    this.reconcileCostMs = this.reconciledAt - t0;
  }
}
