/**
 * The exposition formats, written here: the Prometheus text format 0.0.4 and OpenMetrics 1.0.0
 * (https://prometheus.io/docs/instrumenting/exposition_formats/, the OpenMetrics specification).
 * Each family is written on its own, so that a family whose series did not change keeps its text;
 * the body is the families' texts in order. promtool and the Python client's strict OpenMetrics
 * parser read the result in the tests (integration/strict-parsers.test.ts).
 */
import { Registry } from 'prom-client';

export type Format = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<Format, string> = {
  text: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

export interface FamilyHead {
  name: string;
  help: string;
  /** counter, gauge, histogram, summary. */
  type: string;
}

export interface TextSample {
  /** A histogram's or summary's sample name (…_bucket, …_sum, …_count); the family's name without. */
  metricName?: string | undefined;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

const EOF = Buffer.from('# EOF\n');
const NEWLINE = Buffer.from('\n');

/**
 * One family: its HELP and TYPE lines and a line per sample, each line ending in a newline. In
 * OpenMetrics a counter family is named without `_total` and its samples with it.
 */
export function familyText(format: Format, head: FamilyHead, samples: Iterable<TextSample>): string {
  const counter = head.type === 'counter';
  const family = format === 'openmetrics' && counter ? head.name.replace(/_total$/, '') : head.name;
  const suffix = format === 'openmetrics' && counter ? '_total' : '';
  let out = `# HELP ${family} ${escape(head.help)}\n# TYPE ${family} ${head.type}\n`;
  for (const s of samples) {
    let labels = '';
    for (const name in s.labels) {
      const v = s.labels[name]!;
      labels += `${labels === '' ? '' : ','}${name}="${typeof v === 'string' ? escapeLabel(v) : String(v)}"`;
    }
    out += `${s.metricName ?? family}${suffix}${labels === '' ? '' : `{${labels}}`} ${value(s.value)}\n`;
  }
  return out;
}

/** The body: the families' texts in order, apart by a blank line in the text format; OpenMetrics ends with # EOF. */
export function joinFamilies(format: Format, texts: readonly Buffer[]): Buffer {
  if (format === 'openmetrics') return Buffer.concat([...texts, EOF]);
  return Buffer.concat(texts.flatMap((t, i) => (i === 0 ? [t] : [NEWLINE, t])));
}

/** A sample value: NaN and the infinities as both formats spell them, other numbers as JavaScript does (shortest round trip). */
function value(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** HELP text: backslash and line feed escaped. */
function escape(s: string): string {
  return /[\\\n]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n') : s;
}

/** A label value: backslash, line feed and double quote escaped. */
function escapeLabel(s: string): string {
  return /[\\\n"]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : s;
}
