/**
 * The fleet reconciles its networks when a target's network becomes known (its first statistics
 * poll), at once. A reconcile is seen by its effect: the target's network appears.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/exporter/config/schema.js';
import { Exporter } from '../../../src/exporter/exporter.js';
import { COLLECTORS } from '../../../src/exporter/vega/collectors/index.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { waitFor } from '../../helpers/exporter.js';
import { ManualClock, withSim } from '../../helpers/sim.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function exporterWith(targets: (url: string) => object[], more: object = {}): Promise<Exporter> {
  const sim = await withSim({ seed: 3, now: new ManualClock().now });
  stops.push(() => sim.close());
  const only = { interval: '24h' };
  const config = configSchema().parse({
    targets: targets(sim.url),
    ...more,
    log: { level: 'silent' },
    collectors: { statistics: only, network_history: { enabled: false }, consistency: { enabled: false }, markets: only, key_rotations: only },
  });
  // Not started: the test runs the one poll that matters itself.
  const ex = new Exporter(config, createLogger('silent'), undefined, COLLECTORS);
  stops.push(() => ex.stop());
  return ex;
}

describe('networks follow their members', () => {
  it("a target's first statistics poll brings its network at once", async () => {
    const ex = await exporterWith((url) => [{ name: 'n', url }]);
    await ex.startCore();
    await waitFor(() => ex.targets.get('n')!.runner('statistics')!.state.runs > 0);
    expect(ex.networks.size).toBe(1); // no timer was needed
  });

  it("a shard with a node of a network does not poll it when the network's first configured node is another shard's", async () => {
    // FNV-1a: "a" = 0xe40c292c (shard 0 of 2), "b" = 0xe70c2de5 (shard 1 of 2): shard 1 has b, network main is shard 0's.
    const targets = (url: string) => ['a', 'b'].map((name) => ({ name, url, network: 'main' }));
    const one = await exporterWith(targets, { shard: '1/2' });
    await one.startCore();
    await waitFor(() => one.targets.get('b')?.runner('statistics')?.state.runs === 1);
    expect([...one.targets.keys()]).toEqual(['b']);
    expect(one.networks.size).toBe(0);
    const zero = await exporterWith(targets, { shard: '0/2' });
    await zero.startCore();
    await waitFor(() => zero.targets.get('a')?.runner('statistics')?.state.runs === 1);
    expect([...zero.networks.keys()]).toEqual(['main']);
  });
});
