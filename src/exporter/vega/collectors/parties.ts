/**
 * Parties: the total (walking every page, paced by the client, on a slow schedule) and, for listed
 * party ids, whether each exists. A 404 for a listed id is "no", not a failure.
 */
import { z } from 'zod';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { anyId, timing } from '../../engine/fields.js';
import { id, obj } from '../convert.js';
import { UpstreamHttpError } from '../../errors.js';
import { walkConnection } from '../paginate.js';
import { KIB, MAX_LIST_ROWS, type ListRowBound } from '../../http/bounds.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const N = ['network'] as const;
/** One party of a `parties` page (vega/endpoints.ts). */
const PARTY_ROW: ListRowBound = { bytes: KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS };

const metric = metricsOf('parties');

/** The families this collector writes, in exposition order. */
export const M = {
  parties: metric('vega_parties', N, 'parties').source('GET /api/v2/parties (all pages)').help('Parties known to the data node.'),
  partyExists: metric('vega_party_exists', [...N, 'party_id'], '')
    .source('GET /api/v2/parties?partyId= (404 is 0)')
    .help('Whether a listed party exists (1) or not (0).'),
} as const satisfies Record<string, MetricDef>;

export class PartiesCollector implements Collector {
  constructor(private readonly partyIds: readonly string[]) {}

  async collect(ctx: CollectContext): Promise<CollectResult> {
    let count = 0;
    let lastPage = new Set<string>();
    const skips = new RowSkips();
    const r = await walkConnection(ctx, { path: '/api/v2/parties', key: 'parties', endpoint: 'parties', row: PARTY_ROW }, (nodes, at) => {
      const ids = new Set<string>();
      nodes.forEach((n, i) => {
        const party = skips.row(() => id(obj(n, at(i)).id, `${at(i)}.id`));
        if (party === undefined) return;
        if (!lastPage.has(party)) count++; // pages that overlap do not count a party twice
        ids.add(party);
      });
      if (ids.size > 0) lastPage = ids;
    });
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
    return { samples, pages: r.pages, truncated: r.truncated, skipped: skips.list };
  }
}

export default defineCollector({
  name: 'parties',
  scope: 'network',
  title: 'parties collector (`GET /api/v2/parties`; off by default, every 10 minutes when on)',
  families: M,
  endpoints: { parties: PARTY_ROW },
  config: z.strictObject({ enabled: z.boolean().default(false), ...timing('10m'), party_ids: z.array(anyId).default([]) }).prefault({}),
  create: (c) => new PartiesCollector(c.party_ids),
});
