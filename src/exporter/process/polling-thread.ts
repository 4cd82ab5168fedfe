/** Whether the daemon polls in a worker thread, from the size of what the configuration may serve. */
import type { AnyCollectorModule } from '../collectors/define.js';
import { isEnabled, settingsOf } from '../collectors/define.js';
import { COLLECTORS } from '../collectors/index.js';
import type { Config } from '../config/schema.js';

/** The exporter's own series per target: collector health, request counters, fleet signals. */
const BOOKKEEPING_PER_TARGET = 50;
/** Above this many series a poll's parsing and rendering would delay scrapes on one thread. */
const THREAD_ABOVE_SERIES = 50_000;

/** An upper estimate of the series a configuration can produce, from each collector's own. */
export function expectedSeries(cfg: Config, collectors: readonly AnyCollectorModule[] = COLLECTORS): number {
  const networks = Math.max(1, new Set(cfg.targets.map((t) => t.network ?? '')).size);
  let perTarget = BOOKKEEPING_PER_TARGET;
  let perNetwork = 0;
  for (const m of collectors) {
    if (!isEnabled(cfg, m)) continue;
    const n = m.expectedSeries(settingsOf(cfg, m));
    if (m.scope === 'node') perTarget += n;
    else perNetwork += n;
  }
  return perTarget * cfg.targets.length + networks * perNetwork;
}

/** `on`, `off`, or for `auto` the size of what it may serve. */
export function usePollingThread(cfg: Config): boolean {
  const mode = cfg.web.polling_thread;
  if (mode !== 'auto') return mode === 'on';
  // Discovered fleets can grow at run time: give them the thread from the start.
  return cfg.discovery.files.length > 0 || expectedSeries(cfg) > THREAD_ABOVE_SERIES;
}
