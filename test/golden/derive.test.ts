/**
 * The golden file was written by the code it checks: this derives a sample of its values another
 * way, from the simulator's own records for the same seed and options (what the nodes hold, not
 * what the exporter made of it), by the spec's rules (heights as given, lag as the difference,
 * counts per state, volumes scaled by the market's position decimals). A regenerated golden file
 * whose values drift from the records fails here, whatever its diff looked like.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_FILE, GOLDEN_LAG_BLOCKS, GOLDEN_SIM } from '../../scripts/golden.js';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';

/** name{labels} -> value, as written in the file (masked values stay text). */
const golden = new Map<string, string>();
for (const line of readFileSync(GOLDEN_FILE, 'utf8').split('\n')) {
  if (line === '' || line.startsWith('#')) continue;
  const cut = line.lastIndexOf(' ');
  golden.set(line.slice(0, cut), line.slice(cut + 1));
}
const series = (name: string): [string, string][] => [...golden].filter(([k]) => k.startsWith(`${name}{`));
const value = (key: string): number => {
  const v = golden.get(key);
  if (v === undefined) throw new Error(`${key} is not in ${GOLDEN_FILE}`);
  return Number(v);
};
const label = (key: string, name: string): string => new RegExp(`[{,]${name}="([^"]*)"`).exec(key)![1]!;
const countBy = <T>(rows: readonly T[], key: (r: T) => string): Map<string, number> => {
  const out = new Map<string, number>();
  for (const r of rows) out.set(key(r), (out.get(key(r)) ?? 0) + 1);
  return out;
};

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator(GOLDEN_SIM);
});
afterAll(() => sim.close());

const NET = 'vega-mainnet-0011';

describe('the golden file agrees with the simulator’s records', () => {
  it('heights: core height on both nodes, the lagging data node 30 blocks behind', () => {
    const h = sim.net.height;
    expect(value('vega_block_height{target="dn1"}')).toBe(h);
    expect(value('vega_block_height{target="dn2"}')).toBe(h);
    expect(value('vega_datanode_block_height{target="dn1"}')).toBe(h);
    expect(value('vega_datanode_block_height{target="dn2"}')).toBe(h - GOLDEN_LAG_BLOCKS);
    expect(value('vega_datanode_lag_blocks{target="dn2"}')).toBe(GOLDEN_LAG_BLOCKS);
    expect(value('vega_block_timestamp_seconds{target="dn1"}')).toBeCloseTo(Number(sim.net.blockTimeNs) / 1e9, 6);
  });

  it('markets by state and by trading mode: the records counted, 0 for the states no market is in', () => {
    const byState = countBy(sim.net.markets, (m) => m.state);
    const byMode = countBy(sim.net.markets, (m) => m.tradingMode);
    const states = series('vega_markets');
    const modes = series('vega_markets_by_trading_mode');
    expect(states.length).toBeGreaterThan(byState.size);
    for (const [k, v] of states) expect(Number(v), k).toBe(byState.get(label(k, 'state')) ?? 0);
    for (const [k, v] of modes) expect(Number(v), k).toBe(byMode.get(label(k, 'trading_mode')) ?? 0);
    for (const [s] of byState) expect(golden.has(`vega_markets{network="${NET}",state="${s}"}`), s).toBe(true);
  });

  it('key rotations per validator: the rotation records counted', () => {
    const byNode = countBy(sim.net.rotations, (r) => r.nodeId);
    const got = new Map(series('vega_key_rotations_total').map(([k, v]) => [label(k, 'node_id'), Number(v)]));
    expect(got).toEqual(byNode);
  });

  it('open volumes of the configured parties: the records over 10^position decimals', () => {
    const parties = new Set(sim.net.parties.slice(0, 3).map((p) => p.id));
    const want = sim.net.positions.filter((p) => parties.has(p.partyId));
    expect(want.length).toBeGreaterThan(0);
    expect(series('vega_position_open_volume')).toHaveLength(want.length);
    for (const p of want) {
      const market = sim.net.markets.find((m) => m.id === p.marketId)!;
      const key = `vega_position_open_volume{network="${NET}",market_id="${p.marketId}",party_id="${p.partyId}"}`;
      expect(value(key), key).toBeCloseTo(Number(p.openVolume) / 10 ** market.positionDecimalPlaces, 9);
    }
  });
});
