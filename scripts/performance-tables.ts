// Markdown tables for docs/performance.md from one bench results file:
//   npx tsx scripts/performance-tables.ts bench/results/<run>.json
import { readFileSync } from 'node:fs';
const r = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const n = (x: number, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');
console.log('| series | body | scrapers | enc | raw req/s | raw, shipped flags req/s | exporter req/s | prom-client req/s | exporter / raw | exporter / raw, shipped flags | exporter / prom-client | exporter p50 / p99 ms |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const c of r.scrape) console.log(`| ${n(c.series)} | ${n(c.bodyBytes / 1024)} KiB | ${c.conc} | ${c.gzip ? 'gzip' : 'plain'} | ${n(c.raw.rps)} | ${c.rawShipped ? n(c.rawShipped.rps) : '-'} | ${n(c.exporter.rps)} | ${n(c.promclient.rps)} | ${n(c.exporterOverRaw, 2)} | ${c.exporterOverRawShipped ? n(c.exporterOverRawShipped, 2) : '-'} | ${n(c.exporterOverPromclient, 1)} | ${n(c.exporter.p50ms, 2)} / ${n(c.exporter.p99ms, 2)} |`);
console.log();
const d = r.duringPolls;
console.log('| mode | state | scrapes | p50 ms | p99 ms | max ms | p99 busy / idle | per round |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [k, name] of [['threaded', 'polling thread (`polling_thread: on`)'], ['singleThread', 'single thread (`polling_thread: off`)']] as const) {
  const x = d[k];
  console.log(`| ${name} | idle (markets hourly or daily; ${x.idleMarketPolls} polls in the windows) | ${x.idle.n} | ${n(x.idle.p50ms, 2)} | ${n(x.idle.p99ms, 2)} | ${n(x.idle.max, 1)} | | |`);
  console.log(`| ${name} | markets polled every second (${x.marketPolls} polls) | ${x.busy.n} | ${n(x.busy.p50ms, 2)} | ${n(x.busy.p99ms, 2)} | ${n(x.busy.max, 1)} | ${n(x.ratioP99, 2)}${x.ratioP99Interval90 ? ` [${n(x.ratioP99Interval90[0], 2)}–${n(x.ratioP99Interval90[1], 2)}]` : ''} | ${(x.ratioPerRound ?? []).map((v: number) => n(v, 2)).join(', ')} |`);
}
console.log();
console.log('| collector | upstream | requests / poll | KiB / poll | CPU ms / poll |');
console.log('|---|---|---|---|---|');
for (const p of r.pollCost) console.log(`| ${p.collector} | ${p.upstream} | ${p.requests} | ${n(p.kib, 1)} | ${n(p.cpuMs, 2)} |`);
console.log();
console.log('| series | mode | auto chose | starts | samples | median MiB | max MiB | median of each start MiB |');
console.log('|---|---|---|---|---|---|---|---|');
for (const m of r.residentMemory) console.log(`| ${n(m.series)} | ${m.mode === 'auto' ? 'default (auto)' : m.mode} | ${m.autoChose ?? ''} | ${m.starts} | ${m.samples} | ${n(m.medianMiB, 1)} | ${n(m.maxMiB, 1)} | ${m.startMediansMiB.map((x: number) => n(x, 1)).join(', ')} |`);
console.log();
for (const m of r.memory) console.log(`- ${n(m.series)} series: ${n(m.rssIdleMiB, 1)} MiB before load, ${n(m.rssAfterLoadMiB, 1)} MiB right after its scrape-cost cells; start to first complete /metrics ${n(m.startupMs)} ms`);
const g = r.memoryGrowth; const f = g.samples[0], l = g.samples.at(-1);
console.log(`\ngrowth: heap used ${n(f.heapMiB, 2)} MiB at poll ${f.poll}, ${n(l.heapMiB, 2)} MiB at poll ${l.poll} (${n(l.heapMiB - f.heapMiB, 2)} MiB), ${g.series} series`);
console.log(`machine: ${JSON.stringify(r.machine)} total ${r.totalSeconds}s`);
