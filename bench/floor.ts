/**
 * The Node floor: the least a Node program can do for the exporter's default work, a reference row of
 * `npm run bench` (not shipped). It makes the same requests on the same default schedules as the
 * exporter's default collectors (src/exporter/vega/collectors, config/schema.ts), once at start and
 * then every interval at a stable offset per target and collector, and keeps about the same series:
 * undici requests, `JSON.parse`, numeric fields as prom-client gauges, a body rendered at most once a
 * second when something changed, served by express. No validation, bounds, retries, fleet signals or
 * logs: what the exporter does beyond this is what the bench's ratio to the floor shows.
 *
 * Takes the exporter's own arguments (--web.listen-address, --datanode.url, --config.file with a
 * `targets:` list; other keys are ignored) and prints the same "serving metrics" line.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { numericLeaves } from './stats.js';

const { values: args } = parseArgs({
  options: {
    'web.listen-address': { type: 'string', default: '127.0.0.1:0' },
    'datanode.url': { type: 'string' },
    'config.file': { type: 'string' },
  },
  strict: false,
});

interface Target {
  name: string;
  url: string;
}
function targets(): Target[] {
  const url = args['datanode.url'];
  if (typeof url === 'string') return [{ name: new URL(url).host, url }];
  const file = args['config.file'];
  if (typeof file !== 'string') throw new Error('floor: --datanode.url or --config.file');
  const doc = parseYaml(readFileSync(file, 'utf8')) as { targets?: Target[] } | null;
  if (!doc?.targets?.length) throw new Error(`floor: no targets in ${file}`);
  return doc.targets;
}

// ---- upstream: undici, keep-alive, identity encoding ----
const agent = new Agent({ connections: 4, keepAliveTimeout: 4_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
const registry = new Registry();
collectDefaultMetrics({ register: registry });
const requests = new Counter({ name: 'floor_upstream_requests_total', help: 'Requests', labelNames: ['target', 'endpoint'], registers: [registry] });

async function get(t: Target, path: string, query: Record<string, string> = {}): Promise<unknown> {
  const u = new URL(path, t.url);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  requests.inc({ target: t.name, endpoint: path });
  const res = await request(u, { dispatcher: agent, headers: { accept: 'application/json' } });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
  return JSON.parse(body) as unknown;
}

/** Every row of a paginated connection (`{ <key>: { edges: [{ node }], pageInfo } }`), as the exporter walks it. */
async function walk(t: Target, path: string, key: string, first: number, onRows: (rows: unknown[]) => void): Promise<void> {
  let after: string | undefined;
  for (let page = 0; page < 100; page++) {
    const q: Record<string, string> = { 'pagination.first': String(first), 'pagination.newestFirst': 'false' };
    if (after) q['pagination.after'] = after;
    const conn = (await get(t, path, q)) as Record<string, { edges?: { node: unknown }[]; pageInfo?: { hasNextPage?: boolean; endCursor?: string } }>;
    const c = conn[key];
    const edges = c?.edges ?? [];
    onRows(edges.map((e) => e.node));
    after = c?.pageInfo?.endCursor;
    if (!c?.pageInfo?.hasNextPage || edges.length === 0 || !after) return;
  }
}

// ---- series: one gauge per collector; a poll replaces its scope's series ----
let dirty = true;
const gauges = new Map<string, Gauge>();
const held = new Map<string, Map<string, Record<string, string>>>();
type Sample = [labels: Record<string, string>, value: number];

function publish(collector: string, scope: string, samples: Sample[]): void {
  let g = gauges.get(collector);
  if (!g) {
    g = new Gauge({ name: `floor_${collector}`, help: collector, labelNames: ['scope', 'market', 'field'], registers: [registry] });
    gauges.set(collector, g);
  }
  const before = held.get(`${collector}/${scope}`) ?? new Map<string, Record<string, string>>();
  const now = new Map<string, Record<string, string>>();
  for (const [labels, value] of samples) {
    const l = { scope, ...labels };
    g.set(l, value);
    now.set(JSON.stringify(l), l);
  }
  for (const [k, l] of before) if (!now.has(k)) g.remove(l);
  held.set(`${collector}/${scope}`, now);
  dirty = true;
}
const fields = (rows: [string, number][], extra: Record<string, string> = {}): Sample[] => rows.map(([field, v]) => [{ ...extra, field }, v]);

// ---- the default collectors: what each asks for and keeps ----
type Poll = (t: Target) => Promise<Sample[] | undefined>;
const NODE: Record<string, { everyS: number; poll: Poll }> = {
  statistics: { everyS: 15, poll: async (t) => fields(numericLeaves(await get(t, '/statistics'), '', [])) },
  network_history: {
    everyS: 15,
    poll: async (t) => {
      const h = (await get(t, '/api/v2/networkhistory')) as { connectedPeers?: unknown[] };
      return [[{ field: 'connected_peers' }, h.connectedPeers?.length ?? 0]];
    },
  },
  datanode_info: {
    everyS: 60,
    poll: async (t) => {
      const i = (await get(t, '/api/v2/info')) as { version?: string; commitHash?: string };
      return [[{ field: `${i.version}/${i.commitHash}` }, 1]];
    },
  },
  history_segments: { everyS: 60, poll: async (t) => fields(numericLeaves(await get(t, '/api/v2/networkhistory/segments'), '', [])) },
  // No series: a digest of the market ids and the latest key rotation, as the exporter compares across targets.
  consistency: {
    everyS: 60,
    poll: async (t) => {
      const ids: string[] = [];
      await walk(t, '/api/v2/markets', 'markets', 500, (rows) => rows.forEach((r) => ids.push(String((r as { id?: string }).id))));
      const rot = await get(t, '/api/v2/vega/keys/rotations', { 'pagination.first': '1' });
      createHash('sha256').update(ids.sort().join(',')).update(JSON.stringify(rot)).digest('hex');
      return undefined;
    },
  },
};
const NETWORK: Record<string, { everyS: number; poll: Poll }> = {
  key_rotations: {
    everyS: 60,
    poll: async (t) => {
      const byNode = new Map<string, { n: number; height: number }>();
      await walk(t, '/api/v2/vega/keys/rotations', 'rotations', 5_000, (rows) => {
        for (const r of rows as { nodeId: string; blockHeight: string }[]) {
          const cur = byNode.get(r.nodeId) ?? { n: 0, height: 0 };
          byNode.set(r.nodeId, { n: cur.n + 1, height: Math.max(cur.height, Number(r.blockHeight)) });
        }
      });
      return [...byNode].flatMap(([node, v]): Sample[] => [
        [{ field: `${node}/count` }, v.n],
        [{ field: `${node}/height` }, v.height],
      ]);
    },
  },
  markets: {
    everyS: 60,
    poll: async (t) => {
      const m = (await get(t, '/markets')) as { markets?: { id: string }[] };
      return (m.markets ?? []).flatMap((x) => fields(numericLeaves(x, '', []), { market: x.id }));
    },
  },
  market_data: {
    everyS: 30,
    poll: async (t) => {
      const d = (await get(t, '/api/v2/markets/data')) as { marketsData?: { market: string }[] };
      return (d.marketsData ?? []).flatMap((x) => fields(numericLeaves(x, '', []), { market: x.market }));
    },
  },
  network_data: {
    everyS: 60,
    poll: async (t) => [
      ...fields(numericLeaves(await get(t, '/api/v2/network/data'), 'data', []), { market: '' }),
      ...fields(numericLeaves(await get(t, '/api/v2/epoch'), 'epoch', []), { market: '' }),
    ],
  },
};

const success = new Gauge({ name: 'floor_collector_success', help: 'Last poll ok', labelNames: ['scope', 'collector'], registers: [registry] });
const duration = new Gauge({ name: 'floor_collector_duration_seconds', help: 'Last poll', labelNames: ['scope', 'collector'], registers: [registry] });
const lastOk = new Gauge({
  name: 'floor_collector_last_success_timestamp_seconds',
  help: 'Last ok',
  labelNames: ['scope', 'collector'],
  registers: [registry],
});

let pending = 0;
/** Runs now, then every `everyS` at an offset from a hash of scope/collector (as the exporter spreads its polls). */
function schedule(scope: string, collector: string, everyS: number, t: Target, poll: Poll): void {
  const every = everyS * 1000;
  const offset = createHash('sha256').update(`${scope}/${collector}`).digest().readUInt32BE(0) % every;
  let running = false;
  const run = async (): Promise<void> => {
    if (running) return;
    running = true;
    const t0 = performance.now();
    const l = { scope, collector };
    try {
      const samples = await poll(t);
      if (samples) publish(collector, scope, samples);
      success.set(l, 1);
      lastOk.set(l, Date.now() / 1000);
    } catch {
      success.set(l, 0);
    }
    duration.set(l, (performance.now() - t0) / 1000);
    dirty = true;
    running = false;
  };
  const next = (): void => {
    const now = Date.now();
    const at = Math.ceil((now - offset + 1) / every) * every + offset;
    setTimeout(() => void run().finally(next), at - now);
  };
  pending += 1;
  void run().finally(() => {
    pending -= 1;
    next();
  });
}

const list = targets();
for (const t of list) for (const [name, c] of Object.entries(NODE)) schedule(t.name, name, c.everyS, t, c.poll);
// One network: its collectors ask the first target, as the exporter asks one member.
for (const [name, c] of Object.entries(NETWORK)) schedule('network', name, c.everyS, list[0]!, c.poll);

// ---- serving: the last body, rendered at most once a second when something changed ----
let body = { text: '', gzip: Buffer.alloc(0) };
setInterval(() => {
  if (!dirty) return;
  dirty = false;
  void registry.metrics().then((text) => (body = { text, gzip: gzipSync(text) }));
}, 1_000);

const app = express();
app.get('/readyz', (_req, res) => void res.status(pending === 0 && body.text !== '' ? 200 : 503).end());
app.get('/metrics', (req, res) => {
  res.type(registry.contentType);
  if (req.acceptsEncodings('gzip') === 'gzip') res.set('content-encoding', 'gzip').send(body.gzip);
  else res.send(body.text);
});
const listen = String(args['web.listen-address']);
const at = listen.lastIndexOf(':');
const server = app.listen(Number(listen.slice(at + 1)), listen.slice(0, at), () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ msg: 'serving metrics', url: `http://${address}:${port}/metrics` }));
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(0));
