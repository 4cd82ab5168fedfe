/**
 * GET /api/v2/networkhistory/segments → the node's latest network-history segment. New nodes
 * bootstrap from these segments; a node whose latest `toHeight` stops moving has stopped making
 * them. The lag behind the block height is a fleet signal (fleet/signals.ts), where the node's
 * statistics and this answer meet.
 */
import { simpleCollectorConfig } from '../../engine/fields.js';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { arr, i64, obj, str } from '../convert.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import { isNetworkHistoryDisabled } from '../answers.js';
import { RowSkips } from '../../engine/rows.js';
import { KIB, MAX_LIST_ROWS, type ListRowBound } from '../../http/bounds.js';
import type { Collector } from '../../engine/types.js';
import { Facts } from '../../engine/facts.js';
import { SEGMENT_HEIGHT } from '../facts.js';

const T = ['target'] as const;
const SEG = 'GET /api/v2/networkhistory/segments';
/** One segment in the unpaginated `networkhistory_segments` list (vega/endpoints.ts). */
const SEGMENT_ROW: ListRowBound = { bytes: KIB, tokens: 40, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS };

const metric = metricsOf('history_segments');

/** The families this collector writes, in exposition order. */
export const M = {
  segments: metric('vega_history_segments', T, 'segments').source(`${SEG} segments (rows)`).help('Network-history segments the data node lists.'),
  segmentLatestTo: metric('vega_history_segment_latest_to_height', T, 'blocks')
    .source(`${SEG} segments[].toHeight (highest)`)
    .help('Last block of the newest segment; absent when the node lists none.'),
  segmentLatestFrom: metric('vega_history_segment_latest_from_height', T, 'blocks')
    .source(`${SEG} fromHeight of the segment with the highest toHeight`)
    .help('First block of the newest segment; absent when the node lists none.'),
} as const satisfies Record<string, MetricDef>;

interface Segment {
  from: bigint;
  to: bigint;
}

/** The newest segment (highest toHeight), the row count and the rows left out. */
export function latestSegment(body: unknown): { latest: Segment | undefined; count: number; skips: RowSkips } {
  const rows = arr(obj(body, 'body').segments, 'segments');
  const skips = new RowSkips();
  let latest: Segment | undefined;
  rows.forEach((r, i) => {
    const seg = skips.row(() => {
      const o = obj(r, `segments[${i}]`);
      str(o.historySegmentId, `segments[${i}].historySegmentId`); // a row without its id is not a segment
      return { from: i64(o.fromHeight, `segments[${i}].fromHeight`), to: i64(o.toHeight, `segments[${i}].toHeight`) };
    });
    if (seg && (latest === undefined || seg.to > latest.to)) latest = seg;
  });
  return { latest, count: rows.length, skips };
}

export function segmentFacts(latest: Segment | undefined): Facts {
  return new Facts().with(SEGMENT_HEIGHT, latest?.to);
}

export function historySegmentsSamples(target: string, body: unknown): { samples: Sample[]; facts: Facts; skips: RowSkips } {
  const { latest, count, skips } = latestSegment(body);
  const samples: Sample[] = [{ metric: M.segments, values: [target], value: count }];
  if (latest) {
    samples.push({ metric: M.segmentLatestTo, values: [target], value: Number(latest.to) });
    samples.push({ metric: M.segmentLatestFrom, values: [target], value: Number(latest.from) });
  }
  return { samples, facts: segmentFacts(latest), skips };
}

export const historySegmentsCollector: Collector = {
  async collect({ target, client, signal }) {
    try {
      const res = await client.get('/api/v2/networkhistory/segments', [], 'networkhistory_segments', signal);
      const { samples, facts, skips } = historySegmentsSamples(target, res.json);
      return { samples, facts, skipped: skips.list };
    } catch (err) {
      // Network history switched off: no segments to report, not a failing collector
      // (VegaNetworkHistoryDown already says it; the lag then stays absent rather than growing).
      if (isNetworkHistoryDisabled(err)) return { samples: [] };
      throw err;
    }
  },
};

export default defineCollector({
  name: 'history_segments',
  scope: 'node',
  // Segments come every few hundred to thousand blocks (minutes): a poll a minute sees each one.
  title: 'history_segments collector (`GET /api/v2/networkhistory/segments`, every 60 s by default)',
  config: simpleCollectorConfig('60s', true),
  families: M,
  endpoints: { networkhistory_segments: SEGMENT_ROW },
  facts: [SEGMENT_HEIGHT],
  create: () => historySegmentsCollector,
});
