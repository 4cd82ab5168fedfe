/**
 * Parties: the total (walking every page, paced by the client, on a slow schedule) and, for listed
 * party ids, whether each exists. A 404 for a listed id is "no", not a failure.
 */
import { M } from '../catalogue.js';
import { arr, obj, str } from '../convert.js';
import { UpstreamHttpError } from '../errors.js';
import { walkPages } from '../http/paginate.js';
import type { Sample } from '../render.js';
import type { CollectContext, CollectResult, Collector } from './types.js';

export class PartiesCollector implements Collector {
  readonly name = 'parties' as const;

  constructor(private readonly partyIds: readonly string[]) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    let count = 0;
    let lastPage = new Set<string>();
    const r = await walkPages(
      async (after) => {
        const q: [string, string][] = [['pagination.first', String(ctx.pageSize)], ['pagination.newestFirst', 'false']];
        if (after !== undefined) q.push(['pagination.after', after]);
        const res = await ctx.client.get('/api/v2/parties', q, 'parties', ctx.signal);
        const conn = obj(obj(res.json, 'body').parties, 'parties');
        const edges = arr(conn.edges, 'parties.edges');
        const ids = new Set<string>();
        edges.forEach((e, i) => {
          const id = str(obj(obj(e, `parties.edges[${i}]`).node, `parties.edges[${i}].node`).id, `parties.edges[${i}].node.id`);
          if (!lastPage.has(id)) count++; // pages that overlap do not count a party twice
          ids.add(id);
        });
        if (ids.size > 0) lastPage = ids;
        const info = obj(conn.pageInfo, 'parties.pageInfo');
        return { edges: edges as never, pageInfo: { hasNextPage: info.hasNextPage === true, endCursor: str(info.endCursor, 'parties.pageInfo.endCursor') } };
      },
      () => {},
      { maxPages: ctx.maxPages },
    );
    const samples: Sample[] = [{ metric: M.parties, values: [ctx.target], value: count }];
    for (const id of this.partyIds) {
      let exists = 1;
      try {
        await ctx.client.get('/api/v2/parties', [['partyId', id]], 'parties', ctx.signal);
      } catch (err) {
        if (!(err instanceof UpstreamHttpError && err.status === 404)) throw err;
        exists = 0;
      }
      samples.push({ metric: M.partyExists, values: [ctx.target, id], value: exists });
    }
    return { samples, pages: r.pages, truncated: r.truncated };
  }
}
