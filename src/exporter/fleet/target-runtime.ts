/** One data node: its HTTP client, its request counters, its node-scoped runners. */
import type { TargetConfig } from '../config/schema.js';
import { SELF } from '../engine/self-metrics.js';
import { capLabel, type Sample } from '../engine/labels.js';
import type { StoreKey } from '../engine/store.js';
import type { CollectorRunner } from '../engine/runner.js';
import { HttpClient } from '../http/client.js';
import { ByteBudget } from '../http/budget.js';
import type { FactKey } from '../engine/facts.js';
import { ENDPOINT_ROWS } from '../vega/endpoints.js';
import { CHAIN_ID, DATANODE_HEIGHT, FINGERPRINT, FINGERPRINT_HEIGHT, HEIGHT, SEGMENT_HEIGHT } from '../vega/facts.js';
import { runnersFor, type RuntimeContext } from './runtime-context.js';
import { networkOf, targetSamples, type NodeFacts, type TargetView } from './signals.js';

export class TargetRuntime {
  readonly client: HttpClient;
  readonly runners: CollectorRunner[];
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly httpKey: StoreKey;
  /** Each fact's publisher among this target's runners, as the collector registry declares it. */
  private readonly publishers = new Map<FactKey<unknown>, CollectorRunner>();
  /** The last non-empty chain id seen: a node that replays reports "" for a while. */
  private knownChainId: string | undefined;
  private rawChainId: string | undefined;
  private readonly fleetKey: StoreKey;
  /** The network this target was in at its last poll: the fleet hears of a change only. */
  network: string | undefined;

  constructor(
    readonly cfg: TargetConfig,
    private readonly ctx: RuntimeContext,
    onNetworkChange: () => void,
  ) {
    const h = ctx.config.http;
    this.httpKey = { scope: 'target', id: cfg.name, source: 'http' };
    this.fleetKey = { scope: 'target', id: cfg.name, source: 'fleet' };
    this.client = new HttpClient({
      url: cfg.url,
      headers: cfg.headers,
      connectTimeoutMs: h.connect_timeout,
      headersTimeoutMs: h.headers_timeout,
      bodyTimeoutMs: h.body_timeout,
      requestTimeoutMs: h.request_timeout,
      maxResponseBytes: h.max_response_bytes,
      lists: ENDPOINT_ROWS,
      requestsPerSecond: h.requests_per_second,
      burst: h.burst,
      retries: h.retries,
      maxBackoffMs: h.max_backoff,
      ...(ctx.pacers ? { pacers: ctx.pacers } : {}),
      budgets: [new ByteBudget(h.max_held_bytes_per_target), ...(ctx.heldBytes ? [ctx.heldBytes] : [])],
      onRequest: (endpoint, status) => {
        const byStatus = this.counts.get(endpoint) ?? new Map<string, number>();
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        this.counts.set(endpoint, byStatus);
      },
      ...(ctx.apiSli ? { onResponse: (endpoint: string, failed: boolean, s: number) => ctx.apiSli!.observe(cfg.name, endpoint, failed, s) } : {}),
    });
    const candidates = () => [{ target: cfg.name, client: this.client }];
    this.runners = runnersFor('node', cfg.name, ctx, candidates, () => {
      this.track();
      this.applyRequestCounts();
      // Only this target's own series: what it costs does not grow with the fleet.
      const view = this.view();
      this.ctx.store.set(this.fleetKey, targetSamples(view), Date.now(), Infinity);
      const network = networkOf(view);
      if (network !== this.network) {
        this.network = network;
        onNetworkChange();
      }
    });
    for (const r of this.runners) for (const key of r.collector.facts ?? []) this.publishers.set(key, r);
  }

  /** Identity for reloads: a target is unchanged when its whole configuration is. */
  get identity(): string {
    return JSON.stringify(this.cfg);
  }

  runner(name: string): CollectorRunner | undefined {
    return this.runners.find((r) => r.collector.name === name);
  }

  /** The runner of the collector that publishes `key`, as the collector registry declares; none when it is off. */
  private publisher(key: FactKey<unknown>): CollectorRunner | undefined {
    return this.publishers.get(key);
  }

  /** `key` from its publisher's last successful poll; with `fresh`, only while its last poll succeeded. */
  private fact<T>(key: FactKey<T>, fresh = false): T | undefined {
    const s = this.publisher(key)?.state;
    return s && (!fresh || s.success) ? s.facts?.get(key) : undefined;
  }

  view(): TargetView {
    // A node is healthy while the poll that reports its core height succeeds.
    const core = this.publisher(HEIGHT)?.state;
    const f = this.coreFacts();
    const fingerprint = this.fact(FINGERPRINT, true);
    return {
      name: this.cfg.name,
      configuredNetwork: this.cfg.network,
      healthy: core?.success === true,
      facts: f ? { ...f, chainId: this.knownChainId } : undefined,
      fingerprint: fingerprint !== undefined ? { value: fingerprint, height: this.fact(FINGERPRINT_HEIGHT, true) } : undefined,
      segmentHeight: this.fact(SEGMENT_HEIGHT, true),
    };
  }

  /** The core's facts from their publishers' last successful polls; undefined before any such poll. */
  private coreFacts(): NodeFacts | undefined {
    const keys = [CHAIN_ID, HEIGHT, DATANODE_HEIGHT];
    if (!keys.some((k) => this.publisher(k)?.state.facts !== undefined)) return undefined;
    const out: NodeFacts = {};
    const put = <K extends keyof NodeFacts>(name: K, value: NodeFacts[K]): void => {
      if (value !== undefined) out[name] = value;
    };
    put('chainId', this.fact(CHAIN_ID));
    put('height', this.fact(HEIGHT));
    put('datanodeHeight', this.fact(DATANODE_HEIGHT));
    return out;
  }

  /** After each applied poll: the chain id seen. view() only reads what this keeps. */
  private track(): void {
    const raw = this.fact(CHAIN_ID);
    // A chain id names a network (the `network` label, a runtime, a log field): it obeys the label-value cap first.
    if (raw && raw !== this.rawChainId) {
      this.rawChainId = raw;
      this.knownChainId = capLabel(raw, this.ctx.config.limits.label_value_bytes);
    }
  }

  /** Upstream request counters are re-rendered with each applied poll (they only move during polls). */
  applyRequestCounts(): void {
    const samples: Sample[] = [];
    for (const endpoint of [...this.counts.keys()].sort()) {
      const byStatus = this.counts.get(endpoint)!;
      for (const status of [...byStatus.keys()].sort())
        samples.push({ metric: SELF.upstreamRequests, values: [this.cfg.name, endpoint, status], value: byStatus.get(status)! });
    }
    // Shown while it lasts: the next poll after it ends re-renders without it.
    const until = this.client.backoffUntil();
    if (until !== undefined) samples.push({ metric: SELF.upstreamBackoffUntil, values: [this.cfg.name], value: until / 1000 });
    this.ctx.store.set(this.httpKey, samples, Date.now(), Infinity);
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
    if (drop) {
      this.ctx.store.delete(this.httpKey);
      this.ctx.store.delete(this.fleetKey);
      this.ctx.apiSli?.forget(this.cfg.name);
    }
    await this.client.close();
  }
}
