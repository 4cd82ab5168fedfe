/**
 * The fleet simulator: 20 nodes in one process sharing one network. Each answers as a single
 * simulated node does (same shapes), with its own height, peers and faults, the same market ids,
 * and a count of its own requests per second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startFleet, type SimFleet } from '@datanode-exporter/simulator/fleet';
import { checkShape } from '../helpers/shape.js';
import { ManualClock } from '../helpers/sim.js';
import { NETWORK_HISTORY, STATISTICS } from './shapes.js';

const clock = new ManualClock();
let fleet: SimFleet;
const get = async (i: number, path: string): Promise<{ status: number; body: any; headers: Headers }> => {
  const res = await fetch(`${fleet.nodes[i]!.sim.url}${path}`);
  return { status: res.status, body: await res.json(), headers: res.headers };
};

beforeAll(async () => {
  fleet = await startFleet({
    nodes: 20,
    seed: 5,
    now: clock.now,
    markets: 4,
    nodeFaults: { 3: { datanodeLagBlocks: 50 }, 7: { endpoints: { statistics: { error: 500 } } } },
  });
});
afterAll(() => fleet.close());

describe('a fleet of 20 simulated nodes', () => {
  it('answers on each node with a single node’s shapes, and lists every node', async () => {
    for (const i of [0, 19]) {
      const s = await get(i, '/statistics');
      expect(checkShape(s.body.statistics, STATISTICS)).toEqual([]);
      expect(s.headers.get('x-block-height')).toMatch(/^\d+$/);
      expect(checkShape((await get(i, '/api/v2/networkhistory')).body, NETWORK_HISTORY)).toEqual([]);
    }
    const listed = (await (await fetch(`${fleet.url}/__sim/fleet`)).json()) as { nodes: { name: string; url: string }[] };
    expect(listed.nodes.map((n) => n.url)).toEqual(fleet.nodes.map((n) => n.sim.url));
    expect(new Set(listed.nodes.map((n) => n.url)).size).toBe(20);
    const targets = parse(await (await fetch(`${fleet.url}/__sim/fleet/targets.yaml`)).text()) as { targets: { name: string; url: string }[] };
    expect(targets.targets).toEqual(listed.nodes.map(({ name, url }) => ({ name, url })));
  });

  it('gives nodes their own heights and peers but the same markets and chain', async () => {
    const stats = await Promise.all(fleet.nodes.map((_, i) => (i === 7 ? Promise.resolve(undefined) : get(i, '/statistics'))));
    const ok = stats.filter((s) => s !== undefined).map((s) => s.body.statistics);
    expect(new Set(ok.map((s) => s.blockHeight)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(ok.map((s) => s.totalPeers)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(ok.map((s) => s.chainId)).size).toBe(1);
    const tip = Math.max(...ok.map((s) => Number(s.blockHeight)));
    for (const s of ok) expect(tip - Number(s.blockHeight)).toBeLessThanOrEqual(3);
    const history = await Promise.all([0, 1, 2, 5].map((i) => get(i, '/api/v2/networkhistory')));
    expect(new Set(history.map((h) => h.body.ipfsAddress)).size).toBe(4);
    expect(new Set(history.map((h) => new Set(h.body.connectedPeers).size)).size).toBeGreaterThan(1);
    const ids = async (i: number): Promise<string[]> => (await get(i, '/api/v2/markets')).body.markets.edges.map((e: { node: { id: string } }) => e.node.id);
    expect(await ids(0)).toHaveLength(4);
    expect(await ids(13)).toEqual(await ids(0));
    // A market the network adds through one node shows on every node.
    const added = (await (await fetch(`${fleet.nodes[2]!.sim.url}/__sim/markets`, { method: 'POST' })).json()) as { id: string };
    expect(await ids(17)).toContain(added.id);
  });

  it('keeps faults per node: lag, errors and a halt touch only their node', async () => {
    const lagging = await get(3, '/statistics');
    const core = Number(lagging.body.statistics.blockHeight);
    expect(core - Number(lagging.headers.get('x-block-height'))).toBe(50);
    const healthy = await get(4, '/statistics');
    expect(Number(healthy.body.statistics.blockHeight) - Number(healthy.headers.get('x-block-height'))).toBe(0);
    expect((await get(7, '/statistics')).status).toBe(500);
    expect((await get(8, '/statistics')).status).toBe(200);

    fleet.nodes[9]!.sim.patchFaults({ halted: true });
    const h9 = Number((await get(9, '/statistics')).body.statistics.blockHeight);
    const h10 = Number((await get(10, '/statistics')).body.statistics.blockHeight);
    clock.advance(5000);
    expect(Number((await get(9, '/statistics')).body.statistics.blockHeight)).toBe(h9);
    expect(Number((await get(10, '/statistics')).body.statistics.blockHeight)).toBe(h10 + 5);
    fleet.nodes[9]!.sim.clearFaults();
    expect(Number((await get(9, '/statistics')).body.statistics.blockHeight)).toBeGreaterThan(h9);
  });

  it('counts each node’s requests and its busiest second', async () => {
    await fetch(`${fleet.url}/__sim/fleet/rates`, { method: 'DELETE' });
    for (let k = 0; k < 6; k++) await get(11, '/statistics');
    await get(12, '/statistics');
    const r = (await (await fetch(`${fleet.url}/__sim/fleet`)).json()) as { maxPerSecond: number; nodes: { requests: number; maxPerSecond: number }[] };
    expect(r.nodes[11]).toMatchObject({ requests: 6, maxPerSecond: 6 });
    expect(r.nodes[12]).toMatchObject({ requests: 1, maxPerSecond: 1 });
    expect(r.nodes[0]!.requests).toBe(0);
    expect(r.maxPerSecond).toBe(6);
  });
});
