/**
 * Follow a data-node list to its end: first/after paging, a page cap, loop detection (a cursor seen
 * twice), and an honest report of whether the walk was truncated.
 */

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string;
}

export interface Page {
  edges: { node: unknown; cursor?: unknown }[];
  pageInfo: PageInfo;
}

export type Truncation = 'page_cap' | 'cursor_loop' | undefined;

export interface WalkResult {
  pages: number;
  truncated: Truncation;
  /** The last non-empty end cursor seen (resume point), or the starting cursor. */
  lastCursor: string | undefined;
}

export async function walkPages(
  fetchPage: (after: string | undefined) => Promise<Page>,
  onPage: (page: Page) => void,
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
    onPage(page);
    const next = page.pageInfo.endCursor;
    // An empty page, or one without a cursor to follow, ends the walk whatever hasNextPage says.
    if (!page.pageInfo.hasNextPage || page.edges.length === 0 || next === '') {
      return { pages, truncated: undefined, lastCursor: next !== '' ? next : after };
    }
    after = next;
  }
}
