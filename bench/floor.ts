/**
 * The Node floor: the least a Node program can do for the exporter's default work, a reference row of
 * `npm run bench` (not shipped). It makes the same requests on the same default schedules as the
 * exporter's default collectors (src/exporter/vega/collectors, config/schema.ts), once at start and
 * then every interval at a stable offset per target and collector, with the same encodings (lists
 * gzipped, single messages uncompressed) and key rotations asked only after the last cursor once the
 * first walk is done; the bench checks that both ask each endpoint as often. It keeps about the same
 * series: undici requests timed into a histogram, `JSON.parse`, numeric fields as prom-client gauges, one family a collector
 * rendered again only when a poll changed its samples, the body put together at most once a second
 * after a poll and served by express as cached text and gzip. No validation, bounds, retries, fleet
 * signals or logs: what the exporter does beyond this is what the bench's ratio to the floor shows.
 *
 * Takes the exporter's own arguments (--web.listen-address, --datanode.url, --config.file with a
 * `targets:` list; other keys are ignored) and prints the same "serving metrics" line.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { numericLeaves, sameSamples, type FloorSample as Sample } from './stats.js';

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

// ---- upstream: undici, keep-alive; lists gzipped, single messages uncompressed (as the exporter asks) ----
const agent = new Agent({ connections: 4, keepAliveTimeout: 4_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
const own = new Registry();
collectDefaultMetrics({ register: own });
const requests = new Counter({ name: 'floor_upstream_requests_total', help: 'Requests', labelNames: ['target', 'endpoint'], registers: [own] });
// The exporter's upstream-request histogram: one series set per target, endpoint class and outcome.
const latency = new Histogram({
  name: 'floor_upstream_request_duration_seconds',
  help: 'Requests',
  labelNames: ['target', 'class', 'outcome'],
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [own],
});
const LIST = { accept: 'application/json', 'accept-encoding': 'gzip' };
const SINGLE = { accept: 'application/json', 'accept-encoding': 'identity' };

async function get(t: Target, path: string, list: boolean, query: Record<string, string> = {}): Promise<unknown> {
  const u = new URL(path, t.url);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  requests.inc({ target: t.name, endpoint: path });
  const t0 = performance.now();
  const res = await request(u, { dispatcher: agent, headers: list ? LIST : SINGLE });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const failed = res.statusCode === 429 || res.statusCode >= 500;
  latency.observe({ target: t.name, class: list ? 'list' : 'single', outcome: failed ? 'error' : 'success' }, (performance.now() - t0) / 1000);
  if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
  return JSON.parse((res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as unknown;
}

/**
 * The rows of a paginated connection (`{ <key>: { edges: [{ node }], pageInfo } }`) after `after`
 * (from the start without it), oldest first, as the exporter walks it; returns the cursor to resume from.
 */
async function walk(t: Target, path: string, key: string, first: number, onRows: (rows: unknown[]) => void, after?: string): Promise<string | undefined> {
  for (let page = 0; page < 100; page++) {
    const q: Record<string, string> = { 'pagination.first': String(first), 'pagination.newestFirst': 'false' };
    if (after) q['pagination.after'] = after;
    const conn = (await get(t, path, true, q)) as Record<string, { edges?: { node: unknown }[]; pageInfo?: { hasNextPage?: boolean; endCursor?: string } }>;
    const c = conn[key];
    const edges = c?.edges ?? [];
    onRows(edges.map((e) => e.node));
    const next = c?.pageInfo?.endCursor ?? '';
    if (!c?.pageInfo?.hasNextPage || edges.length === 0 || next === '') return next !== '' ? next : after;
    after = next;
  }
  return after;
}

// ---- series: one gauge per collector, reading every scope's last samples when it is rendered ----
let dirty = true;
interface Family {
  name: string;
  gauge: Gauge;
  held: Map<string, Sample[]>;
  /** Bumped when a poll changes the family's samples; its text is rendered once per version. */
  version: number;
  rendered: { version: number; text: string };
}
const families = new Map<string, Family>();
const polled = new Registry();

function publish(collector: string, scope: string, samples: Sample[]): void {
  let f = families.get(collector);
  if (!f) {
    const held = new Map<string, Sample[]>();
    const gauge = new Gauge({
      name: `floor_${collector}`,
      help: collector,
      labelNames: ['scope', 'market', 'field'],
      registers: [polled],
      collect() {
        this.reset();
        for (const list of held.values()) for (const [l, v] of list) this.set(l, v);
      },
    });
    f = { name: `floor_${collector}`, gauge, held, version: 0, rendered: { version: -1, text: '' } };
    families.set(collector, f);
  }
  const scoped = samples.map(([l, v]): Sample => [{ scope, ...l }, v]);
  const before = f.held.get(scope);
  if (before && sameSamples(before, scoped)) return;
  f.held.set(scope, scoped);
  f.version += 1;
}
const fields = (rows: [string, number][], extra: Record<string, string> = {}): Sample[] => rows.map(([field, v]) => [{ ...extra, field }, v]);

// ---- the default collectors: what each asks for and keeps ----
type Poll = (t: Target) => Promise<Sample[] | undefined>;
const NODE: Record<string, { everyS: number; poll: Poll }> = {
  statistics: { everyS: 15, poll: async (t) => fields(numericLeaves(await get(t, '/statistics', false), '', [])) },
  network_history: {
    everyS: 15,
    poll: async (t) => {
      const h = (await get(t, '/api/v2/networkhistory', false)) as { connectedPeers?: unknown[] };
      return [[{ field: 'connected_peers' }, h.connectedPeers?.length ?? 0]];
    },
  },
  datanode_info: {
    everyS: 60,
    poll: async (t) => {
      const i = (await get(t, '/api/v2/info', false)) as { version?: string; commitHash?: string };
      return [[{ field: `${i.version}/${i.commitHash}` }, 1]];
    },
  },
  history_segments: { everyS: 60, poll: async (t) => fields(numericLeaves(await get(t, '/api/v2/networkhistory/segments', true), '', [])) },
  // No series: a digest of the market ids and the latest key rotation, as the exporter compares across targets.
  consistency: {
    everyS: 60,
    poll: async (t) => {
      const ids: string[] = [];
      await walk(t, '/api/v2/markets', 'markets', 500, (rows) => rows.forEach((r) => ids.push(String((r as { id?: string }).id))));
      const rot = await get(t, '/api/v2/vega/keys/rotations', true, { 'pagination.first': '1' });
      createHash('sha256').update(ids.sort().join(',')).update(JSON.stringify(rot)).digest('hex');
      return undefined;
    },
  },
};
let rotations: { byNode: Map<string, { n: number; height: number }>; cursor: string | undefined } = { byNode: new Map(), cursor: undefined };
const NETWORK: Record<string, { everyS: number; poll: Poll }> = {
  // The whole history on the first poll, then only the rows after the last cursor (one request when none are new).
  key_rotations: {
    everyS: 60,
    poll: async (t) => {
      const byNode = new Map([...rotations.byNode].map(([node, v]) => [node, { ...v }]));
      const cursor = await walk(
        t,
        '/api/v2/vega/keys/rotations',
        'rotations',
        5_000,
        (rows) => {
          for (const r of rows as { nodeId: string; blockHeight: string }[]) {
            const cur = byNode.get(r.nodeId) ?? { n: 0, height: 0 };
            byNode.set(r.nodeId, { n: cur.n + 1, height: Math.max(cur.height, Number(r.blockHeight)) });
          }
        },
        rotations.cursor,
      );
      rotations = { byNode, cursor };
      return [...byNode].flatMap(([node, v]): Sample[] => [
        [{ field: `${node}/count` }, v.n],
        [{ field: `${node}/height` }, v.height],
      ]);
    },
  },
  markets: {
    everyS: 60,
    poll: async (t) => {
      const m = (await get(t, '/markets', true)) as { markets?: { id: string }[] };
      return (m.markets ?? []).flatMap((x) => fields(numericLeaves(x, '', []), { market: x.id }));
    },
  },
  market_data: {
    everyS: 30,
    poll: async (t) => {
      const d = (await get(t, '/api/v2/markets/data', true)) as { marketsData?: { market: string }[] };
      return (d.marketsData ?? []).flatMap((x) => fields(numericLeaves(x, '', []), { market: x.market }));
    },
  },
  network_data: {
    everyS: 60,
    poll: async (t) => [
      ...fields(numericLeaves(await get(t, '/api/v2/network/data', false), 'data', []), { market: '' }),
      ...fields(numericLeaves(await get(t, '/api/v2/epoch', false), 'epoch', []), { market: '' }),
    ],
  },
};

const success = new Gauge({ name: 'floor_collector_success', help: 'Last poll ok', labelNames: ['scope', 'collector'], registers: [own] });
const duration = new Gauge({ name: 'floor_collector_duration_seconds', help: 'Last poll', labelNames: ['scope', 'collector'], registers: [own] });
const lastOk = new Gauge({
  name: 'floor_collector_last_success_timestamp_seconds',
  help: 'Last ok',
  labelNames: ['scope', 'collector'],
  registers: [own],
});
// The series each poll wrote: the count the exporter keeps per collector for its series limits.
const written = new Gauge({ name: 'floor_collector_series', help: 'Series written', labelNames: ['scope', 'collector'], registers: [own] });

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
      written.set(l, samples?.length ?? 0);
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

// ---- serving: the last body, put together at most once a second after a poll ----
let body = { text: '', gzip: Buffer.alloc(0) };
/**
 * Each family's text again only when a poll changed its samples (its prom-client values dropped once
 * rendered, as they are set again at the next render), the own metrics every time, and the whole gzipped.
 */
async function render(): Promise<void> {
  const parts: string[] = [];
  for (const f of families.values()) {
    if (f.rendered.version !== f.version) {
      f.rendered = { version: f.version, text: await polled.getSingleMetricAsString(f.name) };
      f.gauge.reset();
    }
    parts.push(f.rendered.text);
  }
  parts.push(await own.metrics());
  const text = parts.join('\n');
  body = { text, gzip: gzipSync(text) };
}
let rendering = false;
setInterval(() => {
  if (!dirty || rendering) return;
  dirty = false;
  rendering = true;
  void render().finally(() => (rendering = false));
}, 1_000);

const app = express();
app.get('/readyz', (_req, res) => void res.status(pending === 0 && body.text !== '' ? 200 : 503).end());
app.get('/metrics', (req, res) => {
  res.type(own.contentType);
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
