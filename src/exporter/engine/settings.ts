import type { AnyCollectorModule } from './define.js';
import { settingsOf } from './define.js';
import type { RunnerSettings } from './runner.js';

/** What the runners read of the configuration (config/schema.ts's Config is one). */
export interface RunnerConfig {
  collectors: object;
  limits: { series_per_target: number; series_per_network: number };
  http: { page_size: number; max_pages: number };
}

/**
 * A collector's schedule, deadline, series lifetime and series budget from the configuration.
 * `peers`: the enabled collectors of its scope (itself included), which share the scope's limit
 * by their declared weights, so that one collector a node makes mint series cannot leave none for the others.
 */
export function runnerSettings(config: RunnerConfig, module: AnyCollectorModule, peers: readonly AnyCollectorModule[] = [module]): RunnerSettings {
  const c = settingsOf(config, module);
  const seriesLimit = module.scope === 'network' ? config.limits.series_per_network : config.limits.series_per_target;
  return {
    intervalMs: c.interval,
    // Leave a little of the interval free so a slow poll never runs into the next one.
    timeoutMs: c.timeout ?? Math.max(1000, Math.floor(c.interval * 0.8)),
    maxAgeMs: c.max_age ?? c.interval * 3,
    pageSize: config.http.page_size,
    maxPages: config.http.max_pages,
    seriesLimit,
    seriesShare: Math.floor((seriesLimit * weight(module)) / peers.reduce((sum, m) => sum + weight(m), 0)),
  };
}

const weight = (m: AnyCollectorModule): number => m.seriesWeight ?? 1;
