/**
 * Row isolation: one bad row (a field of the wrong type or format, an id that is not an id) is
 * skipped and recorded; the collector's other rows are still exported. Only an unusable response
 * (HTTP error, not JSON, broken envelope or pagination) fails a collector.
 */
import { FieldError } from '../errors.js';

export interface RowSkip {
  /** How it is counted: 'bad_id' or 'bad_field'. */
  reason: string;
  /** The JSON path of the bad field with array indexes elided (`positions.edges[].node.realisedPnl`). */
  field: string;
  /** Rows skipped for it (1 when absent). */
  rows?: number;
}

/** Distinct fields kept by name; a node cannot make the list longer than this. */
const MAX_FIELDS = 64;

export class RowSkips {
  /** One entry per reason and field, with its row count: bounded by the fields, not by the rows. */
  readonly list: RowSkip[] = [];
  /** Rows skipped in all. */
  total = 0;
  private readonly byKey = new Map<string, RowSkip>();

  /** Run `f` for one row; a FieldError skips the row (recorded here), anything else propagates. */
  row<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      this.total++;
      let field = err.field.replace(/\[\d+\]/g, '[]');
      if (this.byKey.size >= MAX_FIELDS && !this.byKey.has(`${err.reason}\u0000${field}`)) field = '(other fields)';
      const key = `${err.reason}\u0000${field}`;
      const known = this.byKey.get(key);
      if (known) known.rows = (known.rows ?? 1) + 1;
      else {
        const skip: RowSkip = { reason: err.reason, field };
        this.byKey.set(key, skip);
        this.list.push(skip);
      }
      return undefined;
    }
  }
}
