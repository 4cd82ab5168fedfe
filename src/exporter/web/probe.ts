/**
 * /probe?target=<name or allowed URL>[&collectors=a,b]: one target's node-scoped series, polled now
 * if older than probe.max_age, within the scrape's deadline.
 */
import type { Config } from '../config/schema.js';
import { M, type MetricDef } from '../exposition/catalogue.js';
import { toSeries } from '../exposition/labels.js';
import { CONTENT_TYPES, FamilyRegistry, storeSource } from '../exposition/registry.js';
import { SeriesStore } from '../exposition/store.js';
import type { RuntimeContext } from '../fleet/runtime-context.js';
import { TargetRuntime } from '../fleet/target-runtime.js';
import { checkProbeUrl, parseAllowRule, type AllowRule } from '../upstream/allow.js';

export interface ProbeResult {
  status: number;
  body: string;
  contentType: string;
}

const TEXT = 'text/plain; charset=utf-8';

/** How many allowed-URL targets are kept warm; the oldest is dropped beyond this. */
const MAX_URL_TARGETS = 64;

export class Prober {
  /** Probe targets given as allowed URLs: polled on demand only, kept apart from /metrics. */
  private readonly urlTargets = new Map<string, { rt: TargetRuntime; store: SeriesStore }>();

  constructor(
    private readonly ctx: RuntimeContext,
    /** The families a probe may render, in exposition order. */
    private readonly catalogue: readonly MetricDef[],
    private readonly configured: (name: string) => TargetRuntime | undefined,
  ) {}

  private get config(): Config {
    return this.ctx.config;
  }

  /** A configured target, or a runtime of its own for an allowed URL; the refusal otherwise. */
  private resolve(target: string): { rt: TargetRuntime; store: SeriesStore } | { status: number; reason: string } {
    const rt = this.configured(target);
    if (rt) return { rt, store: this.ctx.store };
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) return { status: 400, reason: 'not a configured target' };
    const checked = checkProbeUrl(target, this.config.probe.allowed_urls.map(parseAllowRule).filter((r): r is AllowRule => r !== undefined));
    if (!('url' in checked)) return checked;
    const key = checked.url.href;
    let entry = this.urlTargets.get(key);
    if (!entry) {
      const store = new SeriesStore();
      const name = key.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 63);
      entry = { rt: new TargetRuntime({ name, url: key, headers: {} }, { ...this.ctx, store }, () => {}), store };
      this.urlTargets.set(key, entry);
      if (this.urlTargets.size > MAX_URL_TARGETS) {
        const [oldest, old] = this.urlTargets.entries().next().value as [string, { rt: TargetRuntime }];
        this.urlTargets.delete(oldest);
        void old.rt.stop(true);
      }
    }
    return entry;
  }

  async probe(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined): Promise<ProbeResult> {
    const started = performance.now();
    const target = query.get('target') ?? '';
    const found = this.resolve(target);
    // One line of text, the target quoted (JSON escapes newlines) and cut short.
    if ('reason' in found) return { status: found.status, contentType: TEXT, body: `unknown target ${JSON.stringify(target.slice(0, 200))}: ${found.reason}\n` };
    const { rt, store } = found;
    const wanted = (query.get('collectors') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = wanted.filter((w) => !rt.runners.some((r) => r.collector.name === w));
    if (unknown.length > 0) return { status: 400, contentType: TEXT, body: `unknown or disabled collectors: ${unknown.join(', ')} (node-scoped: ${rt.runners.map((r) => r.collector.name).join(', ')})\n` };
    const runners = wanted.length === 0 ? rt.runners : rt.runners.filter((r) => wanted.includes(r.collector.name));
    // Leave half a second of Prometheus's deadline for rendering and the network.
    const budget = Math.min(this.config.probe.timeout, scrapeTimeoutSeconds !== undefined ? Math.max(0.1, scrapeTimeoutSeconds - 0.5) * 1000 : Infinity);
    const signal = AbortSignal.timeout(Math.max(100, budget));
    const now = Date.now();
    // A poll already in flight is joined, but the probe never waits past its own deadline.
    const expired = new Promise<'late'>((resolve) => signal.addEventListener('abort', () => resolve('late'), { once: true }));
    const stale = (s: (typeof runners)[number]['state']): boolean => s.lastSuccessMs === undefined || now - s.lastSuccessMs > this.config.probe.max_age || s.success === false;
    const waited = await Promise.all(runners.map((r) => (stale(r.state) ? Promise.race([r.runOnce(signal).then(() => 'done' as const), expired]) : Promise.resolve('fresh' as const))));
    const success = !waited.includes('late') && runners.every((r) => r.state.success === true);
    const names = new Set(runners.map((r) => r.collector.name));
    const polled = storeSource(store, (k) => k.scope === 'target' && k.id === rt.cfg.name && (names.has(k.source) || k.source === 'http'));
    const own = toSeries([
      { metric: M.probeSuccess, values: [rt.cfg.name], value: success ? 1 : 0 },
      { metric: M.probeDuration, values: [rt.cfg.name], value: (performance.now() - started) / 1000 },
    ]);
    const source = { series: (m: MetricDef) => own.get(m) ?? polled.series(m), has: (m: MetricDef) => own.has(m) || polled.has(m) };
    const body = await new FamilyRegistry('text', this.catalogue, source).render();
    return { status: 200, contentType: CONTENT_TYPES.text, body };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.urlTargets.values()].map((p) => p.rt.stop(false)));
  }
}
