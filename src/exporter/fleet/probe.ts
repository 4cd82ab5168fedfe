/**
 * /probe?target=<name or allowed URL>[&collectors=a,b]: one target's node-scoped series, polled now
 * if older than probe.max_age, within the scrape's deadline. The fleet owns the prober and hands it
 * each configuration generation; web/ only routes the request here.
 */
import type { Config } from '../config/schema.js';
import type { MetricDef } from '../engine/metric.js';
import { SELF } from '../engine/self-metrics.js';
import { toSeries } from '../engine/labels.js';
import { CONTENT_TYPES, FamilyRegistry, storeSource, type Format } from '../engine/registry.js';
import { SeriesStore } from '../engine/store.js';
import type { RuntimeContext } from './runtime-context.js';
import { TargetRuntime } from './target-runtime.js';
import { checkProbeUrl, parseAllowRule, type AllowRule } from '../http/allow.js';
import { linkedSignal } from '../http/deadline.js';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../logger.js';

export interface ProbeResult {
  status: number;
  /** The series as rendered (200), or a one-line refusal. */
  body: Buffer | string;
  contentType: string;
  headers?: Record<string, string>;
}

const TEXT = 'text/plain; charset=utf-8';

/** How many allowed-URL targets are kept warm; the oldest is dropped beyond this. */
const MAX_URL_TARGETS = 64;
/** A failure of URL targets (collector and code) is logged once per this window, not once per target. */
const LOG_WINDOW_MS = 60_000;
/** How long a refused probe waits before its answer. */
const REFUSAL_DELAY_MS = 1000;
/** Names echoed back in a refusal: a few, each cut short. */
const ECHO_NAMES = 8;
const ECHO_CHARS = 64;

/** A refusal echoes what the client sent quoted (JSON escapes newlines) and cut short. */
const quoted = (s: string, max = ECHO_CHARS): string => JSON.stringify(s.slice(0, max));

type Runners = TargetRuntime['runners'];

/** The runners `collectors=a,b` names (all when empty), or a refusal echoing the unknown names quoted and cut short. */
function selectRunners(rt: TargetRuntime, list: string): Runners | ProbeResult {
  const wanted = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((w) => !rt.runners.some((r) => r.collector.name === w));
  if (unknown.length > 0) {
    const echoed =
      unknown
        .slice(0, ECHO_NAMES)
        .map((u) => quoted(u))
        .join(', ') + (unknown.length > ECHO_NAMES ? ', …' : '');
    return {
      status: 400,
      contentType: TEXT,
      body: `unknown or disabled collectors: ${echoed} (node-scoped: ${rt.runners.map((r) => r.collector.name).join(', ')})\n`,
    };
  }
  return wanted.length === 0 ? rt.runners : rt.runners.filter((r) => wanted.includes(r.collector.name));
}

export class Prober {
  /** Probe targets given as allowed URLs: polled on demand only, kept apart from /metrics. */
  private readonly urlTargets = new Map<string, { rt: TargetRuntime; store: SeriesStore }>();
  /** Probes being answered now (probe.max_concurrent). */
  private active = 0;
  /** New URL targets made in the current minute (probe.new_url_targets_per_minute). */
  private made = { windowStart: 0, count: 0 };
  /** When each (collector, code) failure of a URL target was last logged. */
  private readonly logged = new Map<string, number>();
  /** URL targets' own runners stay quiet: the prober logs their failures, once per window. */
  private quietLog: Logger;

  constructor(
    private ctx: RuntimeContext,
    /** The families a probe may render, in exposition order. */
    private readonly catalogue: readonly MetricDef[],
    private readonly configured: (name: string) => TargetRuntime | undefined,
  ) {
    this.quietLog = ctx.log.child({ probe: true }, { level: 'silent' });
  }

  private get config(): Config {
    return this.ctx.config;
  }

  /** A configured target, or a runtime of its own for an allowed URL; the refusal otherwise. */
  private resolve(target: string): { rt: TargetRuntime; store: SeriesStore } | { status: number; reason: string; retryAfter?: number } {
    const rt = this.configured(target);
    if (rt) return { rt, store: this.ctx.store };
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) return { status: 400, reason: 'not a configured target' };
    const checked = checkProbeUrl(
      target,
      this.config.probe.allowed_urls.map(parseAllowRule).filter((r): r is AllowRule => r !== undefined),
    );
    if (!('url' in checked)) return checked;
    const key = checked.url.href;
    let entry = this.urlTargets.get(key);
    if (!entry) {
      // Each new URL costs a runtime (a connection pool, runners): their rate is bounded too.
      const now = Date.now();
      if (now - this.made.windowStart >= 60_000) this.made = { windowStart: now, count: 0 };
      if (this.made.count >= this.config.probe.new_url_targets_per_minute) {
        return {
          status: 429,
          reason: 'too many new probe URL targets this minute',
          retryAfter: Math.max(1, Math.ceil((this.made.windowStart + 60_000 - now) / 1000)),
        };
      }
      this.made.count += 1;
      const store = new SeriesStore(this.config.limits.label_value_bytes);
      const name = key.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 63);
      entry = { rt: new TargetRuntime({ name, url: key, headers: {} }, { ...this.ctx, store, log: this.quietLog }, () => {}), store };
      this.urlTargets.set(key, entry);
      if (this.urlTargets.size > MAX_URL_TARGETS) {
        const [oldest, old] = this.urlTargets.entries().next().value as [string, { rt: TargetRuntime }];
        this.urlTargets.delete(oldest);
        void old.rt.stop(true);
      }
    }
    return entry;
  }

  /** The probe's answer: the series in `format` (negotiated as for /metrics), or a one-line text refusal. */
  async probe(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined, format: Format = 'text'): Promise<ProbeResult> {
    let out: ProbeResult;
    if (this.active >= this.config.probe.max_concurrent) {
      out = { status: 503, contentType: TEXT, headers: { 'retry-after': '1' }, body: 'too many probes in progress; try again\n' };
    } else {
      this.active += 1;
      try {
        out = await this.answer(query, scrapeTimeoutSeconds, format);
      } finally {
        this.active -= 1;
      }
    }
    // A refusal is sent after its first second of Retry-After, holding no slot: a client looping on
    // refusals cannot turn them into a flood that starves /healthz and scrapes of the CPU.
    if (out.status === 429 || out.status === 503) await delay(REFUSAL_DELAY_MS);
    return out;
  }

  private async answer(query: URLSearchParams, scrapeTimeoutSeconds: number | undefined, format: Format): Promise<ProbeResult> {
    const started = performance.now();
    const target = query.get('target') ?? '';
    const found = this.resolve(target);
    // One line of text, the target quoted and cut short.
    if ('reason' in found) {
      return {
        status: found.status,
        contentType: TEXT,
        ...(found.retryAfter !== undefined ? { headers: { 'retry-after': String(found.retryAfter) } } : {}),
        body: `unknown target ${quoted(target, 200)}: ${found.reason}\n`,
      };
    }
    const { rt, store } = found;
    const runners = selectRunners(rt, query.get('collectors') ?? '');
    if ('body' in runners) return runners;
    // Leave half a second of Prometheus's deadline for rendering and the network.
    const budget = Math.min(this.config.probe.timeout, scrapeTimeoutSeconds !== undefined ? Math.max(0.1, scrapeTimeoutSeconds - 0.5) * 1000 : Infinity);
    const success = await this.pollStale(runners, Math.max(100, budget));
    if (!success && store !== this.ctx.store) this.logFailures(rt, runners);
    const names = new Set(runners.map((r) => r.collector.name));
    const polled = storeSource(store, (k) => k.scope === 'target' && k.id === rt.cfg.name && (names.has(k.source) || k.source === 'http'));
    const own = toSeries(
      [
        { metric: SELF.probeSuccess, values: [rt.cfg.name], value: success ? 1 : 0 },
        { metric: SELF.probeDuration, values: [rt.cfg.name], value: (performance.now() - started) / 1000 },
      ],
      this.config.limits.label_value_bytes,
    );
    const source = { series: (m: MetricDef) => own.get(m) ?? polled.series(m), has: (m: MetricDef) => own.has(m) || polled.has(m) };
    const body = await new FamilyRegistry(format, this.catalogue, source).render();
    return { status: 200, contentType: CONTENT_TYPES[format], body };
  }

  /**
   * Polls the runners whose series are older than probe.max_age (or failed), within `budgetMs`; a
   * poll already in flight is joined, but never waited for past the deadline. True when every
   * runner's last poll succeeded in time.
   */
  private async pollStale(runners: Runners, budgetMs: number): Promise<boolean> {
    // The deadline's timer and listener are released when the probe ends, not when the timer fires.
    const deadline = linkedSignal([], budgetMs, 'probe');
    let onExpired = (): void => {};
    const now = Date.now();
    const expired = new Promise<'late'>((resolve) => {
      onExpired = () => resolve('late');
      deadline.signal.addEventListener('abort', onExpired, { once: true });
    });
    const stale = (s: Runners[number]['state']): boolean =>
      s.lastSuccessMs === undefined || now - s.lastSuccessMs > this.config.probe.max_age || s.success === false;
    let waited: ('done' | 'late' | 'fresh')[];
    try {
      waited = await Promise.all(
        runners.map((r) =>
          stale(r.state) ? Promise.race([r.runOnce(deadline.signal).then(() => 'done' as const), expired]) : Promise.resolve('fresh' as const),
        ),
      );
    } finally {
      deadline.signal.removeEventListener('abort', onExpired);
      deadline.dispose();
    }
    return !waited.includes('late') && runners.every((r) => r.state.success === true);
  }

  /** One line per distinct failure (collector and code) of URL targets per window, however many URLs fail. */
  private logFailures(rt: TargetRuntime, runners: TargetRuntime['runners']): void {
    const now = Date.now();
    for (const r of runners) {
      if (r.state.success !== false) continue;
      const code = r.state.lastErrorCode ?? 'UNEXPECTED';
      const key = `${r.collector.name}\u0000${code}`;
      if ((this.logged.get(key) ?? -Infinity) > now - LOG_WINDOW_MS) continue;
      this.logged.set(key, now);
      this.ctx.log.warn(
        { code, collector: r.collector.name, target: rt.cfg.name },
        'probe of a URL target failing (logged once a minute per collector and code)',
      );
    }
  }

  /** A new configuration generation: URL targets built from the old one are dropped, and made again from this one when next probed. */
  async reconfigure(ctx: RuntimeContext): Promise<void> {
    this.ctx = ctx;
    this.quietLog = ctx.log.child({ probe: true }, { level: 'silent' });
    await this.stop();
  }

  async stop(): Promise<void> {
    const made = [...this.urlTargets.values()];
    this.urlTargets.clear();
    await Promise.all(made.map((p) => p.rt.stop(false)));
  }
}
