/** The short soak: hundreds of poll cycles against a changing simulator, in CI. */
import { describe, expect, it } from 'vitest';
import { SOAK_SERIES_BOUND, runSoak } from '../../scripts/soak-lib.js';

describe('soak (short)', () => {
  it('memory, series and handles stay bounded over 400 changing poll cycles', async () => {
    const { rows, summary } = await runSoak(400, 50);
    expect(rows.length).toBeGreaterThan(5);
    expect(summary.handleGrowth).toBeLessThanOrEqual(5);
    expect(summary.heapGrowthMiB).toBeLessThan(25);
    expect(summary.seriesMax).toBeLessThan(SOAK_SERIES_BOUND);
    // The series follow the market count both ways (markets appear and vanish).
    expect(summary.seriesMax).toBeGreaterThan(summary.seriesMin);
    expect(summary.ok).toBe(true);
  }, 300_000); // a hang guard: the loop takes about 16 s on a two-core machine
});
