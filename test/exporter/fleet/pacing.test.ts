/**
 * The fleet reconciles after a node-scoped poll at once, unless the last reconcile was less than
 * ten times its own cost ago, measured on the clock the exporter is given: then once, later.
 * A reconcile is seen by its effect: the target's network appears (after its first statistics).
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

describe('reconcile pacing', () => {
  it('on a frozen clock every poll reconciles at once', async () => {
    const ex = await exporterWith(() => 0);
    await ex.startCore();
    await waitFor(() => ex.targets.get('n')!.runner('statistics')!.state.runs > 0);
    expect(ex.networks.size).toBe(1); // no timer was needed
  });

  it('when the last reconcile cost 500 ms on the given clock, the next waits ten times that', async () => {
    // Each reading is 500 ms after the last: every reconcile costs 500 ms, and a poll that ends
    // right after one finds it 500 ms ago, less than 10 × 500: it waits the rest, 4.5 s.
    let t = 0;
    const ex = await exporterWith(() => (t += 500));
    await ex.startCore();
    const stats = ex.targets.get('n')!.runner('statistics')!;
    await waitFor(() => stats.state.runs > 0);
    expect(ex.networks.size).toBe(0); // deferred
    await waitFor(() => ex.networks.size === 1); // then done, by a real timer
  });
});
