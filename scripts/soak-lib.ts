/** The soak loop, shared by the soak script and its short version in the test suite. */
import { Exporter } from '../src/exporter/exporter.js';
import { configSchema } from '../src/exporter/config/schema.js';
import { createLogger } from '../src/exporter/logger.js';
import { Rng } from '@datanode-exporter/simulator/rng';
import { startSimulator } from '@datanode-exporter/simulator/server';

export interface SoakRow {
  cycle: number;
  heapMiB: number;
  rssMiB: number;
  series: number;
  handles: number;
  markets: number;
  rotations: number;
}

const FAULTS: object[] = [
  { endpoints: { statistics: { error: 503 } } },
  { endpoints: { markets: { malformedJson: true } } },
  { endpoints: { networkhistory: { wrongTypes: true } } },
  { endpoints: { rotations: { pagination: { duplicateRows: true } } } },
  { endpoints: { '*': { unknownEnums: true } } },
  { halted: true },
  { datanodeLagBlocks: 500 },
  { stripFreshnessHeaders: true },
  { networkHistoryDisabled: true },
  { marketsCore: true },
  { nonFiniteDoubles: true },
];

/** The series budget: the node's and the markets' (60 × 50 + 600), plus market_data's ~45 for each of up to 60 markets. */
export const SOAK_SERIES_BOUND = 60 * 50 + 600 + 45 * 60;

export async function runSoak(
  cycles: number,
  every: number,
  onRow: (r: SoakRow) => void = () => {},
): Promise<{ rows: SoakRow[]; summary: { ok: boolean; heapGrowthMiB: number; seriesMax: number; seriesMin: number; handleGrowth: number } }> {
  let now = Date.UTC(2026, 0, 1);
  const sim = await startSimulator({ seed: 33, now: () => now, markets: 40, rotationEveryBlocks: 3 });
  const config = configSchema().parse({
    targets: [{ name: 'soak', url: sim.url }],
    log: { level: 'silent' },
    // No pacing, and one retry of a failed request rather than the default two: the retry path is
    // soaked all the same, and its jittered back-off (up to 0.6 s a request with two) is only waiting.
    http: { requests_per_second: 1000, burst: 1000, page_size: 200, retries: 1 },
    collectors: Object.fromEntries(
      ['statistics', 'network_history', 'consistency', 'markets', 'market_data', 'key_rotations'].map((c) => [c, { interval: '1h', max_age: '1h' }]),
    ),
  });
  const ex = new Exporter(config, createLogger('silent'));
  await ex.start('127.0.0.1:0');
  const rng = new Rng(7);
  const rows: SoakRow[] = [];
  // Heap after a collection, so that growth is what stays alive: node runs with --expose-gc (the soak
  // script and the attack suite start it so).
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('soak: run node with --expose-gc');
  for (let cycle = 1; cycle <= cycles; cycle++) {
    now += 2_000; // two blocks a cycle: rotations accrue, orders and positions move
    const roll = rng.int(1, 10);
    if (roll === 1 && sim.net.markets.length > 20) sim.net.removeMarket(rng.pick(sim.net.markets).id);
    else if (roll === 2 && sim.net.markets.length < 60) sim.net.addMarket();
    else if (roll === 3) sim.patchFaults(rng.pick(FAULTS));
    else if (roll <= 5) sim.clearFaults();
    await Promise.all(ex.runners.map((r) => r.runOnce()));
    await ex.exposition.body('openmetrics'); // as a scrape would
    if (cycle % every === 0 || cycle === 1) {
      gc();
      const m = process.memoryUsage();
      const row = {
        cycle,
        heapMiB: m.heapUsed / 2 ** 20,
        rssMiB: m.rss / 2 ** 20,
        series: ex.store.seriesCount(),
        handles: process.getActiveResourcesInfo().length,
        markets: sim.net.markets.length,
        rotations: sim.net.rotations.length,
      };
      rows.push(row);
      onRow(row);
    }
  }
  await ex.stop();
  await sim.close();
  // Judge growth on the second half against the first measured point after warm-up.
  const warm = rows[Math.min(1, rows.length - 1)]!;
  const last = rows[rows.length - 1]!;
  const series = rows.map((r) => r.series);
  const heapGrowthMiB = last.heapMiB - warm.heapMiB;
  const handleGrowth = last.handles - warm.handles;
  // Series are bounded by the market count: about 45 per market plus a fixed few hundred.
  const ok = heapGrowthMiB < 25 && handleGrowth <= 5 && Math.max(...series) < SOAK_SERIES_BOUND;
  return { rows, summary: { ok, heapGrowthMiB, seriesMax: Math.max(...series), seriesMin: Math.min(...series), handleGrowth } };
}
