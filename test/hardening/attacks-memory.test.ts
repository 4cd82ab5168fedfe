/**
 * Hostile bodies against the exporter as a real process (its own resident memory, measured from
 * /proc): label values and series without bounds, and memory coming back after an
 * oversized-body episode. The data node is the tests' own (helpers/hostile.ts).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Scrape } from '../helpers/expo.js';
import { hex64, hostileNode, json, market, MARKETS_PATHS, statisticsBody, STATISTICS_HEADERS, v2Markets, type HostileNode } from '../helpers/hostile.js';
import { bodySize, removeDist, spawnExporter, type ExporterProcess } from '../helpers/process.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});

afterAll(() => removeDist());

/** The longest string a markets answer may hold, and a single message (bounds.ts): longer ones are refused (attacks-upstream.test.ts). */
const MARKET_STRING = 8 * 1024;
const MESSAGE_STRING = 4 * 1024;
const CHART_MEMORY_LIMIT_MIB = Number(/^ {4}memory: (\d+)Mi$/m.exec(readFileSync('helm/datanode-exporter/values.yaml', 'utf8').split('limits:')[1]!)![1]);
/** Markets whose every series fits the markets collector's share of the network's series limit with this mix (about 450 of 49 series each). */
const MARKETS = 400;
const long = (tag: string, i: number): string => `${tag}${i}-`.padEnd(MARKET_STRING, 'x');

/**
 * Wait until the node has answered `path` (any of them) `n` more times, or `n` times in all with
 * `inAll` (a first poll may be sent before the test asks), then a little for the poll to apply.
 */
async function polled(node: HostileNode, path: string | readonly string[], n: number, timeoutMs: number, inAll = false): Promise<void> {
  const count = (): number => [path].flat().reduce((a, p) => a + (node.counts.get(p) ?? 0), 0);
  const start = inAll ? 0 : count();
  const end = Date.now() + timeoutMs;
  while (count() < start + n) {
    if (Date.now() > end) throw new Error(`${[path].flat().join(' or ')} not polled in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1_500));
}

function sampler(p: ExporterProcess): { max: () => number; stop: () => void } {
  let max = 0;
  const t = setInterval(() => {
    try {
      max = Math.max(max, p.rssMiB());
    } catch {
      /* exited */
    }
  }, 50);
  return { max: () => max, stop: () => clearInterval(t) };
}

const ONLY_MARKETS = {
  key_rotations: { enabled: false },
  consistency: { enabled: false },
  network_history: { enabled: false },
  statistics: { interval: '2s' },
  markets: { interval: '2s' },
};

describe.skipIf(process.platform !== 'linux')('hostile bodies', () => {
  it("400 markets with 8 KiB ids, 8 KiB names/codes/tags, a 4 KiB chain id: RSS under the chart's memory limit, /metrics < 50 MB, values capped", async () => {
    let phase: 'ids' | 'names' | 'chain' = 'ids';
    const bodies = {
      ids: JSON.stringify({ markets: Array.from({ length: MARKETS }, (_, i) => market(long('id', i))) }),
      names: JSON.stringify({
        markets: Array.from({ length: MARKETS }, (_, i) =>
          market(hex64(i), i % 3 === 0 ? { name: long('name', i) } : i % 3 === 1 ? { code: long('code', i) } : { tags: [long('tag', i)] }),
        ),
      }),
      chain: JSON.stringify({ markets: Array.from({ length: 200 }, (_, i) => market(hex64(i))) }),
    };
    const chainId = 'c'.repeat(MESSAGE_STRING);
    const node = await hostileNode({
      '/statistics': (_q, res) => json(res, statisticsBody(phase === 'chain' ? { chainId } : {}), 200, STATISTICS_HEADERS),
      '/markets': (_q, res) => json(res, bodies[phase]),
    });
    cleanup.push(node.close);
    // Polls 5 s apart: a busy CI machine must not make two 20 MB polls overlap.
    const p = await spawnExporter({ targets: [{ name: 'n', url: node.url }], collectors: { ...ONLY_MARKETS, markets: { interval: '5s' } } });
    cleanup.push(p.stop);
    // Start-up and the first poll overlap (modules still compiling): that transient is reported
    // apart; the limit applies from the first applied poll on.
    const startup = sampler(p);
    await polled(node, '/markets', 1, 20_000, true);
    startup.stop();
    const rss = sampler(p);
    cleanup.push(async () => rss.stop());
    const sizes: Record<string, number> = {};
    const markets = { ids: MARKETS, names: MARKETS, chain: 200 }; // long ids are ids: exported, their labels capped
    for (const ph of ['ids', 'names', 'chain'] as const) {
      phase = ph;
      await polled(node, '/markets', 1, 20_000);
      sizes[ph] = await bodySize(`${p.url}/metrics`, 50e6);
      expect(sizes[ph], ph).toBeLessThan(50e6); // before reading the whole body
      // The phase's poll is served once it is applied and rendered: wait for it, bounded.
      let text = '';
      for (let i = 0; i < 100; i++) {
        text = await (await fetch(`${p.url}/metrics`)).text();
        if (new Scrape(text).all('vega_market_info').length === markets[ph]) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const longest = Math.max(...new Scrape(text).samples.flatMap((s) => Object.values(s.labels).map((v) => Buffer.byteLength(v))));
      expect(longest, ph).toBeLessThanOrEqual(128);
      expect(new Scrape(text).all('vega_market_info')).toHaveLength(markets[ph]);
    }
    rss.stop();
    console.log(
      `item 2: max RSS ${rss.max().toFixed(0)} MiB (start-up and first poll: ${startup.max().toFixed(0)} MiB); /metrics bytes ${JSON.stringify(sizes)}`,
    );
    for (const [ph, n] of Object.entries(sizes)) expect(n, ph).toBeLessThan(50e6);
    // The bound an operator sets: the Helm chart's memory limit.
    expect(rss.max()).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
  }, 120_000);
});

describe.skipIf(process.platform !== 'linux')('memory comes back after an oversized-body episode', () => {
  it('50 MB streamed without Content-Length, 30 MB bodies under the cap, a gzip bomb; healed: RSS < 100 MiB within 60 s', async () => {
    let phase: 'chunked' | 'under' | 'gzip' | 'healed' = 'healed';
    const rows = Array.from({ length: 50 }, (_, i) => market(hex64(i)));
    const ordinary = JSON.stringify({ markets: rows });
    // Once the legacy path has failed, markets are asked at the paginated one: attacked alike.
    const ordinaryV2 = v2Markets(rows);
    const under = `{"padding":"${'x'.repeat(30 * 1024 * 1024)}",${ordinary.slice(1)}`;
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const node = await hostileNode({
      '/markets': (_q, res, path) => {
        if (phase === 'healed') return json(res, path === '/markets' ? ordinary : ordinaryV2);
        if (phase === 'under') return json(res, under);
        if (phase === 'gzip') return json(res, bomb, 200, { 'content-encoding': 'gzip' });
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no Content-Length to refuse early
        res.write('{"markets":[');
        let left = 800; // 50 MiB
        const pump = (): void => {
          while (left > 0 && !res.destroyed) {
            left--;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end(']}');
        };
        res.on('error', () => {});
        pump();
      },
    });
    cleanup.push(node.close);
    const p = await spawnExporter({ targets: [{ name: 'n', url: node.url }], collectors: ONLY_MARKETS });
    cleanup.push(p.stop);
    await polled(node, MARKETS_PATHS, 1, 20_000, true);
    const before = p.rssMiB();
    const rss = sampler(p);
    cleanup.push(async () => rss.stop());
    for (const ph of ['chunked', 'under', 'gzip'] as const) {
      phase = ph;
      await polled(node, MARKETS_PATHS, 2, 20_000);
    }
    rss.stop();
    phase = 'healed';
    const healedAt = Date.now();
    await polled(node, MARKETS_PATHS, 1, 20_000);
    let after = p.rssMiB();
    while (after >= 100 && Date.now() - healedAt < 60_000) {
      await new Promise((r) => setTimeout(r, 250));
      after = p.rssMiB();
    }
    const seconds = (Date.now() - healedAt) / 1000;
    console.log(
      `item 8: RSS before ${before.toFixed(0)} MiB, episode peak ${rss.max().toFixed(0)} MiB, ${after.toFixed(0)} MiB ${seconds.toFixed(1)} s after the node healed`,
    );
    expect(after).toBeLessThan(100);
    expect(seconds).toBeLessThan(60);
    expect(await (await fetch(`${p.url}/metrics`)).text()).toMatch(/datanode_exporter_network_collector_success\{network="[^"]+",collector="markets"\} 1/);
  }, 120_000);
});
