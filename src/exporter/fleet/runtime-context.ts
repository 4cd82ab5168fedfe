import type { ByteBudget } from '../http/budget.js';
import { isEnabled, settingsOf, type AnyCollectorModule } from '../engine/define.js';
import type { Scope } from '../engine/types.js';
import type { Config } from '../config/schema.js';
import type { SeriesStore } from '../engine/store.js';
import type { Logger } from '../logger.js';
import { CollectorRunner, type Candidate } from '../engine/runner.js';
import { runnerSettings } from '../engine/settings.js';
import type { Limiter } from '../engine/limiter.js';
import { Directory } from '../vega/directory.js';
import type { PacerRegistry } from '../http/pace.js';
import type { ApiSli } from './api-sli.js';

/**
 * What every target and network runtime is built from, and how they make their runners: one
 * generation per loaded configuration. A reload makes a new one (Fleet.reconfigure); nothing edits
 * one in place, so a runtime keeps the settings it was built with.
 */
export interface RuntimeContext {
  readonly config: Config;
  readonly store: SeriesStore;
  readonly log: Logger;
  /** The collector registry (collectors/index.ts, or a test's own list). */
  readonly collectors: readonly AnyCollectorModule[];
  /** Pacing and back-off per upstream host and port, shared by polls and probes. */
  readonly pacers?: PacerRegistry;
  /** What every target's held answers may cost together (http.max_held_bytes). */
  readonly heldBytes?: ByteBudget;
  /** Takes every runner's first poll a few at a time (engine/limiter.ts). */
  readonly firstPolls?: Limiter;
  /** Each request's outcome and duration, for the API's service levels. */
  readonly apiSli?: ApiSli;
}

/** A runner for each enabled collector of one scope, sharing that scope's directory and candidates. */
export function runnersFor(
  scope: Scope,
  scopeValue: string,
  ctx: RuntimeContext,
  candidates: () => Candidate[],
  onApplied: (r: CollectorRunner) => void,
): CollectorRunner[] {
  const directory = new Directory();
  const enabled = ctx.collectors.filter((m) => m.scope === scope && isEnabled(ctx.config, m));
  return enabled.map((m) => {
    const settings = runnerSettings(ctx.config, m, enabled);
    return new CollectorRunner({
      scopeValue,
      collector: m,
      // State kept per label value is bounded by the collector's own share, as its series are.
      instance: m.create(settingsOf(ctx.config, m), { shared: directory, seriesLimit: settings.seriesShare }),
      candidates,
      store: ctx.store,
      settings,
      log: ctx.log,
      onApplied,
      firstPolls: ctx.firstPolls,
    });
  });
}
