/**
 * Follow a data-node list to its end: first/after paging, a page cap, loop detection (a cursor seen
 * twice), and an honest report of whether the walk was truncated.
 */
import { arr, obj, str } from './convert.js';
import { ExporterError, FieldError } from '../errors.js';
import { pageRows, type ListRowBound } from '../http/bounds.js';
import type { Truncation } from '../engine/types.js';

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string;
}

export interface Page {
  edges: { node: unknown; cursor?: unknown }[];
  pageInfo: PageInfo;
}

/** `row_cap`: the caller stopped the walk, its rows beyond what it exports. */

/** What a page handler returns: `false` ends the walk there (reported as `row_cap`). */
export type PageResult = void | boolean | Promise<void | boolean>;

export interface WalkResult {
  pages: number;
  truncated: Truncation;
  /** The last non-empty end cursor seen (resume point), or the starting cursor. */
  lastCursor: string | undefined;
}

export async function walkPages(
  fetchPage: (after: string | undefined) => Promise<Page>,
  onPage: (page: Page) => PageResult,
  opts: { maxPages: number; startAfter?: string },
): Promise<WalkResult> {
  const seen = new Set<string>();
  let after = opts.startAfter;
  let pages = 0;
  for (;;) {
    if (pages >= opts.maxPages) return { pages, truncated: 'page_cap', lastCursor: after };
    if (after !== undefined) {
      if (seen.has(after)) return { pages, truncated: 'cursor_loop', lastCursor: after };
      seen.add(after);
    }
    const page = await fetchPage(after);
    pages++;
    const more = await onPage(page);
    const next = page.pageInfo.endCursor;
    // An empty page, or one without a cursor to follow, ends the walk whatever hasNextPage says.
    if (!page.pageInfo.hasNextPage || page.edges.length === 0 || next === '') {
      return { pages, truncated: undefined, lastCursor: next !== '' ? next : after };
    }
    if (more === false) return { pages, truncated: 'row_cap', lastCursor: next };
    after = next;
  }
}

/** What a collector needs to walk one data-node list. */
export interface ConnectionWalk {
  client: { get(path: string, query: readonly (readonly [string, string])[], endpoint: string, signal: AbortSignal): Promise<{ json: unknown }> };
  signal: AbortSignal;
  pageSize: number;
  maxPages: number;
}

/**
 * Walk `GET path` oldest-first to the end: `{<key>: {edges:[{node}], pageInfo}}` pages, each page's
 * nodes handed to `onNodes` as it arrives, with the JSON path of each (for error messages); it may
 * end the walk by returning `false`.
 */
export async function walkConnection(
  w: ConnectionWalk,
  req: { path: string; key: string; endpoint: string; row: ListRowBound; query?: readonly [string, string][]; startAfter?: string },
  onNodes: (nodes: unknown[], path: (i: number) => string) => PageResult,
): Promise<WalkResult> {
  const { key } = req;
  // Never more rows a page than the endpoint's bound is sized for (http/bounds.ts).
  const first = String(pageRows(req.row, w.pageSize));
  let nodes: unknown[] = [];
  return walkPages(
    async (after) => {
      const q: [string, string][] = [...(req.query ?? []), ['pagination.first', first], ['pagination.newestFirst', 'false']];
      if (after !== undefined) q.push(['pagination.after', after]);
      const res = await w.client.get(req.path, q, req.endpoint, w.signal);
      const raw = obj(res.json, 'body')[key];
      if (raw === null) return { edges: [], pageInfo: { hasNextPage: false, endCursor: '' } }; // unset message: nothing listed
      const conn = obj(raw, key);
      const edges = arr(conn.edges, `${key}.edges`);
      nodes = edges.map((e, i) => obj(e, `${key}.edges[${i}]`).node);
      const info = obj(conn.pageInfo, `${key}.pageInfo`);
      if (typeof info.hasNextPage !== 'boolean') throw new FieldError(`${key}.pageInfo.hasNextPage`, 'a boolean', info.hasNextPage);
      return { edges: edges as Page['edges'], pageInfo: { hasNextPage: info.hasNextPage, endCursor: str(info.endCursor, `${key}.pageInfo.endCursor`) } };
    },
    () => {
      const page = nodes;
      nodes = [];
      return onNodes(page, (i) => `${key}.edges[${i}].node`);
    },
    { maxPages: w.maxPages, ...(req.startAfter !== undefined ? { startAfter: req.startAfter } : {}) },
  );
}

/**
 * What one walk may keep across its pages (ids and strings held until it ends: the keys of rows
 * seen, the rows' label values), in UTF-16 code units of the strings held. Every page is bounded on
 * its own; without this a walk of max_pages pages could hold them all.
 */
export const WALK_KEPT_BYTES = 8 * 1024 * 1024;

/** A walk's budget for what it keeps; beyond it the walk fails (UPSTREAM_LIST_TOO_LARGE). */
export class KeptBytes {
  total = 0;

  constructor(
    private readonly endpoint: string,
    readonly limit = WALK_KEPT_BYTES,
  ) {}

  /** Count strings held until the walk ends; past the budget the collector fails with one log line. */
  keep(...strings: string[]): void {
    for (const s of strings) this.total += s.length;
    this.check();
  }

  /** Count a parsed row held until the walk ends: its strings' lengths (its keys are shared with every other row). */
  keepRow(row: unknown): void {
    this.total += stringLength(row);
    this.check();
  }

  private check(): void {
    if (this.total > this.limit) {
      throw new ExporterError(
        'UPSTREAM_LIST_TOO_LARGE',
        `${this.endpoint}: the list's rows hold more than ${this.limit} bytes of ids and strings, beyond what a walk keeps`,
      );
    }
  }
}

/** The lengths of the strings in a parsed JSON value (its nesting is bounded by the transport's scan). */
function stringLength(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) n += stringLength(x);
  return n;
}
