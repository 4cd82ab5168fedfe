/** Each target of docs/performance.md as a check on one bench results file (scripts/bench-targets.ts prints them). */

/** A results file as bench/run.ts writes it (read loosely: older files lack some sections). */
export type Results = any;

export interface Cell {
  name: string;
  target: string;
  value: (r: Results) => number | undefined;
  ok: (v: number) => boolean;
}

const scrapeMin = (r: Results, small: boolean, key: string): number | undefined => {
  const rows = (r.scrape ?? []) as { series: number; [k: string]: unknown }[];
  const sizes = [...new Set(rows.map((x) => x.series))].sort((a, b) => a - b);
  const size = small ? sizes[0] : sizes[1];
  const vals = rows.filter((x) => x.series === size).map((x) => x[key] as number);
  return vals.length ? Math.min(...vals) : undefined;
};

/** The targets of the scrape, during, memory and polls sections (the quick run has them all). */
export const RUN_CELLS: Cell[] = [
  { name: 'exporter/raw, ~1,000 series (lowest cell)', target: '≥ 0.7', value: (r) => scrapeMin(r, true, 'exporterOverRaw'), ok: (v) => v >= 0.7 },
  { name: 'exporter/raw, ~10,000 series (lowest cell)', target: '≥ 0.7', value: (r) => scrapeMin(r, false, 'exporterOverRaw'), ok: (v) => v >= 0.7 },
  { name: 'exporter/prom-client, ~10,000 series (lowest cell)', target: '≥ 20', value: (r) => scrapeMin(r, false, 'exporterOverPromclient'), ok: (v) => v >= 20 },
  { name: 'p99 during polls / idle, polling thread', target: '≤ 2', value: (r) => r.duringPolls?.threaded?.ratioP99, ok: (v) => v <= 2 },
  { name: 'resident MiB at ~10,000 series, default mode (median)', target: '< 95.4', value: (r) => (r.residentMemory ?? []).find((m: { mode: string; series: number }) => m.mode === 'auto' && m.series < 50_000)?.medianMiB, ok: (v) => v < 95.4 },
  {
    name: 'key-rotation poll CPU, 100,000 / 1,000 rotations',
    target: '≤ 1.5',
    value: (r) => {
      const k = (r.pollCost ?? []).filter((p: { collector: string }) => p.collector === 'key_rotations');
      return k.length === 2 ? k[1].cpuMs / k[0].cpuMs : undefined;
    },
    ok: (v) => v <= 1.5,
  },
];

/** The fleet section's row at 1,000 targets, where its targets are set. */
const at1000 = (r: Results): Record<string, any> | undefined => (r.fleet?.polling ?? []).find((p: { targets: number }) => p.targets === 1000);

/** The fleet section's targets (issue "A thousand data nodes"): one exporter, 1,000 targets. */
export const FLEET_CELLS: Cell[] = [
  { name: 'RSS MiB, 1,000 targets', target: '< 238.4 (250 MB)', value: (r) => at1000(r)?.rssMiB, ok: (v) => v < 238.4 },
  {
    name: 'missed or overlapping polls since start, 1,000 targets',
    target: '0',
    value: (r) => {
      const row = at1000(r);
      return row ? row.late.missed + row.late.overlap : undefined;
    },
    ok: (v) => v === 0,
  },
  { name: 'busiest node req/s, 1,000 targets', target: '≤ 20', value: (r) => at1000(r)?.maxPerNodePerS, ok: (v) => v <= 20 },
  { name: 'p99 during polls / idle, 1,000 targets', target: '≤ 2', value: (r) => at1000(r)?.p99Ratio, ok: (v) => v <= 2 },
];

export interface Verdict {
  /** Each cell's value, undefined where the run lacks it. */
  values: (number | undefined)[];
  met: boolean[];
  /** Every cell present and met: a missing cell is not met. */
  all: boolean;
}

export function judge(cells: Cell[], r: Results): Verdict {
  const values = cells.map((c) => {
    const v = c.value(r);
    return v === undefined || !Number.isFinite(v) ? undefined : v;
  });
  const met = values.map((v, k) => v !== undefined && cells[k]!.ok(v));
  return { values, met, all: met.every(Boolean) };
}

/** Which tables a file belongs in: the run's targets when it has a scrape or during section, the fleet's when it has one. */
export const hasRunSections = (r: Results): boolean => r.scrape !== undefined || r.duringPolls !== undefined;
export const hasFleet = (r: Results): boolean => r.fleet !== undefined;
