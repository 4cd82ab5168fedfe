/** Wires configuration, clients, collectors, runners, the store and the server into one exporter. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { M } from './catalogue.js';
import { KeyRotationsCollector } from './collectors/key-rotations.js';
import { networkHistoryCollector } from './collectors/network-history.js';
import { statisticsCollector } from './collectors/statistics.js';
import { Directory } from './collectors/directory.js';
import { MarketsCollector } from './collectors/markets.js';
import { NodeSignaturesCollector } from './collectors/node-signatures.js';
import { OrdersCollector } from './collectors/orders.js';
import { PartiesCollector } from './collectors/parties.js';
import { PositionsCollector } from './collectors/positions.js';
import type { Collector } from './collectors/types.js';
import { intervalToCron, isEnabled, type CollectorConfig, type CollectorKey, type Config } from './config/schema.js';
import { DatanodeClient } from './http/client.js';
import type { Logger } from './logger.js';
import type { Sample } from './render.js';
import { CollectorRunner } from './runner.js';
import { createSelfRegistry } from './self-metrics.js';
import { createApp, listen } from './server.js';
import { SeriesStore } from './store.js';

export const VERSION = '0.1.0';

/** One collector instance per target (several keep per-target state). */
function makeCollector(key: CollectorKey, config: Config, directory: Directory): Collector {
  const c = config.collectors;
  switch (key) {
    case 'statistics':
      return statisticsCollector;
    case 'network_history':
      return networkHistoryCollector;
    case 'key_rotations':
      return new KeyRotationsCollector();
    case 'markets':
      return new MarketsCollector({ maxMarkets: c.markets.max_markets, allow: c.markets.allow, countsOnly: c.markets.counts_only }, directory);
    case 'positions':
      return new PositionsCollector(c.positions.party_ids, c.positions.market_ids, directory);
    case 'parties':
      return new PartiesCollector(c.parties.party_ids);
    case 'node_signatures':
      return new NodeSignaturesCollector(c.node_signatures.ids);
    case 'orders':
      return new OrdersCollector(c.orders.ids, directory);
  }
}

export class Exporter {
  readonly store = new SeriesStore();
  readonly runners: CollectorRunner[] = [];
  readonly self: Registry;
  private readonly clients = new Map<string, DatanodeClient>();
  private readonly requestCounts = new Map<string, Map<string, number>>();
  private server: http.Server | undefined;

  constructor(readonly config: Config, private readonly log: Logger) {
    this.self = createSelfRegistry(VERSION, () => this.store.seriesCount());
    const h = config.http;
    for (const t of config.targets) {
      const counts = new Map<string, number>();
      this.requestCounts.set(t.name, counts);
      const client = new DatanodeClient({
        url: t.url,
        headers: t.headers,
        connectTimeoutMs: h.connect_timeout,
        headersTimeoutMs: h.headers_timeout,
        bodyTimeoutMs: h.body_timeout,
        requestTimeoutMs: h.request_timeout,
        maxResponseBytes: h.max_response_bytes,
        requestsPerSecond: h.requests_per_second,
        burst: h.burst,
        retries: h.retries,
        onRequest: (endpoint, status) => {
          const k = `${endpoint}\u0000${status}`;
          counts.set(k, (counts.get(k) ?? 0) + 1);
        },
      });
      this.clients.set(t.name, client);
      const directory = new Directory(config.collectors.positions.asset_decimals);
      for (const key of Object.keys(config.collectors) as CollectorKey[]) {
        const c: CollectorConfig = config.collectors[key];
        if (!isEnabled(config, key)) continue;
        const settings = {
          intervalMs: c.interval,
          // Leave a little of the interval free so a slow poll never runs into the next one.
          timeoutMs: c.timeout ?? Math.max(1000, Math.floor(c.interval * 0.8)),
          maxAgeMs: c.max_age ?? c.interval * 3,
          cron: intervalToCron(c.interval)!,
          pageSize: h.page_size,
          maxPages: h.max_pages,
        };
        this.runners.push(new CollectorRunner(t.name, makeCollector(key, config, directory), client, this.store, settings, log.child({ target: t.name }), () => this.applyRequestCounts(t.name)));
      }
    }
  }

  /** Upstream request counters are re-rendered with each applied poll (they only move during polls). */
  private applyRequestCounts(target: string): void {
    const counts = this.requestCounts.get(target)!;
    const samples: Sample[] = [...counts.entries()].sort().map(([k, v]) => {
      const [endpoint, status] = k.split('\u0000') as [string, string];
      return { metric: M.upstreamRequests, values: [target, endpoint, status], value: v };
    });
    this.store.set(`${target}\u0000http`, samples, Date.now(), Infinity);
  }

  async start(listenAddress = this.config.web.listen_address): Promise<string> {
    const app = createApp({ store: this.store, self: this.self, runners: () => this.runners, maxConnections: this.config.web.max_connections });
    this.server = await listen(app, listenAddress, this.config.web.max_connections);
    for (const r of this.runners) r.start();
    const a = this.server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  /** Stop schedules, abort in-flight polls, close the server and the upstream pools. */
  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    if (this.server) {
      const s = this.server;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}
