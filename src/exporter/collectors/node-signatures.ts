/** Signatures collected for listed resources (a withdrawal bundle, say), by kind; every page. */
import { M } from '../exposition/catalogue.js';
import { enumValue, obj, str } from '../upstream/convert.js';
import { walkConnection, type Truncation } from '../upstream/paginate.js';
import type { Sample } from '../exposition/render.js';
import type { CollectContext, CollectResult, Collector } from './types.js';

export class NodeSignaturesCollector implements Collector {
  readonly name = 'node_signatures' as const;
  readonly scope = 'network' as const;

  constructor(private readonly ids: readonly string[]) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const samples: Sample[] = [];
    let pages = 0;
    let truncated: Truncation;
    for (const id of this.ids) {
      const byKind = new Map<string, number>();
      const sigs = new Set<string>();
      const r = await walkConnection(ctx, { path: '/api/v2/node/signatures', key: 'signatures', endpoint: 'signatures', query: [['id', id]] }, (nodes, at) => {
        nodes.forEach((node, i) => {
          const n = obj(node, at(i));
          const sig = str(n.sig, `${at(i)}.sig`);
          if (sigs.has(sig)) return; // repeated across pages
          sigs.add(sig);
          const kind = enumValue(n.kind, `${at(i)}.kind`);
          byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
        });
      });
      pages += r.pages;
      truncated ??= r.truncated;
      for (const [kind, n] of [...byKind].sort()) samples.push({ metric: M.signatures, values: [ctx.target, id, kind], value: n });
      samples.push({ metric: M.signaturesCollected, values: [ctx.target, id], value: sigs.size });
    }
    return { samples, pages, truncated };
  }
}
