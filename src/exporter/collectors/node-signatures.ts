/** Signatures collected for listed resources (a withdrawal bundle, say), by kind; every page. */
import { M } from '../catalogue.js';
import { arr, enumValue, obj, str } from '../convert.js';
import { walkPages, type Truncation } from '../http/paginate.js';
import type { Sample } from '../render.js';
import type { CollectContext, CollectResult, Collector } from './types.js';

export class NodeSignaturesCollector implements Collector {
  readonly name = 'node_signatures' as const;

  constructor(private readonly ids: readonly string[]) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const samples: Sample[] = [];
    let pages = 0;
    let truncated: Truncation;
    for (const id of this.ids) {
      const byKind = new Map<string, number>();
      const sigs = new Set<string>();
      const r = await walkPages(
        async (after) => {
          const q: [string, string][] = [['id', id], ['pagination.first', String(ctx.pageSize)], ['pagination.newestFirst', 'false']];
          if (after !== undefined) q.push(['pagination.after', after]);
          const res = await ctx.client.get('/api/v2/node/signatures', q, 'signatures', ctx.signal);
          const conn = obj(obj(res.json, 'body').signatures, 'signatures');
          const edges = arr(conn.edges, 'signatures.edges');
          edges.forEach((e, i) => {
            const n = obj(obj(e, `signatures.edges[${i}]`).node, `signatures.edges[${i}].node`);
            const sig = str(n.sig, `signatures.edges[${i}].node.sig`);
            if (sigs.has(sig)) return; // repeated across pages
            sigs.add(sig);
            const kind = enumValue(n.kind, `signatures.edges[${i}].node.kind`);
            byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
          });
          const info = obj(conn.pageInfo, 'signatures.pageInfo');
          return { edges: edges as never, pageInfo: { hasNextPage: info.hasNextPage === true, endCursor: str(info.endCursor, 'signatures.pageInfo.endCursor') } };
        },
        () => {},
        { maxPages: ctx.maxPages },
      );
      pages += r.pages;
      truncated ??= r.truncated;
      for (const [kind, n] of [...byKind].sort()) samples.push({ metric: M.signatures, values: [ctx.target, id, kind], value: n });
      samples.push({ metric: M.signaturesCollected, values: [ctx.target, id], value: sigs.size });
    }
    return { samples, pages, truncated };
  }
}
