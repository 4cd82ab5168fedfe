/**
 * What collectors produce (samples) and how their label values are bounded before they reach the
 * registry. prom-client escapes label values when it renders; capping and control characters are ours.
 */
import { createHash } from 'node:crypto';
import type { MetricDef } from './metric.js';

export interface Sample {
  metric: MetricDef;
  /** Label values in the order of metric.labels. */
  values: readonly string[];
  value: number;
}

/** Default cap on a label value, in UTF-8 bytes (limits.label_value_bytes). */
export const DEFAULT_LABEL_VALUE_BYTES = 128;

/** How a capped value ends: `~` and 16 hex digits. */
const HASH_DIGITS = 16;
const SUFFIX_BYTES = HASH_DIGITS + 1;

/** Whether `v` ends as a capped value does (`~` and 16 lower-case hex digits). */
function looksCapped(v: string): boolean {
  if (v.length < SUFFIX_BYTES || v.charCodeAt(v.length - SUFFIX_BYTES) !== 0x7e) return false;
  for (let i = v.length - HASH_DIGITS; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * Control characters a label value may not carry as they are: C0 but tab and newline (which the
 * formats escape or allow), DEL and C1. A terminal shows NUL or ESC from a market name as commands.
 */
const isControl = (c: number): boolean => (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f);

function hasControl(v: string): boolean {
  for (let i = 0; i < v.length; i++) if (isControl(v.charCodeAt(i))) return true;
  return false;
}

/**
 * A label value within `max` UTF-8 bytes, without control characters: each is replaced by U+FFFD
 * and the value suffixed as a long one is (below), so two values differing only there stay apart.
 * A longer value is cut on a character boundary and suffixed with `~` and 16 hex digits of its SHA-256, so two long values never share a series (and the
 * same long value always gives the same one). A value that already ends in that form is hashed the
 * same way whatever its length: a value exported as sent never ends in it, so a node cannot send
 * an id equal to another id's capped form and have the two share a series.
 */
export function capLabel(v: string, max = DEFAULT_LABEL_VALUE_BYTES): string {
  const control = hasControl(v);
  if (!control && (v.length * 3 <= max || Buffer.byteLength(v, 'utf8') <= max) && !looksCapped(v)) return v;
  const shown = control ? Array.from(v, (ch) => (isControl(ch.charCodeAt(0)) ? '\ufffd' : ch)).join('') : v;
  // One pass over code points and one slice: a value built a character at a time costs a string
  // node per character, kilobytes per label and seconds per poll for a network of long ids.
  const keep = max - SUFFIX_BYTES;
  let end = 0;
  let bytes = 0;
  while (end < shown.length) {
    const c = shown.codePointAt(end)!;
    const b = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; // a lone surrogate: 3, as UTF-8 encodes it (U+FFFD)
    if (bytes + b > keep) break;
    bytes += b;
    end += c > 0xffff ? 2 : 1;
  }
  return `${shown.slice(0, end)}~${createHash('sha256').update(v, 'utf8').digest('hex').slice(0, HASH_DIGITS)}`;
}

/** A series as prom-client reads it from a metric's get(). */
export interface SeriesValue {
  labels: Record<string, string>;
  value: number;
}

/**
 * Samples grouped by family, as prom-client values with capped label values. Samples in a row
 * usually share values (a market's id in its 45 series), so the last input and output per label
 * position are remembered: a long id is hashed once per market, not once per series. Capping is
 * the one way two distinct samples could come to share a series (two long values whose hashes
 * collide, which a node could search for): a sample with a capped value whose series is already
 * there is left out, so no series is ever rendered twice.
 *
 * `previous` (the same source's last series) is reused where a sample has the labels of the series
 * at its place there: the series itself when its value is the same too, else its labels. A poll
 * usually repeats the last one's series, so it then keeps long-lived objects rather than replacing
 * them, which would leave the collector a heap of them to clean up on every poll.
 */
export function toSeries(
  samples: readonly Sample[],
  maxLabelBytes = DEFAULT_LABEL_VALUE_BYTES,
  previous?: ReadonlyMap<MetricDef, readonly SeriesValue[]>,
): Map<MetricDef, SeriesValue[]> {
  const b = new SeriesBuilder(maxLabelBytes, previous);
  b.add(samples, 0, samples.length);
  return b.finish();
}

/** toSeries a slice of the samples at a time (SeriesStore.setInTurns). */
export class SeriesBuilder {
  private readonly out = new Map<MetricDef, SeriesValue[]>();
  private readonly last: (string | undefined)[] = [];
  private readonly capped: string[] = [];
  private readonly cappedSeries = new Set<string>();

  constructor(
    private readonly maxLabelBytes: number,
    private readonly previous: ReadonlyMap<MetricDef, readonly SeriesValue[]> | undefined,
  ) {}

  /** Take samples[from, to). */
  add(samples: readonly Sample[], from: number, to: number): void {
    const { out, last, capped, cappedSeries, maxLabelBytes, previous } = this;
    for (let k = from; k < to; k++) {
      const s = samples[k]!;
      const names = s.metric.labels;
      let cut = false;
      for (let i = 0; i < names.length; i++) {
        const v = s.values[i] ?? '';
        if (last[i] !== v) {
          last[i] = v;
          capped[i] = capLabel(v, maxLabelBytes);
        }
        if (capped[i] !== v) cut = true;
      }
      if (cut) {
        const key = JSON.stringify([s.metric.name, ...capped.slice(0, names.length)]);
        if (cappedSeries.has(key)) continue;
        cappedSeries.add(key);
      }
      let list = out.get(s.metric);
      if (!list) out.set(s.metric, (list = []));
      const before = previous?.get(s.metric)?.[list.length];
      if (before && names.every((name, i) => before.labels[name] === capped[i])) {
        list.push(Object.is(before.value, s.value) ? before : { labels: before.labels, value: s.value });
        continue;
      }
      const labels: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) labels[names[i]!] = capped[i]!;
      list.push({ labels, value: s.value });
    }
  }

  /** The series by family; a family whose series are all the previous ones is the previous list itself. */
  finish(): Map<MetricDef, SeriesValue[]> {
    const { out, previous } = this;
    if (previous) {
      for (const [m, list] of out) {
        const before = previous.get(m);
        if (before?.length === list.length && list.every((v, i) => v === before[i])) out.set(m, before as SeriesValue[]);
      }
    }
    return out;
  }
}
