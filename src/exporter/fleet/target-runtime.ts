/** One data node: its HTTP client, its request counters, its node-scoped runners. */
import type { TargetConfig } from '../config/schema.js';
import { M } from '../engine/catalogue.js';
import { capLabel, type Sample } from '../engine/labels.js';
import type { StoreKey } from '../engine/store.js';
import type { CollectorRunner } from '../engine/runner.js';
import { DatanodeClient } from '../http/client.js';
import { runnersFor, type RuntimeContext } from './runtime-context.js';
import { trackPoll, type PollTrack, type TargetView } from './signals.js';

export class TargetRuntime {
  readonly client: DatanodeClient;
  readonly runners: CollectorRunner[];
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly httpKey: StoreKey;
  /** The last non-empty chain id seen: a node that replays reports "" for a while. */
  private knownChainId: string | undefined;
  private rawChainId: string | undefined;
  /** The last statistics poll, placed in time (fleet lag compares heights at one moment). */
  private poll: PollTrack | undefined;

  constructor(
    readonly cfg: TargetConfig,
    private readonly ctx: RuntimeContext,
    onApplied: (r: CollectorRunner) => void,
  ) {
    const h = ctx.config.http;
    this.httpKey = { scope: 'target', id: cfg.name, source: 'http' };
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
      maxBackoffMs: h.max_backoff,
      ...(ctx.pacers ? { pacers: ctx.pacers } : {}),
      onRequest: (endpoint, status) => {
        const byStatus = this.counts.get(endpoint) ?? new Map<string, number>();
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        this.counts.set(endpoint, byStatus);
      },
    });
    const candidates = () => [{ target: cfg.name, client: this.client }];
    this.runners = runnersFor('node', cfg.name, ctx, candidates, (r) => {
      this.track();
      this.applyRequestCounts();
      onApplied(r);
    });
  }

  /** Identity for reloads: a target is unchanged when its whole configuration is. */
  get identity(): string {
    return JSON.stringify(this.cfg);
  }

  runner(name: string): CollectorRunner | undefined {
    return this.runners.find((r) => r.collector.name === name);
  }

  view(): TargetView {
    const stats = this.runner('statistics')?.state;
    const cons = this.runner('consistency')?.state;
    const fp = cons?.success ? cons.facts : undefined;
    const info = this.runner('datanode_info')?.state;
    const segs = this.runner('history_segments')?.state;
    return {
      name: this.cfg.name,
      configuredNetwork: this.cfg.network,
      healthy: stats?.success === true,
      poll: this.poll,
      facts: stats?.facts ? { ...stats.facts, chainId: this.knownChainId } : undefined,
      fingerprint: fp?.fingerprint !== undefined ? { value: fp.fingerprint, height: fp.fingerprintHeight } : undefined,
      datanodeVersion: info?.success ? info.facts?.datanodeVersion : undefined,
      segmentHeight: segs?.success ? segs.facts?.segmentHeight : undefined,
    };
  }

  /** After each statistics poll: the chain id seen, and the poll placed in time. view() only reads what this keeps. */
  private track(): void {
    const stats = this.runner('statistics')?.state;
    const raw = stats?.facts?.chainId;
    // A chain id names a network (the `network` label, a runtime, a log field): it obeys the label-value cap first.
    if (raw && raw !== this.rawChainId) {
      this.rawChainId = raw;
      this.knownChainId = capLabel(raw, this.ctx.config.limits.label_value_bytes);
    }
    const at = stats?.lastSuccessMs;
    const f = stats?.facts;
    if (at !== undefined && f?.height !== undefined && at !== this.poll?.at) this.poll = trackPoll(this.poll, at, f.height, f.blockTimeNs);
  }

  /** Upstream request counters are re-rendered with each applied poll (they only move during polls). */
  applyRequestCounts(): void {
    const samples: Sample[] = [];
    for (const endpoint of [...this.counts.keys()].sort()) {
      const byStatus = this.counts.get(endpoint)!;
      for (const status of [...byStatus.keys()].sort())
        samples.push({ metric: M.upstreamRequests, values: [this.cfg.name, endpoint, status], value: byStatus.get(status)! });
    }
    // Shown while it lasts: the next poll after it ends re-renders without it.
    const until = this.client.backoffUntil();
    if (until !== undefined) samples.push({ metric: M.upstreamBackoffUntil, values: [this.cfg.name], value: until / 1000 });
    this.ctx.store.set(this.httpKey, samples, Date.now(), Infinity);
  }

  start(): void {
    for (const r of this.runners) r.start();
  }

  async stop(drop: boolean): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop(drop)));
    if (drop) this.ctx.store.delete(this.httpKey);
    await this.client.close();
  }
}
