import { CATALOGUE } from '../../src/exporter/fleet/metrics.js';
import type { SeriesStore } from '../../src/exporter/engine/store.js';
import { running } from './exporter.js';

/** Parse Prometheus text exposition into samples, for assertions. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function unescape(v: string): string {
  return v.replace(/\\(n|\\|")/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

export function parseExposition(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/s.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    for (let lm = re.exec(m[2] ?? ''); lm; lm = re.exec(m[2] ?? '')) labels[lm[1]!] = unescape(lm[2]!);
    const v = m[3]!;
    out.push({ name: m[1]!, labels, value: v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v) });
  }
  return out;
}

export class Scrape {
  readonly samples: ParsedSample[];
  constructor(
    readonly text: string,
    samples?: ParsedSample[],
  ) {
    this.samples = samples ?? parseExposition(text);
  }

  /** What a store holds now, without rendering it (text is empty). */
  static fromStore(store: SeriesStore): Scrape {
    return new Scrape(
      '',
      CATALOGUE.flatMap((m) => store.series(m).map((s) => ({ name: m.name, labels: { ...s.labels }, value: s.value }))),
    );
  }

  /** All samples of a metric whose labels include `labels`. */
  all(name: string, labels: Record<string, string> = {}): ParsedSample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** The single value of a metric with these labels, or undefined when absent. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const found = this.all(name, labels);
    if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} series`);
    return found[0]?.value;
  }

  has(name: string): boolean {
    return this.samples.some((s) => s.name === name);
  }
}

export async function scrape(url: string, init?: RequestInit): Promise<Scrape> {
  await running.get(url)?.exposition.flush();
  const res = await fetch(`${url}/metrics`, init);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return new Scrape(await res.text());
}
