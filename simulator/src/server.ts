/**
 * The simulated data node's HTTP server: routes, freshness and rate-limit headers, gzip, the admin
 * API under /__sim/, and faults on the wire (latency, errors, malformed, truncated, trickling and
 * oversized bodies).
 */
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { ApiError, GRPC, gatewayError } from './api-error.js';
import {
  FaultError,
  applyFaultPatch,
  badRow,
  defaultFaults,
  faultsFor,
  mangleTypes,
  unknownEnums,
  type EndpointFaults,
  type FaultState,
  type SimProfile,
} from './faults.js';
import { SimNetwork, type NetworkFaults, type SimOptions } from './network.js';
import { matchRoute } from './routes.js';
import { RateLimiter } from './rate-limit.js';

export interface SimulatorOptions extends Partial<SimOptions> {
  host?: string;
  port?: number;
  faults?: unknown;
  /** What the faults default to (and return to when cleared); `spec` unless given. */
  profile?: SimProfile;
  /** Serve this network instead of making one: a fleet's nodes each get a view of a shared one (fleet.ts). */
  net?: SimNetwork;
}

export class Simulator {
  readonly net: SimNetwork;
  readonly profile: SimProfile;
  faults: FaultState;
  /** Requests served, by endpoint (tests use this to count what a poll cost upstream). */
  readonly requestCounts = new Map<string, number>();
  private readonly server: http.Server;
  private readonly limiter = new RateLimiter();
  private readonly faultHits = new Map<string, number>();
  private readonly sockets = new Set<import('node:net').Socket>();

  constructor(options: SimulatorOptions = {}) {
    this.net = options.net ?? new SimNetwork(options);
    this.profile = options.profile ?? 'spec';
    this.faults = defaultFaults(this.profile);
    if (options.faults !== undefined) this.setFaults(applyFaultPatch(this.faults, options.faults));
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: GRPC.Internal, message: String(err), details: [] }));
        } else res.destroy();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  setFaults(next: FaultState): void {
    this.faults = next;
    // The network model holds the faults that change its data; the rest act on responses here.
    for (const k of Object.keys(this.net.faults) as (keyof NetworkFaults)[]) (this.net.faults as Record<keyof NetworkFaults, unknown>)[k] = next[k];
    this.faultHits.clear();
  }

  /** Apply a fault patch (the same JSON the admin endpoint takes). */
  patchFaults(patch: unknown): FaultState {
    this.net.sync(); // a halt takes effect from now, not from the last request
    this.setFaults(applyFaultPatch(this.faults, patch));
    return this.faults;
  }

  clearFaults(): void {
    this.net.sync();
    this.setFaults(defaultFaults(this.profile));
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return this.url;
  }

  get url(): string {
    const a = this.server.address() as AddressInfo;
    return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (url.pathname.startsWith('/__sim/')) return this.admin(req, res, url);

    this.net.sync();
    const match = matchRoute(url.pathname);
    const ef: EndpointFaults = match ? faultsFor(this.faults, match.route.endpoint) : {};
    if (match) this.requestCounts.set(match.route.endpoint, (this.requestCounts.get(match.route.endpoint) ?? 0) + 1);

    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!this.faults.stripFreshnessHeaders && !ef.missingFreshnessHeaders) {
      headers['x-block-height'] = String(this.net.datanodeHeight());
      headers['x-block-timestamp'] = this.net.datanodeBlockTimeNs().toString();
    }
    let status = 200;
    let body: unknown;
    try {
      this.limiter.check(req.socket.remoteAddress ?? 'unknown', this.faults.rateLimit, headers);
      if (ef.latencyMs) await delay(ef.latencyMs);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw gatewayError(GRPC.Unimplemented, 'Method Not Allowed');
      if (!match) throw gatewayError(GRPC.NotFound, 'Not Found');
      this.injectError(match.route.endpoint, ef);
      body = match.route.handle({ net: this.net, faults: this.faults, query: url.searchParams, params: match.params, pageFaults: ef.pagination ?? {} });
      if (ef.unknownEnums) body = unknownEnums(body);
      if (ef.wrongTypes) body = mangleTypes(body);
      if (ef.badRow) body = badRow(body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.httpStatus;
      body = err.body;
      Object.assign(headers, err.headers);
    }
    await this.write(req, res, status, headers, JSON.stringify(body), ef);
  }

  private injectError(endpoint: string, ef: EndpointFaults): void {
    if (ef.error === undefined) return;
    const hits = (this.faultHits.get(endpoint) ?? 0) + 1;
    this.faultHits.set(endpoint, hits);
    switch (ef.error) {
      case 500:
        throw new ApiError(500, {
          code: GRPC.Internal,
          message: 'Internal error',
          details: [
            {
              '@type': 'type.googleapis.com/vega.ErrorDetail',
              code: 10000,
              message: 'failed to query store',
              inner: 'failed to connect to `host=localhost user=vega database=vega`: dial error (dial tcp 127.0.0.1:5432: connect: connection refused)',
            },
          ],
        });
      case 503:
        throw gatewayError(GRPC.Unavailable, 'connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:3002: connect: connection refused"');
      case 504:
        throw gatewayError(GRPC.DeadlineExceeded, 'context deadline exceeded');
      case 429:
        throw gatewayError(GRPC.ResourceExhausted, 'rate limit exceeded', { 'ratelimit-limit': '20', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
      case 403:
        throw gatewayError(GRPC.PermissionDenied, 'banned for 600s', { 'ratelimit-retry-after': '600' });
      case 'ratelimit':
        if (hits <= 3)
          throw gatewayError(GRPC.ResourceExhausted, 'rate limit exceeded', { 'ratelimit-limit': '20', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
        throw gatewayError(GRPC.PermissionDenied, 'banned for 600s', { 'ratelimit-retry-after': '600' });
    }
  }

  private async write(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    headers: Record<string, string>,
    text: string,
    ef: EndpointFaults,
  ): Promise<void> {
    if (ef.malformedJson) text = `${text.slice(0, Math.max(1, Math.floor(text.length * 0.6)))}<!-- upstream reset -->`;

    if (ef.oversizedBody) {
      // Valid JSON, just huge: a padding field in front, streamed so the simulator never holds it.
      const head = '{"padding":"';
      const tail = `",${text.slice(1)}`;
      const total = Buffer.byteLength(head) + ef.oversizedBody + Buffer.byteLength(tail);
      res.writeHead(status, { ...headers, 'content-length': String(total) });
      res.write(head);
      const chunk = 'x'.repeat(64 * 1024);
      let left = ef.oversizedBody;
      while (left > 0 && !res.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
        left -= piece.length;
        if (!res.write(piece)) await drainOrClose(res);
      }
      if (!res.destroyed) res.end(tail);
      return;
    }

    const buf = Buffer.from(text, 'utf8');
    if (ef.truncatedBody) {
      res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
      res.write(buf.subarray(0, Math.floor(buf.length / 2)), () => res.destroy());
      return;
    }
    if (ef.slowBody) {
      const { chunkBytes, intervalMs } = ef.slowBody;
      res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
      for (let off = 0; off < buf.length && !res.destroyed; off += chunkBytes) {
        res.write(buf.subarray(off, off + chunkBytes));
        await delay(intervalMs);
      }
      if (!res.destroyed) res.end();
      return;
    }
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && buf.length > 256) {
      const gz = gzipSync(buf);
      res.writeHead(status, { ...headers, 'content-encoding': 'gzip', 'content-length': String(gz.length), vary: 'Accept-Encoding' });
      res.end(req.method === 'HEAD' ? undefined : gz);
      return;
    }
    res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
    res.end(req.method === 'HEAD' ? undefined : buf);
  }

  private async admin(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
    };
    const readJson = async (): Promise<unknown> => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      return raw.trim() === '' ? {} : JSON.parse(raw);
    };
    try {
      if (url.pathname === '/__sim/faults') {
        if (req.method === 'GET') return send(200, this.faults);
        if (req.method === 'DELETE') {
          this.clearFaults();
          return send(200, this.faults);
        }
        if (req.method === 'PUT' || req.method === 'POST' || req.method === 'PATCH') return send(200, this.patchFaults(await readJson()));
      }
      if (url.pathname === '/__sim/state' && req.method === 'GET') {
        this.net.sync();
        return send(200, {
          height: this.net.height,
          datanodeHeight: this.net.datanodeHeight(),
          blockTimeNs: this.net.blockTimeNs.toString(),
          epochSeq: this.net.epochSeq,
          validators: this.net.validators.map((v) => v.nodeId),
          rotations: this.net.rotations.length,
          markets: this.net.markets.length,
          parties: this.net.parties.length,
          positions: this.net.positions.length,
          orders: this.net.orders.map((o) => o.id),
          signatureResources: [...this.net.signatures.keys()],
          requests: Object.fromEntries(this.requestCounts),
        });
      }
      if (url.pathname === '/__sim/step' && req.method === 'POST') {
        const n = Number(url.searchParams.get('blocks') ?? '1');
        if (!Number.isInteger(n) || n < 1 || n > 100_000) return send(400, { error: 'blocks: expected an integer 1..100000' });
        for (let i = 0; i < n; i++) this.net.step();
        return send(200, { height: this.net.height });
      }
      if (url.pathname === '/__sim/markets' && req.method === 'POST') return send(200, { id: this.net.addMarket().id });
      const m = /^\/__sim\/markets\/([0-9a-f]{64})$/.exec(url.pathname);
      if (m && req.method === 'DELETE') return send(this.net.removeMarket(m[1]!) ? 200 : 404, {});
      send(404, { error: `no admin route ${req.method} ${url.pathname}` });
    } catch (err) {
      send(400, { error: err instanceof FaultError || err instanceof SyntaxError ? err.message : String(err) });
    }
  }
}

/** Start a simulator on 127.0.0.1 (ephemeral port unless given). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = new Simulator(options);
  await sim.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return sim;
}

/** Wait until the response can take more, or is gone; the listener left behind is removed. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
