/** Enum-valued labels: one-hot series with a bounded set of unknown values. */

/** Unknown values an enum-valued label takes by name (per poll) before the rest share `other`. */
export const MAX_UNKNOWN_ENUM_VALUES = 8;
export const OTHER_ENUM_VALUE = 'other';

/**
 * Enum-valued label values: the known values, plus the first few unknown ones a poll sees (a
 * newer node's new state stays readable), then one `other` bucket, so a node that sends a new
 * string per row cannot create a series per row. The one mechanism for every label bucketed this
 * way; an instance lives for one poll (or one row) and is never kept across polls, so the buckets
 * follow what the node sends now and a value that once overflowed is named once room is back.
 */
export class EnumLabels {
  private readonly unknown = new Set<string>();
  private readonly knownSet: ReadonlySet<string>;

  constructor(
    readonly known: readonly string[],
    private readonly maxUnknown = MAX_UNKNOWN_ENUM_VALUES,
  ) {
    this.knownSet = new Set(known);
  }

  label(v: string): string {
    if (this.knownSet.has(v) || this.unknown.has(v)) return v;
    if (this.unknown.size < this.maxUnknown) {
      this.unknown.add(v);
      return v;
    }
    return OTHER_ENUM_VALUE;
  }
}

/** One 0/1 series per known state plus the current one if it is unknown (bucketed by `labels`): enums stay open. */
export function oneHot(known: readonly string[], current: string, labels?: EnumLabels): [string, number][] {
  const cur = labels ? labels.label(current) : current;
  const states = known.includes(cur) ? known : [...known, cur];
  return states.map((s) => [s, s === cur ? 1 : 0]);
}
