/**
 * Cursor pagination as the data node does it: `first`/`after` and `last`/`before`, `newestFirst`
 * (default true), default page 1000, maximum 5000, opaque base64 cursors.
 *
 * Rows are kept in ascending `seq` order; a cursor names a row's seq, so a cursor stays valid while
 * rows are appended or removed around it.
 */
import { DETAIL, GRPC, datanodeError, gatewayError, type ApiError } from './api-error.js';

export const DEFAULT_PAGE = 1000;
export const MAX_PAGE = 5000;

export interface PageRequest {
  first?: number;
  last?: number;
  after?: string;
  before?: string;
  newestFirst: boolean;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string;
  endCursor: string;
}

export interface Edge<T> {
  node: T;
  cursor: string;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

/** Fault switches that make the paginator misbehave the way broken nodes or proxies do. */
export interface PaginationFaults {
  cursorLoop?: boolean;
  stuckHasNext?: boolean;
  duplicateRows?: boolean;
}

// Six fixed bytes in front of the JSON make every cursor contain '/' and '+' (base64 of "???>>>"),
// so a client that forgets to percent-encode cursors breaks on the first page, not by luck later.
const CURSOR_PREFIX = Buffer.from('???>>>', 'latin1');

export function encodeCursor(seq: number, extra: Record<string, string> = {}): string {
  let json = JSON.stringify({ ...extra, seq: String(seq) });
  // Keep the byte length off a multiple of 3 so the cursor also ends in '='.
  if ((json.length + CURSOR_PREFIX.length) % 3 === 0) json += ' ';
  return Buffer.concat([CURSOR_PREFIX, Buffer.from(json, 'utf8')]).toString('base64');
}

export function decodeCursor(cursor: string): number | undefined {
  const raw = Buffer.from(cursor, 'base64');
  if (raw.length <= CURSOR_PREFIX.length || !raw.subarray(0, CURSOR_PREFIX.length).equals(CURSOR_PREFIX)) {
    return undefined;
  }
  try {
    const parsed = JSON.parse(raw.subarray(CURSOR_PREFIX.length).toString('utf8')) as { seq?: unknown };
    const seq = Number(parsed.seq);
    return Number.isSafeInteger(seq) ? seq : undefined;
  } catch {
    return undefined;
  }
}

function invalid(text: string): ApiError {
  return datanodeError(GRPC.InvalidArgument, DETAIL.invalidPagination, `invalid pagination: ${text}`);
}

const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parse a singular query parameter the way grpc-gateway does (given twice is an error). */
export function singleParam(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw gatewayError(GRPC.InvalidArgument, `too many values for field "${name}": ${all.join(', ')}`);
  return all[0];
}

function parseInt32Param(query: URLSearchParams, name: string): number | undefined {
  const raw = singleParam(query, name);
  if (raw === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(raw)) {
    throw gatewayError(GRPC.InvalidArgument, `parsing field "${name}": strconv.ParseInt: parsing "${raw}": invalid syntax`);
  }
  const n = Number(raw);
  if (n > 2 ** 31 - 1 || n < -(2 ** 31)) {
    throw gatewayError(GRPC.InvalidArgument, `parsing field "${name}": strconv.ParseInt: parsing "${raw}": value out of range`);
  }
  return n;
}

export function parsePageRequest(query: URLSearchParams): PageRequest {
  const first = parseInt32Param(query, 'pagination.first');
  const last = parseInt32Param(query, 'pagination.last');
  const after = singleParam(query, 'pagination.after');
  const before = singleParam(query, 'pagination.before');
  const nf = singleParam(query, 'pagination.newestFirst');
  let newestFirst = true;
  if (nf !== undefined) {
    if (BOOL_TRUE.has(nf)) newestFirst = true;
    else if (BOOL_FALSE.has(nf)) newestFirst = false;
    else throw gatewayError(GRPC.InvalidArgument, `parsing field "pagination.newestFirst": strconv.ParseBool: parsing "${nf}": invalid syntax`);
  }
  if (first !== undefined && last !== undefined) throw invalid('cannot provide both first and last');
  if (after !== undefined && before !== undefined) throw invalid('cannot provide both after and before');
  if (first !== undefined && before !== undefined) throw invalid('cannot provide both first and before');
  if (last !== undefined && after !== undefined) throw invalid('cannot provide both last and after');
  for (const [name, v] of [
    ['first', first],
    ['last', last],
  ] as const) {
    if (v !== undefined && (v < 1 || v > MAX_PAGE)) throw invalid(`${name} must be between 1 and ${MAX_PAGE}`);
  }
  for (const [name, c] of [
    ['after', after],
    ['before', before],
  ] as const) {
    if (c !== undefined && decodeCursor(c) === undefined) throw invalid(`could not decode ${name} cursor`);
  }
  const req: PageRequest = { newestFirst };
  if (first !== undefined) req.first = first;
  if (last !== undefined) req.last = last;
  if (after !== undefined) req.after = after;
  if (before !== undefined) req.before = before;
  return req;
}

/** Index of the first row whose seq is >= target, in rows sorted by ascending seq. */
function lowerBound<T extends { seq: number }>(rows: readonly T[], target: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as T).seq < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One page of `rows` (ascending by seq). The ordered view is descending when newestFirst, and
 * positions below are positions in that view.
 */
export function paginate<T extends { seq: number }, N>(
  rows: readonly T[],
  req: PageRequest,
  toNode: (row: T) => N,
  faults: PaginationFaults = {},
): Connection<N> {
  const n = rows.length;
  const rowAt = (pos: number): T => rows[req.newestFirst ? n - 1 - pos : pos] as T;
  // Position in the view of the first row strictly after `seq` / the first row at or after it.
  const viewAfter = (seq: number): number => {
    if (!req.newestFirst) {
      const i = lowerBound(rows, seq);
      return i < n && (rows[i] as T).seq === seq ? i + 1 : i;
    }
    // Descending view: "after" means smaller seq.
    const i = lowerBound(rows, seq); // rows[i..] have seq >= target
    return n - i;
  };
  const viewBefore = (seq: number): number => {
    // Number of view positions strictly before the cursor row.
    if (!req.newestFirst) return lowerBound(rows, seq);
    const i = lowerBound(rows, seq);
    const exact = i < n && (rows[i] as T).seq === seq;
    return n - (exact ? i + 1 : i);
  };

  let start: number;
  let end: number; // exclusive
  if (req.last !== undefined || req.before !== undefined) {
    end = req.before !== undefined ? viewBefore(decodeCursor(req.before) as number) : n;
    const size = req.last ?? DEFAULT_PAGE;
    start = Math.max(0, end - size);
  } else {
    start = req.after !== undefined ? viewAfter(decodeCursor(req.after) as number) : 0;
    const size = req.first ?? DEFAULT_PAGE;
    end = Math.min(n, start + size);
  }
  if (faults.duplicateRows && start > 0) start -= 1; // overlap: repeat the previous page's last row

  const edges: Edge<N>[] = [];
  for (let pos = start; pos < end; pos++) {
    const row = rowAt(pos);
    edges.push({ node: toNode(row), cursor: encodeCursor(row.seq) });
  }
  const pageInfo: PageInfo = {
    hasNextPage: end < n,
    hasPreviousPage: start > 0,
    startCursor: edges[0]?.cursor ?? '',
    endCursor: edges[edges.length - 1]?.cursor ?? '',
  };
  if (faults.stuckHasNext) pageInfo.hasNextPage = true;
  if (faults.cursorLoop && req.after !== undefined) {
    // A broken node that hands back the cursor it was given: a client following it loops forever.
    pageInfo.endCursor = req.after;
    pageInfo.hasNextPage = true;
  }
  return { edges, pageInfo };
}
