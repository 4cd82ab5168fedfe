// Each target of docs/performance.md against one or more bench results files, a row per run:
//   npx tsx scripts/bench-targets.ts bench/results/<run>.json [...]
// A run meets its targets when every cell of its row does; "-" where the run lacks the section.
import { readFileSync } from 'node:fs';

interface Cell {
  name: string;
  target: string;
  value: (r: Results) => number | undefined;
  ok: (v: number) => boolean;
}
/** A results file as bench/run.ts writes it (read loosely: older files lack some sections). */
type Results = any;

const scrapeMin = (r: Results, small: boolean, key: string): number | undefined => {
  const rows = (r.scrape ?? []) as { series: number; [k: string]: unknown }[];
  const sizes = [...new Set(rows.map((x) => x.series))].sort((a, b) => a - b);
  const size = small ? sizes[0] : sizes[1];
  const vals = rows.filter((x) => x.series === size).map((x) => x[key] as number);
  return vals.length ? Math.min(...vals) : undefined;
};

const CELLS: Cell[] = [
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

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/bench-targets.ts bench/results/<run>.json [...]');
  process.exit(2);
}
console.log(`| run | Node | ${CELLS.map((c) => `${c.name} (${c.target})`).join(' | ')} | all met |`);
console.log(`|---|---|${CELLS.map(() => '---|').join('')}---|`);
let allRuns = true;
/** The during-polls ratio of each run in order, to compare one run with the next on the same Node. */
const during: { file: string; node: string; ratio: number | undefined; interval?: [number, number] }[] = [];
for (const f of files) {
  const r: Results = JSON.parse(readFileSync(f, 'utf8'));
  during.push({ file: f.split('/').pop()!, node: r.machine?.node ?? '?', ratio: r.duringPolls?.threaded?.ratioP99, interval: r.duringPolls?.threaded?.ratioP99Interval90 });
  let all = true;
  const cells = CELLS.map((c) => {
    const v = c.value(r);
    if (v === undefined || !Number.isFinite(v)) {
      all = false;
      return '-';
    }
    const met = c.ok(v);
    all &&= met;
    return met ? v.toFixed(2) : `**${v.toFixed(2)}**`;
  });
  allRuns &&= all;
  console.log(`| ${f.split('/').pop()} | ${r.machine?.node ?? '?'} | ${cells.join(' | ')} | ${all ? 'yes' : '**no**'} |`);
}
// Not a target of docs/performance.md: how far one run's during-polls ratio is from the next run's
// on the same Node, which should stay within 10% (in bold when it does not).
const pairs = during.flatMap((d, k) => {
  const prev = during[k - 1];
  return prev && prev.node === d.node && prev.ratio !== undefined && d.ratio !== undefined ? [{ prev, d, change: d.ratio / prev.ratio - 1 }] : [];
});
if (pairs.length > 0) {
  console.log('\n| during-polls ratio, one run to the next | Node | ratios [90% interval over rounds] | change |');
  console.log('|---|---|---|---|');
  const show = (x: (typeof during)[number]): string => `${x.ratio!.toFixed(2)}${x.interval ? ` [${x.interval[0].toFixed(2)}-${x.interval[1].toFixed(2)}]` : ''}`;
  for (const { prev, d, change } of pairs) {
    const pct = `${change >= 0 ? '+' : ''}${(change * 100).toFixed(0)}%`;
    console.log(`| ${prev.file} → ${d.file} | ${d.node} | ${show(prev)} → ${show(d)} | ${Math.abs(change) <= 0.1 ? pct : `**${pct}**`} |`);
  }
}
process.exitCode = allRuns ? 0 : 1;
