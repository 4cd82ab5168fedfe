// Each target of docs/performance.md against one or more bench results files, a row per run:
//   npx tsx scripts/bench-targets.ts bench/results/<run>.json [...]
// A run meets its targets when every cell of its row does; "-" where the run lacks the section.
// Runs with a scrape or during section go in the first table, runs with a fleet section in the
// second (a file with both is in both). Exits 1 when any row misses a target.
import { readFileSync } from 'node:fs';
import { type Cell, FLEET_CELLS, RUN_CELLS, type Results, hasFleet, hasRunSections, judge } from './bench-targets-lib.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/bench-targets.ts bench/results/<run>.json [...]');
  process.exit(2);
}
const runs = files.map((f) => ({ file: f.split('/').pop()!, r: JSON.parse(readFileSync(f, 'utf8')) as Results }));
let allRuns = true;

function table(cells: Cell[], rows: typeof runs): void {
  console.log(`| run | Node | ${cells.map((c) => `${c.name} (${c.target})`).join(' | ')} | all met |`);
  console.log(`|---|---|${cells.map(() => '---|').join('')}---|`);
  for (const { file, r } of rows) {
    const v = judge(cells, r);
    allRuns &&= v.all;
    const shown = v.values.map((x, k) => (x === undefined ? '-' : v.met[k] ? x.toFixed(2) : `**${x.toFixed(2)}**`));
    console.log(`| ${file} | ${r.machine?.node ?? '?'} | ${shown.join(' | ')} | ${v.all ? 'yes' : '**no**'} |`);
  }
}

const withRun = runs.filter((x) => hasRunSections(x.r));
const withFleet = runs.filter((x) => hasFleet(x.r));
if (withRun.length > 0) table(RUN_CELLS, withRun);
if (withFleet.length > 0) {
  if (withRun.length > 0) console.log('');
  table(FLEET_CELLS, withFleet);
}

// Not a target of docs/performance.md: how far one run's during-polls ratio is from the next run's
// on the same Node, which should stay within 10% (in bold when it does not).
const during = withRun.map(({ file, r }) => ({ file, node: r.machine?.node ?? '?', ratio: r.duringPolls?.threaded?.ratioP99 as number | undefined, interval: r.duringPolls?.threaded?.ratioP99Interval90 as [number, number] | undefined }));
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
