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

async function exporterWith(now: () => number): Promise<Exporter> {
  const sim = await withSim({ seed: 3, now: new ManualClock().now });
  stops.push(() => sim.close());
  const only = { interval: '24h' };
  const config = configSchema.parse({
    targets: [{ name: 'n', url: sim.url }],
    log: { level: 'silent' },
    collectors: { statistics: only, network_history: { enabled: false }, consistency: { enabled: false }, markets: only, key_rotations: only },
  });
  // Not started: the test runs the one poll that matters itself.
  const ex = new Exporter(config, createLogger('silent'), undefined, COLLECTORS, now);
  stops.push(() => ex.stop());
  return ex;
}

describe('networks follow their members', () => {
  it("a target's first statistics poll brings its network at once", async () => {
    const ex = await exporterWith(() => 0);
    await ex.startCore();
    await waitFor(() => ex.targets.get('n')!.runner('statistics')!.state.runs > 0);
    expect(ex.networks.size).toBe(1); // no timer was needed
  });
});
