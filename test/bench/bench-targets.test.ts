import { describe, expect, it } from 'vitest';
import { FLEET_CELLS, RUN_CELLS, judge } from '../../scripts/bench-targets-lib.js';

// Hand-written results in bench/run.ts's shape; the limits are docs/performance.md's targets.
const quickRun = (over: { raw1k?: number; ratio?: number; rss?: number; rot?: [number, number] } = {}) => ({
  scrape: [
    { series: 1_030, exporterOverRaw: 0.9, exporterOverPromclient: 5 },
    { series: 1_030, exporterOverRaw: over.raw1k ?? 0.8, exporterOverPromclient: 6 },
    { series: 10_014, exporterOverRaw: 0.95, exporterOverPromclient: 60 },
    { series: 10_014, exporterOverRaw: 0.88, exporterOverPromclient: 49.5 },
  ],
  duringPolls: { threaded: { ratioP99: over.ratio ?? 1.2 } },
  residentMemory: [
    { mode: 'auto', series: 10_014, medianMiB: over.rss ?? 90.4 },
    { mode: 'auto', series: 99_868, medianMiB: 300 },
  ],
  pollCost: [
    { collector: 'statistics', cpuMs: 1 },
    { collector: 'key_rotations', cpuMs: (over.rot ?? [0.44, 0.37])[0] },
    { collector: 'key_rotations', cpuMs: (over.rot ?? [0.44, 0.37])[1] },
  ],
});

const fleetRow = (targets: number, over: Partial<{ rssMiB: number; missed: number; overlap: number; maxPerNodePerS: number; p99Ratio: number }> = {}) => ({
  targets,
  rssMiB: over.rssMiB ?? 221.9,
  maxPerNodePerS: over.maxPerNodePerS ?? 4,
  p99Ratio: over.p99Ratio ?? 1.27,
  late: { missed: over.missed ?? 0, overlap: over.overlap ?? 0 },
});

describe('bench targets (scripts/bench-targets.ts)', () => {
  it('reads each run target from its section: the lowest scrape cell of each size, the 10k default-mode memory, the rotation ratio', () => {
    const v = judge(RUN_CELLS, quickRun());
    expect(v.values).toEqual([0.8, 0.88, 49.5, 1.2, 90.4, 0.37 / 0.44]);
    expect(v.all).toBe(true);
  });

  it('misses a run when any one cell is past its limit', () => {
    expect(judge(RUN_CELLS, quickRun({ raw1k: 0.69 })).met[0]).toBe(false);
    expect(judge(RUN_CELLS, quickRun({ raw1k: 0.69 })).all).toBe(false);
    expect(judge(RUN_CELLS, quickRun({ ratio: 2.01 })).all).toBe(false);
    expect(judge(RUN_CELLS, quickRun({ rss: 95.4 })).all).toBe(false);
    expect(judge(RUN_CELLS, quickRun({ rot: [0.2, 0.31] })).all).toBe(false);
    expect(judge(RUN_CELLS, quickRun({ ratio: 2, rss: 95.3, rot: [0.2, 0.3] })).all).toBe(true);
  });

  it('counts a run without the section as not met', () => {
    const v = judge(RUN_CELLS, { duringPolls: { threaded: { ratioP99: 1.1 } } });
    expect(v.values[3]).toBe(1.1);
    expect(v.met[3]).toBe(true);
    expect(v.all).toBe(false);
  });

  it('judges the fleet at 1,000 targets, not at the other sizes', () => {
    const r = { fleet: { polling: [fleetRow(10, { p99Ratio: 5 }), fleetRow(100, { rssMiB: 300 }), fleetRow(1_000)] } };
    const v = judge(FLEET_CELLS, r);
    expect(v.values).toEqual([221.9, 0, 4, 1.27]);
    expect(v.all).toBe(true);
  });

  it('misses the fleet on memory, a late poll, a busy node or the scrape tail', () => {
    const at = (over: Parameters<typeof fleetRow>[1]) => judge(FLEET_CELLS, { fleet: { polling: [fleetRow(1_000, over)] } });
    expect(at({ rssMiB: 238.4 }).met).toEqual([false, true, true, true]);
    expect(at({ missed: 1 }).met).toEqual([true, false, true, true]);
    expect(at({ overlap: 2 }).values[1]).toBe(2);
    expect(at({ maxPerNodePerS: 21 }).met).toEqual([true, true, false, true]);
    expect(at({ p99Ratio: 2.1 }).met).toEqual([true, true, true, false]);
    expect(at({ rssMiB: 238.3, maxPerNodePerS: 20, p99Ratio: 2 }).all).toBe(true);
  });

  it('has no fleet verdict without a 1,000-target row', () => {
    const v = judge(FLEET_CELLS, { fleet: { polling: [fleetRow(10), fleetRow(100)] } });
    expect(v.values).toEqual([undefined, undefined, undefined, undefined]);
    expect(v.all).toBe(false);
  });
});
