/** The history_segments and datanode_info collectors beyond the golden fixtures: order, bad rows, disabled history. */
import { describe, expect, it } from 'vitest';
import { historySegmentsCollector, historySegmentsSamples } from '../../../../src/exporter/vega/collectors/history-segments.js';
import { datanodeInfoFacts } from '../../../../src/exporter/vega/collectors/datanode-info.js';
import { DATANODE_VERSION, SEGMENT_HEIGHT } from '../../../../src/exporter/vega/facts.js';
import type { CollectContext } from '../../../../src/exporter/engine/types.js';
import { UpstreamHttpError } from '../../../../src/exporter/errors.js';

const seg = (from: string, to: string, id = 'QmA'): Record<string, unknown> => ({
  fromHeight: from,
  toHeight: to,
  historySegmentId: id,
  previousHistorySegmentId: '',
  databaseVersion: '78',
  chainId: 'c',
});
const value = (r: ReturnType<typeof historySegmentsSamples>, name: string): number | undefined => r.samples.find((s) => s.metric.name === name)?.value;

function failing(err: Error): CollectContext {
  return {
    target: 't',
    client: {
      get: async () => {
        throw err;
      },
    },
    signal: new AbortController().signal,
    pageSize: 10,
    maxPages: 1,
  };
}

describe('history_segments', () => {
  it('the newest segment is the highest toHeight, whatever the order; a bad row is skipped, not fatal', () => {
    const r = historySegmentsSamples('t', { segments: [seg('1', '1000'), seg('2001', '3000'), { ...seg('x', '9999'), fromHeight: 7 }, seg('1001', '2000')] });
    expect(value(r, 'vega_history_segments')).toBe(4);
    expect(value(r, 'vega_history_segment_latest_to_height')).toBe(3000);
    expect(value(r, 'vega_history_segment_latest_from_height')).toBe(2001);
    expect(r.facts.get(SEGMENT_HEIGHT)).toBe(3000n);
    expect(r.skips.list).toEqual([{ reason: 'bad_field', field: 'segments[].fromHeight' }]);
  });

  it('no segments: a count of 0, no heights, no fact (so no lag)', () => {
    const r = historySegmentsSamples('t', { segments: [] });
    expect(r.samples.map((s) => [s.metric.name, s.value])).toEqual([['vega_history_segments', 0]]);
    expect(r.facts.size).toBe(0);
  });

  it('network history switched off is no segments, not a failure; other errors fail the poll', async () => {
    const off = new UpstreamHttpError(500, 'networkhistory_segments', 13, 10010, 'network history service not initialised', undefined);
    await expect(historySegmentsCollector.collect(failing(off))).resolves.toEqual({ samples: [] });
    const other = new UpstreamHttpError(503, 'networkhistory_segments', undefined, undefined, undefined, undefined);
    await expect(historySegmentsCollector.collect(failing(other))).rejects.toBe(other);
  });
});

describe('datanode_info', () => {
  it('the fact is the data node version as sent', () => {
    const facts = datanodeInfoFacts({ version: 'v0.79.0', commitHash: 'abc' });
    expect(facts.get(DATANODE_VERSION)).toBe('v0.79.0');
    expect(facts.size).toBe(1);
  });
});
