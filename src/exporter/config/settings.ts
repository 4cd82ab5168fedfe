/**
 * Helpers over a validated configuration that do not need the schema library: the polling worker
 * imports these without loading zod.
 */
import type { CollectorKey, Config } from './schema.js';

/** Collectors that watch listed ids are on when ids are listed, unless switched off explicitly. */
export function isEnabled(cfg: Config, key: CollectorKey): boolean {
  const c = cfg.collectors[key] as { enabled?: boolean };
  if (c.enabled !== undefined) return c.enabled;
  switch (key) {
    case 'positions':
      return cfg.collectors.positions.party_ids.length + cfg.collectors.positions.market_ids.length > 0;
    case 'node_signatures':
      return cfg.collectors.node_signatures.ids.length > 0;
    case 'orders':
      return cfg.collectors.orders.ids.length > 0;
    default:
      return true;
  }
}


/**
 * A node-cron (6-field) expression that fires every `ms`, aligned to the clock; undefined when
 * the interval does not divide a minute, an hour or a day evenly.
 */
export function intervalToCron(ms: number): string | undefined {
  if (ms % 1000 !== 0) return undefined;
  const s = ms / 1000;
  if (s < 60) return 60 % s === 0 ? (s === 1 ? '* * * * * *' : `*/${s} * * * * *`) : undefined;
  if (s % 60 !== 0) return undefined;
  const m = s / 60;
  if (m < 60) return 60 % m === 0 ? (m === 1 ? '0 * * * * *' : `0 */${m} * * * *`) : undefined;
  if (m % 60 !== 0) return undefined;
  const h = m / 60;
  if (h < 24) return 24 % h === 0 ? (h === 1 ? '0 0 * * * *' : `0 0 */${h} * * *`) : undefined;
  return h === 24 ? '0 0 0 * * *' : undefined;
}

/**
 * An upper estimate of the series a configuration can produce, to decide whether polling needs a
 * thread of its own. Per target: statistics, network history and bookkeeping (~120). Per network:
 * ~45 per market up to the guard, rotations for a validator set, and the listed ids.
 */
export function expectedSeries(cfg: Config): number {
  const c = cfg.collectors;
  const networks = Math.max(1, new Set(cfg.targets.map((t) => t.network ?? '')).size);
  let perNetwork = 0;
  if (isEnabled(cfg, 'markets')) perNetwork += c.markets.counts_only ? 40 : 40 + 45 * (c.markets.allow.length > 0 ? Math.min(c.markets.allow.length, c.markets.max_markets) : c.markets.max_markets);
  if (isEnabled(cfg, 'key_rotations')) perNetwork += 2 * 200;
  if (isEnabled(cfg, 'positions')) perNetwork += 12 * Math.max(1, c.positions.party_ids.length) * Math.max(1, c.positions.market_ids.length || 50);
  if (isEnabled(cfg, 'orders')) perNetwork += 25 * c.orders.ids.length;
  if (isEnabled(cfg, 'node_signatures')) perNetwork += 8 * c.node_signatures.ids.length;
  return 120 * cfg.targets.length + networks * perNetwork;
}

/** Whether the daemon polls in a worker thread: `on`, `off`, or for `auto` the size of what it may serve. */
export function usePollingThread(cfg: Config): boolean {
  const mode = cfg.web.polling_thread;
  if (mode !== 'auto') return mode === 'on';
  // Discovered fleets can grow at run time: give them the thread from the start.
  return cfg.discovery.files.length > 0 || expectedSeries(cfg) > 50_000;
}
