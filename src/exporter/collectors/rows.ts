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
}

export class RowSkips {
  readonly list: RowSkip[] = [];

  /** Run `f` for one row; a FieldError skips the row (recorded here), anything else propagates. */
  row<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      this.list.push({ reason: err.reason, field: err.field.replace(/\[\d+\]/g, '[]') });
      return undefined;
    }
  }
}
