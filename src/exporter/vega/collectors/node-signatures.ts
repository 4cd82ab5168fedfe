/** Signatures collected for listed resources (a withdrawal bundle, say), by kind; every page. */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { anyId, idListConfig } from '../../engine/fields.js';
import { enumValue, id as readId, obj, str } from '../convert.js';
import { KeptBytes, walkConnection } from '../paginate.js';
import type { Truncation } from '../../engine/types.js';
import { KIB, MAX_LIST_ROWS, type ListRowBound } from '../../http/bounds.js';
import type { Sample } from '../../engine/labels.js';
import { EnumLabels } from '../scale.js';
import { NODE_SIGNATURE_KIND } from '../../../shared/enums.js';
import { defineCollector, watchesListedIds } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const N = ['network'] as const;
/** One signature of a `signatures` page (vega/endpoints.ts): a signature is 88 base64 characters. */
const SIGNATURE_ROW: ListRowBound = { bytes: 2 * KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS };

const metric = metricsOf('node_signatures');

/** The families this collector writes, in exposition order. */
export const M = {
  signatures: metric('vega_node_signatures', [...N, 'resource_id', 'kind'], 'signatures')
    .source('GET /api/v2/node/signatures?id= (all pages)')
    .help('Validator signatures collected for a listed resource, by kind.'),
  signaturesCollected: metric('vega_node_signatures_collected', [...N, 'resource_id'], 'signatures')
    .source('GET /api/v2/node/signatures?id= (all pages)')
    .help('Validator signatures collected for a listed resource, all kinds (0 when none).'),
} as const satisfies Record<string, MetricDef>;

export class NodeSignaturesCollector implements Collector {
  constructor(private readonly ids: readonly string[]) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const samples: Sample[] = [];
    let pages = 0;
    let truncated: Truncation;
    const skips = new RowSkips();
    // Unknown kinds: a few by name, then `other` (a node cannot mint a series per signature).
    const kinds = new EnumLabels(NODE_SIGNATURE_KIND);
    for (const id of this.ids) {
      const byKind = new Map<string, number>();
      const sigs = new Set<string>();
      // The signatures seen are kept until the walk ends (to count each once): within a byte budget.
      const held = new KeptBytes('signatures');
      const r = await walkConnection(
        ctx,
        { path: '/api/v2/node/signatures', key: 'signatures', endpoint: 'signatures', row: SIGNATURE_ROW, query: [['id', id]] },
        (nodes, at) => {
          nodes.forEach((node, i) => {
            const row = skips.row(() => {
              const n = obj(node, at(i));
              readId(n.id, `${at(i)}.id`); // the resource id: a row that names none is not trusted
              return { sig: str(n.sig, `${at(i)}.sig`), kind: kinds.label(enumValue(n.kind, `${at(i)}.kind`)) };
            });
            if (!row || sigs.has(row.sig)) return; // bad, or repeated across pages
            held.keep(row.sig);
            sigs.add(row.sig);
            byKind.set(row.kind, (byKind.get(row.kind) ?? 0) + 1);
          });
        },
      );
      pages += r.pages;
      truncated ??= r.truncated;
      for (const [kind, n] of [...byKind].sort()) samples.push({ metric: M.signatures, values: [ctx.target, id, kind], value: n });
      samples.push({ metric: M.signaturesCollected, values: [ctx.target, id], value: sigs.size });
    }
    return { samples, pages, truncated, skipped: skips.list };
  }
}

export default defineCollector({
  name: 'node_signatures',
  scope: 'network',
  title: 'node_signatures collector (`GET /api/v2/node/signatures` for listed ids; every 60 s)',
  families: M,
  endpoints: { signatures: SIGNATURE_ROW },
  config: idListConfig('60s', anyId),
  ...watchesListedIds<{ enabled?: boolean | undefined; ids: string[] }>('node_signatures', 'ids', (c) => c.ids.length),
  create: (c) => new NodeSignaturesCollector(c.ids),
});
