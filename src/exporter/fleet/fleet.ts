/**
 * The fleet in shape: targets from the configuration and discovery (this shard's only), a runtime
 * per target for node-scoped collectors, and a runtime per network this shard polls for the
 * network-scoped ones. Cross-node comparisons are Prometheus recording rules, not made here.
 * Reloads keep unchanged targets running. /probe is answered here too (probe.ts), from the same
 * targets and configuration generation.
 */
import { isEnabled } from '../engine/define.js';
import type { Config, TargetConfig } from '../config/schema.js';
import type { CollectorRunner } from '../engine/runner.js';
import { Discovery, type DiscoveryLimits } from './discovery.js';
import { NetworkRuntime } from './network-runtime.js';
import type { RuntimeContext } from './runtime-context.js';
import { networkShard } from './signals.js';
import { inShard } from './shard.js';
import { TargetRuntime } from './target-runtime.js';
import { catalogueOf } from './metrics.js';
import { Prober } from './probe.js';

const discoveryLimits = (c: Config): DiscoveryLimits => ({ maxTargetsPerFile: c.discovery.max_targets_per_file, maxTargets: c.discovery.max_targets });

export class Fleet {
  readonly targets = new Map<string, TargetRuntime>();
  readonly networks = new Map<string, NetworkRuntime>();
  private discovery: Discovery;
  private started = false;
  /** Every configured and discovered target, before sharding: which shard polls a network follows from it. */
  private allTargets: TargetConfig[] = [];

  /** /probe: a configured target's series, or a runtime of its own for an allowed URL. */
  readonly prober: Prober;

  constructor(private ctx: RuntimeContext) {
    this.discovery = new Discovery(ctx.config.discovery.files, ctx.log, discoveryLimits(ctx.config));
    this.prober = new Prober(ctx, catalogueOf(ctx.collectors), (name) => this.targets.get(name));
  }

  /** The configuration in force. */
  get config(): Config {
    return this.ctx.config;
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
    // A new generation: what is built from now on reads it; what keeps running keeps the one it was built with.
    this.ctx = { ...this.ctx, config: next };
    await this.prober.reconfigure(this.ctx);
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
    this.discovery.stop();
    await Promise.all([...this.networks.values()].map((n) => n.stop(false)));
    await Promise.all([...this.targets.values()].map((t) => t.stop(false)));
    await this.prober.stop();
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
    this.allTargets = [...byName.values()];
    return inShard(this.allTargets, this.ctx.config.shard);
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
      const rt = new TargetRuntime(cfg, this.ctx, () => this.reconcile());
      this.targets.set(name, rt);
      if (this.started) rt.start();
      this.ctx.log.info({ target: name }, 'target added');
    }
    this.reconcile();
  }

  /** Whether this shard polls the network-scoped collectors of `network` (all networks, unsharded). */
  private owns(network: string): boolean {
    const shard = this.ctx.config.shard;
    if (!shard) return true;
    const [i, n] = shard.split('/').map(Number) as [number, number];
    return networkShard(network, this.allTargets, n) === i;
  }

  /**
   * Networks follow their members: run when the targets change and when a target's network does
   * (its first answer, a changed chain id), not after every poll.
   */
  private reconcile(): void {
    const members = new Set<string>();
    for (const t of this.targets.values()) if (t.network !== undefined && this.owns(t.network)) members.add(t.network);
    for (const [n, rt] of this.networks) {
      if (members.has(n)) continue;
      this.networks.delete(n);
      void rt.stop(true);
      this.ctx.log.info({ network: n }, 'network has no targets left');
    }
    for (const n of members) {
      if (this.networks.has(n)) continue;
      const rt = new NetworkRuntime(n, this.ctx, () => [...this.targets.values()].filter((t) => t.network === n));
      this.networks.set(n, rt);
      if (this.started) rt.start();
      this.ctx.log.info({ network: n }, 'network found');
    }
  }
}
