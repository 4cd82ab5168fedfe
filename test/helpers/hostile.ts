/**
 * A hostile data node of the tests' own: a small node:http server whose answers each test writes,
 * built from the contract fixtures (real node shapes). Not the simulator and its fault switches.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const fixture = (name: string): any => JSON.parse(readFileSync(new URL(`../contract/fixtures/${name}`, import.meta.url), 'utf8'));

export const STATISTICS = fixture('statistics.json');
export const STATISTICS_HEADERS: Record<string, string> = fixture('statistics.headers.json');
/** A market every version of the collector accepts (the first one carries NaN parameters). */
export const MARKET = fixture('markets.json').markets[1];

/** A statistics body with a given chain id (and status). */
export function statisticsBody(over: Record<string, unknown> = {}): string {
  return JSON.stringify({ statistics: { ...STATISTICS.statistics, ...over } });
}

export function hex64(i: number, salt = 'a'): string {
  return (salt + i.toString(16)).padStart(64, '0').slice(-64);
}

/** A valid market row with its id, names and tags replaced. */
export function market(id: string, over: { code?: string; name?: string; tags?: string[]; state?: string; tradingMode?: string } = {}): unknown {
  const m = structuredClone(MARKET);
  m.id = id;
  if (over.code !== undefined) m.tradableInstrument.instrument.code = over.code;
  if (over.name !== undefined) m.tradableInstrument.instrument.name = over.name;
  if (over.tags !== undefined) m.tradableInstrument.instrument.metadata.tags = over.tags;
  if (over.state !== undefined) m.state = over.state;
  if (over.tradingMode !== undefined) m.tradingMode = over.tradingMode;
  return m;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse, path: string) => void;

export interface HostileNode {
  url: string;
  port: number;
  /** Requests by path (query excluded). */
  counts: Map<string, number>;
  total: () => number;
  routes: Map<string, Route>;
  close: () => Promise<void>;
}

/** Answer with JSON. */
export function json(res: http.ServerResponse, body: string | Buffer, status = 200, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/**
 * Routes by the last path segment(s) (so /anything/statistics is /statistics, which lets probe
 * URLs with distinct path prefixes reach the same node); unknown paths are 404 with a node error.
 */
export async function hostileNode(routes: Record<string, Route> = {}): Promise<HostileNode> {
  const table = new Map<string, Route>(Object.entries(routes));
  table.set('/statistics', table.get('/statistics') ?? ((_q, res) => json(res, statisticsBody(), 200, STATISTICS_HEADERS)));
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    for (const [suffix, route] of table) {
      if (path === suffix || path.endsWith(suffix)) return route(req, res, path);
    }
    json(res, JSON.stringify({ code: 5, message: 'Not Found', details: [] }), 404);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    routes: table,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The paths markets are asked at: the legacy one once per target, then the paginated one. */
export const MARKETS_PATHS = ['/markets', '/api/v2/markets'] as const;

/** `rows` as one page of GET /api/v2/markets. */
export function v2Markets(rows: readonly unknown[]): string {
  return JSON.stringify({ markets: { edges: rows.map((node, i) => ({ node, cursor: String(i + 1) })), pageInfo: { hasNextPage: false, endCursor: '' } } });
}

/** Requests the node has answered at `path` (any of them) since it started. */
const answers = (node: HostileNode, path: string | readonly string[]): number => [path].flat().reduce((a, p) => a + (node.counts.get(p) ?? 0), 0);

/** Wait until the node has answered each path (or list of paths) its number of times in all, then a little for the polls to apply. */
async function answeredAt(node: HostileNode, totals: [string | readonly string[], number][], ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (const [path, n] of totals) {
    while (answers(node, path) < n) {
      if (Date.now() > end) throw new Error(`${[path].flat().join(' or ')} not polled in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await new Promise((r) => setTimeout(r, 1_000));
}

/** Wait until the node has answered `path` (any of them) `n` more times, then a little for the poll to apply. */
export async function polled(node: HostileNode, path: string | readonly string[], n: number, ms = 120_000): Promise<void> {
  await answeredAt(node, [[path, answers(node, path) + n]], ms);
}

/**
 * Wait until the node has answered each path `n` times since it started, then a little for the
 * polls to apply. Polls sent before the call count: a first poll may be sent before the test asks.
 */
export async function answered(node: HostileNode, totals: Record<string, number>, ms = 120_000): Promise<void> {
  await answeredAt(node, Object.entries(totals), ms);
}

/** A collector's success value ('0' or '1') in a /metrics body, node- or network-scoped. */
export const success = (text: string, collector: string): string | undefined =>
  new RegExp(`^datanode_exporter_(?:network_)?collector_success\\{[^}]*collector="${collector}"\\} (\\d)$`, 'm').exec(text)?.[1];
