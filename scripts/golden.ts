/**
 * The golden /metrics output (as node_exporter's end-to-end fixture): two simulated data nodes on a
 * fixed seed and a frozen clock, every collector on, polled twice in a fixed order, the text served
 * by /metrics with the values that depend on the run (durations, times of polls, request counts,
 * the series count, the time of the configuration load, process metrics) masked. `npm run golden` rewrites test/golden/metrics.txt; a test diffs it.
 */
import { writeFileSync } from 'node:fs';
import { COLLECTORS } from '../src/exporter/vega/collectors/index.js';
import { Exporter } from '../src/exporter/exporter.js';
import { configSchema } from '../src/exporter/config/schema.js';
import { createLogger } from '../src/exporter/logger.js';
import { startSimulator } from '@datanode-exporter/simulator/server';

export const GOLDEN_FILE = 'test/golden/metrics.txt';
const FROZEN = Date.UTC(2026, 10, 1, 12, 0, 0);

/** Families whose values change from run to run; their label sets are still compared. */
const MASKED =
  /^(datanode_exporter_(network_)?collector_duration_seconds|datanode_exporter_(network_)?collector_last_success_timestamp_seconds|datanode_exporter_upstream_requests_total|datanode_exporter_upstream_request_duration_seconds_(bucket|sum|count))\{|^datanode_exporter_(series|config_last_reload_success_timestamp_seconds) /;
/** Process metrics and the Node version: not the exporter's output about data nodes. */
const DROPPED = /^(# (HELP|TYPE) )?(process_|nodejs_|datanode_exporter_build_info)/;

export function normalise(text: string): string {
  return text
    .split('\n')
    .filter((l) => l !== '' && !DROPPED.test(l))
    .map((l) => (MASKED.test(l) ? l.replace(/ [^ ]+$/, ' <masked>') : l))
    .join('\n')
    .concat('\n');
}

/** The two simulated nodes (test/golden/derive.test.ts reads their records). Data nodes as they run: `GET /markets` answers 404 and the markets collector pages `/api/v2/markets`. */
export const GOLDEN_SIM = {
  seed: 7,
  now: () => FROZEN,
  markets: 4,
  parties: 6,
  positions: 12,
  orders: 4,
  signatureResources: 2,
  rotations: 30,
  oddLabels: true,
  profile: 'datanode' as const,
};
export const GOLDEN_LAG_BLOCKS = 30;

export async function produceGolden(): Promise<string> {
  const healthy = await startSimulator(GOLDEN_SIM);
  const lagging = await startSimulator({ ...GOLDEN_SIM, faults: { datanodeLagBlocks: GOLDEN_LAG_BLOCKS } });
  const net = healthy.net;
  const config = configSchema().parse({
    targets: [
      { name: 'dn1', url: healthy.url },
      { name: 'dn2', url: lagging.url },
    ],
    log: { level: 'silent' },
    // Daily schedules: nothing fires between the polls made here.
    collectors: {
      statistics: { interval: '24h' },
      network_history: { interval: '24h' },
      consistency: { interval: '24h' },
      key_rotations: { interval: '24h' },
      markets: { interval: '24h' },
      positions: { interval: '24h', party_ids: net.parties.slice(0, 3).map((p) => p.id) },
      parties: { enabled: true, interval: '24h', party_ids: [net.parties[0]!.id, '0'.repeat(64)] },
      node_signatures: { interval: '24h', ids: [...net.signatures.keys()] },
      orders: { interval: '24h', ids: [net.orders[0]!.id, `${net.orders[1]!.id}@1`] },
    },
  });
  const exporter = new Exporter(config, createLogger('silent'), undefined, COLLECTORS);
  try {
    const url = await exporter.start('127.0.0.1:0');
    // Until every first poll has ended (an event; the bound only stops a hang).
    for (let i = 0; i < 2400 && exporter.pending(true).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
    if (exporter.pending(true).length > 0) throw new Error(`not ready: ${exporter.pending(true).join(', ')}`);
    // A second round, one collector at a time, so that every collector saw the others' results.
    for (const r of exporter.runners) await r.runOnce();
    await exporter.exposition.flush();
    const res = await fetch(`${url}/metrics`);
    return normalise(await res.text());
  } finally {
    await exporter.stop();
    await healthy.close();
    await lagging.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(GOLDEN_FILE, await produceGolden());
  console.log(`wrote ${GOLDEN_FILE}`);
}
