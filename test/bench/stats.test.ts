import { describe, expect, it } from 'vitest';
import {
  compareRates,
  countSeries,
  cpuMsPerScrape,
  cpuPercent,
  cpuTicks,
  duringPoll,
  median,
  numericLeaves,
  percentile,
  pollWindows,
  ratio,
  requestWindowSeconds,
  requestsBetween,
  sameSamples,
  shebangLaunch,
  spread,
  vmRssKiB,
} from '../../bench/stats.js';

describe('percentile (nearest rank) and median', () => {
  it('picks measured values', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([7, 3, 5], 99)).toBe(7);
    expect(percentile([], 99)).toBeNaN();
  });

  it('median: the middle value, or the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('leaves its input unsorted', () => {
    const xs = [3, 1, 2];
    percentile(xs, 99);
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

describe('/proc parsing', () => {
  // Fields 14 (utime) and 15 (stime) are 1234 and 56; the command name holds spaces and a ")".
  const stat =
    '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 9000 0 0 0 1234 56 0 0 20 0 11 0 777 1100000000 30000 18446744073709551615 1 1 0 0 0 0 0 4096 134234626 0 0 0 17 1 0 0 0 0 0\n';

  it('cpuTicks adds utime and stime, counting fields after the last ")"', () => {
    expect(cpuTicks(stat)).toBe(1290);
    expect(cpuTicks(stat.replace('(node (x) y)', '(node)'))).toBe(1290);
  });

  it('cpuTicks refuses what is not a stat line', () => {
    expect(() => cpuTicks('')).toThrow();
    expect(() => cpuTicks('4242 (node) S 1 2')).toThrow();
  });

  it('vmRssKiB reads VmRSS, not VmHWM or RssAnon', () => {
    const status = 'Name:\tnode\nVmPeak:\t 1200000 kB\nVmHWM:\t  150000 kB\nVmRSS:\t   98765 kB\nRssAnon:\t   60000 kB\nThreads:\t11\n';
    expect(vmRssKiB(status)).toBe(98765);
    expect(() => vmRssKiB('Name:\tnode\n')).toThrow();
  });
});

describe('bodies', () => {
  const body = [
    "# HELP datanode_exporter_collector_duration_seconds Duration of the collector's last poll.",
    '# TYPE datanode_exporter_collector_duration_seconds gauge',
    'datanode_exporter_collector_duration_seconds{target="a",collector="markets"} 0.5',
    'datanode_exporter_collector_duration_seconds{target="a",collector="statistics"} 0.01',
    'datanode_exporter_collector_last_success_timestamp_seconds{target="a",collector="markets"} 1000.75',
    'datanode_exporter_network_collector_duration_seconds{network="n",collector="key_rotations"} 2',
    'datanode_exporter_network_collector_last_success_timestamp_seconds{network="n",collector="key_rotations"} 1010',
    'vega_block_height{target="a"} 18591101',
    '',
    '# EOF',
    '',
  ].join('\n');

  it('countSeries counts sample lines only', () => {
    expect(countSeries(body)).toBe(6);
    expect(countSeries('')).toBe(0);
  });

  it('pollWindows pairs each last success with its duration (a collector without a success has none)', () => {
    expect(pollWindows(body)).toEqual([
      [1000250, 1000750],
      [1008000, 1010000],
    ]);
  });

  it('duringPoll: overlap with a poll or the tail after it', () => {
    const w: [number, number][] = [[1000, 2000]];
    expect(duringPoll(900, 1001, w, 0)).toBe(true);
    expect(duringPoll(900, 999, w, 0)).toBe(false);
    expect(duringPoll(2500, 2510, w, 1000)).toBe(true);
    expect(duringPoll(3001, 3010, w, 1000)).toBe(false);
    expect(duringPoll(3001, 3010, [], 1000)).toBe(false);
  });
});

describe('CPU, ratios to the floor and the cost of a scrape', () => {
  it('CPU ticks over wall time as % of one core', () => {
    // 150 ticks of 1/100 s = 1.5 s of CPU over 60 s: 2.5 %.
    expect(cpuPercent(150, 100, 60)).toBe(2.5);
    // 1,000 ticks over 10 s: a whole core.
    expect(cpuPercent(1000, 100, 10)).toBe(100);
  });

  it('a ratio to the floor, NaN without a floor figure', () => {
    expect(ratio(132, 110)).toBeCloseTo(1.2, 10);
    expect(ratio(8.5, 10)).toBe(0.85);
    expect(ratio(5, undefined)).toBeNaN();
    expect(ratio(5, 0)).toBeNaN();
    expect(ratio(5, NaN)).toBeNaN();
  });

  it('CPU ms per scrape from a window scraped 2/s and one scraped once per 15 s', () => {
    // 3 % against 1 %: 20 ms of CPU a second, for 2 scrapes a second more: 10 ms each.
    expect(cpuMsPerScrape(3, 2, 1, 0)).toBe(10);
    // 2 % against 1.5 %: 5 ms a second, for 2 − 1/15 = 29/15 scrapes a second more: 75/29 ms each.
    expect(cpuMsPerScrape(2, 2, 1.5, 1 / 15)).toBeCloseTo(75 / 29, 10);
    // Noise on a busy machine: shown as measured, negative.
    expect(cpuMsPerScrape(1, 2, 1.2, 0)).toBeCloseTo(-1, 10);
    expect(cpuMsPerScrape(2, 1, 1, 1)).toBeNaN();
  });
});

describe('shebangLaunch: the floor starts as the bin does', () => {
  it('splits the environment before node from its options after it', () => {
    expect(shebangLaunch('#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=32768 node --max-semi-space-size=1')).toEqual({
      env: { MALLOC_MMAP_THRESHOLD_: '32768' },
      nodeArgs: ['--max-semi-space-size=1'],
    });
    expect(shebangLaunch('#!/usr/bin/env -S node --a --b=2')).toEqual({ env: {}, nodeArgs: ['--a', '--b=2'] });
  });

  it('a plain `#!/usr/bin/env node` sets nothing', () => {
    expect(shebangLaunch('#!/usr/bin/env node')).toEqual({ env: {}, nodeArgs: [] });
  });

  it('refuses a -S line without node, or a word before node that is not VAR=value', () => {
    expect(() => shebangLaunch('#!/usr/bin/env -S deno run')).toThrow(/no node/);
    expect(() => shebangLaunch('#!/usr/bin/env -S nice node')).toThrow(/VAR=value/);
  });
});

describe("numericLeaves: the floor's series", () => {
  it('numbers and decimal strings by path; other strings, booleans and nulls are not series', () => {
    const body = {
      statistics: { blockHeight: '18591101', averageTxBytes: 12.5, chainId: 'vega-mainnet-0011', status: 'CHAIN_STATUS_CONNECTED' },
      segments: [{ fromHeight: '1', toHeight: '1000', dataset: 'full' }],
      flags: { ok: true, none: null, negative: '-3', hex: '0x10', exp: '1e3' },
    };
    expect(numericLeaves(body, '', [])).toEqual([
      ['statistics.blockHeight', 18591101],
      ['statistics.averageTxBytes', 12.5],
      ['segments[0].fromHeight', 1],
      ['segments[0].toHeight', 1000],
      ['flags.negative', -3],
    ]);
  });

  it('a path prefix, and a bare number at the top', () => {
    expect(numericLeaves({ epoch: { seq: '7' } }, 'data', [])).toEqual([['data.epoch.seq', 7]]);
    expect(numericLeaves(42, '', [])).toEqual([['', 42]]);
    expect(numericLeaves([], '', [])).toEqual([]);
  });
});

describe('rounds: the median and range of a figure', () => {
  it('odd and even counts of rounds', () => {
    expect(spread([12, 10, 11])).toEqual({ median: 11, min: 10, max: 12, n: 3 });
    expect(spread([3.5, 2.5])).toEqual({ median: 3, min: 2.5, max: 3.5, n: 2 });
    expect(spread([7])).toEqual({ median: 7, min: 7, max: 7, n: 1 });
  });

  it('a round that measured nothing (NaN) is left out; none at all is NaN', () => {
    expect(spread([4, NaN, 6])).toEqual({ median: 5, min: 4, max: 6, n: 2 });
    const none = spread([NaN]);
    expect(none.n).toBe(0);
    expect(none.median).toBeNaN();
    expect(none.min).toBeNaN();
    expect(none.max).toBeNaN();
  });
});

describe("upstream requests, from the simulator's records", () => {
  it('what each endpoint served between two readings, summed over the nodes of a fleet', () => {
    const before: Record<string, number>[] = [
      { statistics: 10, rotations: 21 },
      { statistics: 7, markets: 1 },
    ];
    const after: Record<string, number>[] = [
      { statistics: 14, rotations: 23, info: 1 },
      { statistics: 11, markets: 3 },
    ];
    expect(requestsBetween(before, after)).toEqual({ statistics: 8, rotations: 2, info: 1, markets: 2 });
    expect(requestsBetween([], [{ statistics: 4 }, { statistics: 4, info: 2 }])).toEqual({ statistics: 8, info: 2 });
  });

  it('counted over whole minutes, at least one', () => {
    expect(requestWindowSeconds(40)).toBe(60);
    expect(requestWindowSeconds(60)).toBe(60);
    expect(requestWindowSeconds(119)).toBe(60);
    expect(requestWindowSeconds(120)).toBe(120);
  });

  it('a minute each: equal rates pass; 5% apart passes, more fails; an endpoint only one subject asked fails', () => {
    const rows = compareRates(
      { requests: { statistics: 4, rotations: 2, markets: 20, info: 1, segments: 0 }, minutes: 1 },
      { requests: { statistics: 4, rotations: 21, markets: 21, assets: 1, segments: 0 }, minutes: 1 },
      0.05,
    );
    expect(rows).toEqual([
      { endpoint: 'assets', exporter: 0, floor: 1, diff: Infinity, ok: false },
      { endpoint: 'info', exporter: 1, floor: 0, diff: -1, ok: false },
      { endpoint: 'markets', exporter: 20, floor: 21, diff: 0.05, ok: true },
      { endpoint: 'rotations', exporter: 2, floor: 21, diff: 9.5, ok: false },
      { endpoint: 'segments', exporter: 0, floor: 0, diff: 0, ok: true },
      { endpoint: 'statistics', exporter: 4, floor: 4, diff: 0, ok: true },
    ]);
  });

  it('rates from different lengths of counting: 34 requests over 2 minutes against 16 over 1', () => {
    // 17 a minute against 16: the floor asks 1/17 (5.9%) less.
    const [row] = compareRates({ requests: { rotations: 34 }, minutes: 2 }, { requests: { rotations: 16 }, minutes: 1 }, 0.05);
    expect(row).toMatchObject({ exporter: 17, floor: 16, ok: false });
    expect(row!.diff).toBeCloseTo(-1 / 17, 10);
  });
});

describe("sameSamples: when the floor keeps a family's rendered text", () => {
  const poll = (): [Record<string, string>, number][] => [
    [{ scope: 'a', field: 'blockHeight' }, 18591101],
    [{ scope: 'a', market: 'm1', field: 'markPrice' }, NaN],
  ];

  it('the same labels and values in the same order (NaN equal to NaN)', () => {
    expect(sameSamples(poll(), poll())).toBe(true);
    expect(sameSamples([], [])).toBe(true);
  });

  it('a value, a label value, a label more, a sample more, or another order differs', () => {
    const p = poll();
    expect(sameSamples(p, [[p[0]![0], 18591102], p[1]!])).toBe(false);
    expect(sameSamples(p, [[{ scope: 'b', field: 'blockHeight' }, 18591101], p[1]!])).toBe(false);
    expect(sameSamples(p, [[{ ...p[0]![0], market: '' }, 18591101], p[1]!])).toBe(false);
    expect(sameSamples(p, [...p, p[1]!])).toBe(false);
    expect(sameSamples(p, [p[1]!, p[0]!])).toBe(false);
  });
});
