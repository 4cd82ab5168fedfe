/**
 * Prometheus text exposition (version 0.0.4). Samples are rendered to text once, when a poll is
 * applied; a scrape only concatenates the pre-rendered fragments.
 */
import { createHash } from 'node:crypto';
import type { MetricDef } from './catalogue.js';

/** Default cap on a label value, in UTF-8 bytes (limits.label_value_bytes). */
export const DEFAULT_LABEL_VALUE_BYTES = 128;
let labelValueBytes = DEFAULT_LABEL_VALUE_BYTES;

/** Set the cap on label values for this thread (the exporter does, from limits.label_value_bytes). */
export function setLabelValueLimit(bytes: number): void {
  labelValueBytes = bytes;
}

/**
 * A label value within `max` UTF-8 bytes: a longer one is cut on a character boundary and suffixed
 * with `~` and 16 hex digits of its SHA-256, so two long values never share a series (and the
 * same long value always gives the same one).
 */
export function capLabel(v: string, max = labelValueBytes): string {
  if (v.length * 3 <= max || Buffer.byteLength(v, 'utf8') <= max) return v;
  const keep = max - 17;
  let cut = '';
  let bytes = 0;
  for (const ch of v) {
    const b = Buffer.byteLength(ch, 'utf8');
    if (bytes + b > keep) break;
    cut += ch;
    bytes += b;
  }
  return `${cut}~${createHash('sha256').update(v, 'utf8').digest('hex').slice(0, 16)}`;
}

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

/**
 * The label values as rendered, capped (capLabel). Samples in a row usually share value strings
 * (a market's id in its 45 series), so the last input and output per position are remembered:
 * a 40 KB id is then hashed once per market, not once per series.
 */
class Capper {
  private readonly last: (string | undefined)[] = [];
  private readonly out: string[] = [];
  value(i: number, v: string): string {
    if (this.last[i] === v) return this.out[i]!;
    const c = capLabel(v);
    this.last[i] = v;
    this.out[i] = c;
    return c;
  }
}

export function sampleLine(s: Sample, capper?: Capper): string {
  const g = glueOf(s.metric);
  let out = g[0]!;
  for (let i = 1; i < g.length; i++) {
    const v = s.values[i - 1] ?? '';
    out += escapeLabel(capper ? capper.value(i - 1, v) : capLabel(v)) + g[i]!;
  }
  return `${out}${formatValue(s.value)}\n`;
}

/**
 * Group samples into per-family text fragments (sample lines only, no headers). Lines are joined
 * once per family: appending string by string would leave V8 rope strings several times the size
 * of the text, held for as long as the fragment lives.
 */
export function fragments(samples: readonly Sample[]): Map<MetricDef, string> {
  const lines = new Map<MetricDef, string[]>();
  const capper = new Capper();
  for (const s of samples) {
    const list = lines.get(s.metric);
    if (list) list.push(sampleLine(s, capper));
    else lines.set(s.metric, [sampleLine(s, capper)]);
  }
  const out = new Map<MetricDef, string>();
  for (const [m, l] of lines) out.set(m, l.join(''));
  return out;
}
