/**
 * Prometheus text exposition (version 0.0.4). Samples are rendered to text once, when a poll is
 * applied; a scrape only concatenates the pre-rendered fragments.
 */
import type { MetricDef } from './catalogue.js';

export interface Sample {
  metric: MetricDef;
  /** Label values in the order of metric.labels. */
  values: readonly string[];
  value: number;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NEEDS_ESCAPE = /[\\\n"]/;

export function escapeLabel(v: string): string {
  // Almost no value needs escaping; testing once is far cheaper than three replaces (100,000
  // series have half a million label values).
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function header(m: MetricDef): string {
  return `# HELP ${m.name} ${escapeHelp(m.help)}\n# TYPE ${m.name} ${m.type}\n`;
}

/** Per metric, the text around its label values: `name{a="`, `",b="`, `"} ` (or `name `). */
const glue = new WeakMap<MetricDef, string[]>();

function glueOf(m: MetricDef): string[] {
  let g = glue.get(m);
  if (g === undefined) {
    g = m.labels.length === 0 ? [`${m.name} `] : m.labels.map((l, i) => `${i === 0 ? `${m.name}{` : '",'}${l}="`).concat('"} ');
    glue.set(m, g);
  }
  return g;
}

export function sampleLine(s: Sample): string {
  const g = glueOf(s.metric);
  let out = g[0]!;
  for (let i = 1; i < g.length; i++) out += escapeLabel(s.values[i - 1] ?? '') + g[i]!;
  return `${out}${formatValue(s.value)}\n`;
}

/**
 * Group samples into per-family text fragments (sample lines only, no headers). Lines are joined
 * once per family: appending string by string would leave V8 rope strings several times the size
 * of the text, held for as long as the fragment lives.
 */
export function fragments(samples: readonly Sample[]): Map<MetricDef, string> {
  const lines = new Map<MetricDef, string[]>();
  for (const s of samples) {
    const list = lines.get(s.metric);
    if (list) list.push(sampleLine(s));
    else lines.set(s.metric, [sampleLine(s)]);
  }
  const out = new Map<MetricDef, string>();
  for (const [m, l] of lines) out.set(m, l.join(''));
  return out;
}
