/**
 * Every fault the simulator offers, against the real exporter over HTTP. For each: the process
 * keeps serving, /metrics stays valid (promtool), the affected collector reports what it should
 * and the others are untouched, memory stays bounded, and after the fault clears the collector
 * recovers on its next poll. docs/reliability.md is the readable form of this table.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '@datanode-exporter/simulator/rng';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { scrape, type Scrape } from '../helpers/expo.js';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';
import { ManualClock } from '../helpers/sim.js';

const NET = 'vega-mainnet-0011';
const T = { target: 'node1' };
let sim: Simulator;
let ex: RunningExporter;
const clock = new ManualClock();

beforeAll(async () => {
  sim = await startSimulator({ seed: 95, now: clock.now, rotations: 3000 });
  ex = await startExporter(
    sim.url,
    {
      // Pacing is not what this matrix checks (the rate-limit rows below keep the defaults): at the
      // default 10 requests a second each full poll here waited about a second for tokens.
      http: { max_response_bytes: 1_000_000, page_size: 500, max_pages: 20, retries: 1, requests_per_second: 1000, burst: 1000 },
      collectors: {
        statistics: { interval: '1m', timeout: '2s' },
        // The 429 row waits out the node's one-second Retry-After inside this deadline: room for a busy machine.
        network_history: { interval: '1m', timeout: '5s' },
        consistency: { interval: '1m' },
        markets: { interval: '1m', timeout: '2s' },
        key_rotations: { interval: '1m', timeout: '5s' },
      },
    },
    'warn',
  );
});
afterAll(async () => {
  await ex.stop();
  await sim.close();
});

function promtoolClean(text: string): void {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is required (apt-get install prometheus): ${r.error.message}`);
  expect(`${r.stdout}${r.stderr}`).toBe('');
}

const success = (m: Scrape, c: string): number | undefined =>
  ['statistics', 'network_history', 'consistency'].includes(c)
    ? m.value('datanode_exporter_collector_success', { ...T, collector: c })
    : m.value('datanode_exporter_network_collector_success', { network: NET, collector: c });

interface Row {
  fault: string;
  patch: object;
  collector: string;
  /** 1: the poll succeeds (the fault is data, not failure); 0: the collector reports failure. */
  expect: 0 | 1;
  check?: (m: Scrape) => void;
  code?: string;
  /** Upstream changes made with the fault, so the poll has something to walk. */
  setup?: () => void;
}

/** New key rotations upstream: the next key-rotation poll has rows to page through. */
function newRotations(n: number): void {
  for (let i = 0; i < n; i++) sim.net.rotate(i % sim.net.validators.length, sim.net.height + 1 + i, new Rng(1000 + sim.net.rotations.length));
}

export const ROWS: Row[] = [
  { fault: 'latency below the poll timeout', patch: { endpoints: { statistics: { latencyMs: 300 } } }, collector: 'statistics', expect: 1 },
  {
    fault: 'latency beyond the poll timeout',
    patch: { endpoints: { statistics: { latencyMs: 4000 } } },
    collector: 'statistics',
    expect: 0,
    code: 'UPSTREAM_TIMEOUT',
  },
  { fault: 'HTTP 500 (database error body)', patch: { endpoints: { statistics: { error: 500 } } }, collector: 'statistics', expect: 0, code: 'UPSTREAM_HTTP' },
  { fault: 'HTTP 503 (core unreachable)', patch: { endpoints: { statistics: { error: 503 } } }, collector: 'statistics', expect: 0, code: 'UPSTREAM_HTTP' },
  { fault: 'HTTP 504 (core timeout)', patch: { endpoints: { statistics: { error: 504 } } }, collector: 'statistics', expect: 0, code: 'UPSTREAM_HTTP' },
  {
    fault: 'HTTP 429 (rate limited)',
    patch: { endpoints: { networkhistory: { error: 429 } } },
    collector: 'network_history',
    expect: 0,
    code: 'UPSTREAM_RATE_LIMITED',
  },
  { fault: 'malformed JSON', patch: { endpoints: { statistics: { malformedJson: true } } }, collector: 'statistics', expect: 0, code: 'UPSTREAM_BAD_JSON' },
  { fault: 'truncated body', patch: { endpoints: { statistics: { truncatedBody: true } } }, collector: 'statistics', expect: 0, code: 'UPSTREAM_CONNECT' },
  {
    fault: 'body trickling slower than the deadline',
    patch: { endpoints: { statistics: { slowBody: { chunkBytes: 1, intervalMs: 200 } } } },
    collector: 'statistics',
    expect: 0,
    code: 'UPSTREAM_TIMEOUT',
  },
  {
    fault: 'oversized body (50 MB against a 1 MB cap)',
    patch: { endpoints: { markets: { oversizedBody: 50_000_000 } } },
    collector: 'markets',
    expect: 0,
    code: 'UPSTREAM_BODY_TOO_LARGE',
  },
  {
    fault: 'wrong types in fields',
    patch: { endpoints: { statistics: { wrongTypes: true } } },
    collector: 'statistics',
    expect: 0,
    code: 'UPSTREAM_BAD_FIELD',
  },
  // Paged, so the envelope is broken too (core's unpaged list only has bad rows, each skipped).
  {
    fault: 'wrong types in market fields',
    patch: { marketsCore: false, endpoints: { markets: { wrongTypes: true } } },
    collector: 'markets',
    expect: 0,
    code: 'UPSTREAM_BAD_FIELD',
  },
  {
    fault: 'unknown enum values',
    patch: { endpoints: { '*': { unknownEnums: true } } },
    collector: 'statistics',
    expect: 1,
    check: (m) => expect(m.value('vega_chain_status', { ...T, status: '99' })).toBe(1),
  },
  { fault: 'chain halt', patch: { halted: true }, collector: 'statistics', expect: 1 },
  {
    fault: 'data-node lag',
    patch: { datanodeLagBlocks: 300 },
    collector: 'statistics',
    expect: 1,
    check: (m) => expect(m.value('vega_datanode_lag_blocks', T)).toBe(300),
  },
  { fault: 'consensus peers zero', patch: { peersZero: true }, collector: 'statistics', expect: 1, check: (m) => expect(m.value('vega_peers', T)).toBe(0) },
  {
    fault: 'network history disabled',
    patch: { networkHistoryDisabled: true },
    collector: 'network_history',
    expect: 1,
    check: (m) => expect(m.value('vega_network_history_up', T)).toBe(0),
  },
  {
    fault: 'freshness headers missing',
    patch: { stripFreshnessHeaders: true },
    collector: 'statistics',
    expect: 1,
    check: (m) => expect(m.has('vega_datanode_block_height')).toBe(false),
  },
  {
    fault: 'chain replaying (unset sentinels)',
    patch: { replaying: true },
    collector: 'statistics',
    expect: 1,
    check: (m) => expect(m.has('vega_genesis_timestamp_seconds')).toBe(false),
  },
  { fault: '/markets answers 404 (a data node)', patch: { marketsCore: false }, collector: 'markets', expect: 1 },
  { fault: 'core /markets served', patch: { marketsCore: true }, collector: 'markets', expect: 1 },
  {
    fault: 'one market row with an id that is not an id',
    patch: { endpoints: { markets: { badRow: true } } },
    collector: 'markets',
    expect: 1,
    check: (m) => {
      expect(
        m.value('datanode_exporter_network_collector_rows_skipped_total', { network: NET, collector: 'markets', reason: 'bad_id' }),
      ).toBeGreaterThanOrEqual(1);
      expect(m.all('vega_market_info').length).toBe(sim.net.markets.length - 1); // the others are exported
    },
  },
  {
    fault: 'non-finite risk parameters',
    patch: { nonFiniteDoubles: true },
    collector: 'markets',
    expect: 1,
    check: (m) => {
      expect(m.all('vega_market_info').length).toBe(sim.net.markets.length); // no market lost
      expect(m.all('vega_market_risk_parameter').length).toBeLessThan(5 * sim.net.markets.length); // the NaN ones are absent
    },
  },
  {
    fault: 'pagination: cursor loop',
    patch: { endpoints: { rotations: { pagination: { cursorLoop: true } } } },
    setup: () => newRotations(3),
    collector: 'key_rotations',
    expect: 1,
    check: (m) => expect(m.value('datanode_exporter_network_pagination_truncated', { network: NET, collector: 'key_rotations' })).toBe(1),
  },
  {
    fault: 'pagination: hasNextPage stuck true',
    patch: { endpoints: { rotations: { pagination: { stuckHasNext: true } } } },
    setup: () => newRotations(700),
    collector: 'key_rotations',
    expect: 1,
    check: (m) => {
      expect(m.all('vega_key_rotations_total').reduce((a, x) => a + x.value, 0)).toBe(sim.net.rotations.length);
      expect(m.value('datanode_exporter_network_pagination_truncated', { network: NET, collector: 'key_rotations' })).toBe(0);
    },
  },
  {
    fault: 'pagination: duplicate rows',
    patch: { endpoints: { rotations: { pagination: { duplicateRows: true } } } },
    setup: () => newRotations(1200),
    collector: 'key_rotations',
    expect: 1,
    check: (m) => expect(m.all('vega_key_rotations_total').reduce((a, x) => a + x.value, 0)).toBe(sim.net.rotations.length),
  },
];

describe('fault matrix', () => {
  it.each(ROWS.map((r) => [r.fault, r] as const))('%s', async (_f, row) => {
    sim.clearFaults();
    await ex.poll();
    const heapBefore = process.memoryUsage().heapUsed;
    sim.patchFaults(row.patch);
    row.setup?.();
    await ex.poll();
    const m = await scrape(ex.url); // the process is up and answering
    promtoolClean(m.text);
    expect(success(m, row.collector)).toBe(row.expect);
    for (const other of ['statistics', 'network_history', 'markets', 'key_rotations'].filter((c) => c !== row.collector)) {
      // Faults aimed at one endpoint leave the other collectors alone ('*' and network-wide faults excepted).
      if (!JSON.stringify(row.patch).includes('"*"') && !('halted' in row.patch)) expect(success(m, other), other).toBe(1);
    }
    row.check?.(m);
    if (row.code) {
      const failing = ex.logs.parsed().filter((l) => l.msg === 'collector failing' && l.collector === row.collector);
      expect(failing.at(-1)?.code).toBe(row.code);
    }
    // Bounded memory: an oversized or trickling body is cut, never held.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(30 * 2 ** 20);
    sim.clearFaults();
    await ex.poll();
    const after = await scrape(ex.url);
    expect(success(after, row.collector)).toBe(1); // recovered on the next poll
  });

  it('a 403 ban is honoured: no request is sent until RateLimit-Retry-After has passed', async () => {
    sim.clearFaults();
    sim.patchFaults({ endpoints: { networkhistory: { error: 403 } } });
    await ex.poll('network_history');
    const before = sim.requestCounts.get('networkhistory') ?? 0;
    sim.clearFaults();
    await ex.poll('network_history');
    await ex.poll('network_history');
    expect(sim.requestCounts.get('networkhistory') ?? 0).toBe(before);
    const m = await scrape(ex.url);
    expect(m.value('datanode_exporter_collector_success', { ...T, collector: 'network_history' })).toBe(0);
    expect(m.value('datanode_exporter_collector_success', { ...T, collector: 'statistics' })).toBe(1);
  });
});

const total = (s: Simulator): number => [...s.requestCounts.values()].reduce((a, b) => a + b, 0);

describe('rate limits like a real node', () => {
  it('in the default configuration the exporter stays under the limit and never earns a ban', async () => {
    // The node's default limit: 20 a second, burst 100. Polls are driven back to back (no
    // schedule to wait for) until the node has seen more than its burst, all of it paced by the
    // exporter's defaults (10 a second, burst 40): without pacing, this many would be refused.
    const s = await startSimulator({ seed: 96, parties: 60_000, faults: { rateLimit: true } });
    const daily = { interval: '24h' };
    const e = await startExporter(
      s.url,
      {
        collectors: {
          statistics: daily,
          network_history: daily,
          consistency: daily,
          markets: daily,
          key_rotations: daily,
          parties: { enabled: true, interval: '24h' },
        },
      },
      'warn',
    );
    try {
      const parties = e.poll('parties');
      while (total(s) <= 100) await Promise.all([e.poll('statistics'), e.poll('network_history'), e.poll('consistency'), e.poll('markets')]);
      await parties;
      const m = await scrape(e.url);
      const refused = m.all('datanode_exporter_upstream_requests_total').filter((x) => x.labels.status === '403' || x.labels.status === '429');
      expect(refused).toEqual([]);
      expect(m.value('vega_parties', { network: NET })).toBe(60_000);
    } finally {
      await e.stop();
      await s.close();
    }
  });

  it('against a stricter node it backs off on 429 and still never earns a ban', async () => {
    // 3 a second, burst 3, against the exporter's 10: a walk of 4 pages runs into the limit.
    const s = await startSimulator({ seed: 97, parties: 4_000, faults: { rateLimit: { enabled: true, rps: 3, burst: 3, banAfter: 5 } } });
    const e = await startExporter(
      s.url,
      {
        http: { page_size: 1000 },
        collectors: {
          statistics: { interval: '24h' },
          network_history: { enabled: false },
          consistency: { enabled: false },
          markets: { enabled: false },
          key_rotations: { enabled: false },
          parties: { enabled: true, interval: '24h', timeout: '50s' },
        },
      },
      'warn',
    );
    try {
      // A walk, with statistics polls alongside it, to its end.
      const parties = e.poll('parties');
      for (let i = 0; i < 6; i++) await e.poll('statistics');
      await parties;
      const m = await scrape(e.url);
      expect(m.value('vega_parties', { network: NET })).toBe(4_000);
      expect(m.value('datanode_exporter_upstream_requests_total', { target: 'node1', endpoint: 'statistics', status: '403' })).toBeUndefined();
      expect(m.value('datanode_exporter_upstream_requests_total', { target: 'node1', endpoint: 'parties', status: '403' })).toBeUndefined();
      expect(m.all('datanode_exporter_upstream_requests_total').some((x) => x.labels.status === '429')).toBe(true); // it did hit the limit
    } finally {
      await e.stop();
      await s.close();
    }
  });
});
