/**
 * One data node over HTTP: an undici Pool, explicit timeouts, a response-size cap (before and after
 * gzip), pacing below the node's rate limit, bounded retries with jitter inside the caller's
 * deadline, and node error bodies decoded into UpstreamHttpError.
 */
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { setTimeout as delay } from 'node:timers/promises';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ExporterError, UpstreamHttpError } from '../errors.js';
import { HostPacer, type PacerRegistry } from './pace.js';
import { linkedSignal } from './deadline.js';
import { bodyBound, checkShape, ShapeScan, type BodyBound, type ListRowBound } from './bounds.js';
import { HELD_PER_BYTE, type ByteBudget } from './budget.js';
import { VERSION } from '../version.js';

const USER_AGENT = `datanode-exporter/${VERSION}`;

export interface ClientOptions {
  url: string;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Per-request deadline (the poll's own deadline may be shorter). */
  requestTimeoutMs: number;
  /** The configured cap; an endpoint's own bound (bounds.ts) is often lower. */
  maxResponseBytes: number;
  /** The endpoints that answer with a list, each with its row's bound; any other answers with one message. */
  lists: ReadonlyMap<string, ListRowBound>;
  requestsPerSecond: number;
  burst: number;
  retries: number;
  /** Longest back-off a RateLimit-Reset / Retry-After answer can impose (default 10 minutes, a node's ban). */
  maxBackoffMs?: number;
  /** Pacing shared per host and port (the exporter's); without it this client paces alone. */
  pacers?: PacerRegistry;
  /**
   * What this target's answers may cost while held, and the process's (budget.ts): a request
   * reserves its worst case from each, in this order, before it reads; an answer the smallest
   * cannot hold is refused (UPSTREAM_BODY_TOO_LARGE).
   */
  budgets?: readonly ByteBudget[];
  /** Called once per attempt with the endpoint label and the HTTP status or 'error'. */
  onRequest?: (endpoint: string, status: string) => void;
  /**
   * Called once per attempt when it ends, with whether it failed as a client of the API sees it
   * (no answer, a body that did not arrive, 429 or 5xx) and its seconds from sending to the whole body.
   */
  onResponse?: (endpoint: string, failed: boolean, seconds: number) => void;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** A real node bans for 10 minutes: no answer of its should stop polling for longer. */
export const DEFAULT_MAX_BACKOFF_MS = 10 * 60_000;
/** A real node's ban, in seconds: how long an endpoint that answered 403 waits. */
const DEFAULT_BAN_SECONDS = 600;

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** Statuses counted by their code: those the client handles apart; the others by class (`4xx`). */
const COUNTED_STATUS = new Set([200, 400, 403, 404, 501, ...RETRYABLE_STATUS]);

/** A status as a label value: a node cannot mint a series per code. */
export function statusLabel(status: number): string {
  if (COUNTED_STATUS.has(status)) return String(status);
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

export class HttpClient {
  private readonly pool: Pool;
  private readonly base: URL;
  /** Shared with every client of the same host and port (hostPacer). */
  private readonly pacer: HostPacer;
  /**
   * Request headers: the configured ones, a User-Agent that names the exporter unless one is
   * configured. Lists are asked for gzipped; a single message (a few kilobytes, most of the
   * requests) as it is: its bytes on the wire cost less than its gunzip and the decompressed
   * buffer that each answer would allocate.
   */
  private readonly headers: { list: Record<string, string>; single: Record<string, string> };

  constructor(private readonly opts: ClientOptions) {
    const ua: Record<string, string> = Object.keys(opts.headers).some((k) => k.toLowerCase() === 'user-agent') ? {} : { 'user-agent': USER_AGENT };
    const headers = { ...ua, ...opts.headers, accept: 'application/json' };
    this.headers = { list: { ...headers, 'accept-encoding': 'gzip' }, single: { ...headers, 'accept-encoding': 'identity' } };
    this.base = new URL(opts.url);
    this.pool = new Pool(this.base.origin, {
      connections: 4,
      connectTimeout: opts.connectTimeoutMs,
      headersTimeout: opts.headersTimeoutMs,
      bodyTimeout: opts.bodyTimeoutMs,
      keepAliveTimeout: 4_000,
    });
    this.pacer = opts.pacers ? opts.pacers.get(this.base, opts.requestsPerSecond, opts.burst) : new HostPacer(opts.requestsPerSecond, opts.burst);
  }

  /** When the current back-off ends (ms since epoch), if one is in force. */
  backoffUntil(): number | undefined {
    return this.pacer.blockedUntil > Date.now() ? this.pacer.blockedUntil : undefined;
  }

  /** The end of a back-off of `seconds`, never longer than maxBackoffMs from now. */
  private backOffEnd(seconds: number): number {
    return Date.now() + Math.min(seconds * 1000, this.opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
  }

  /** Back off the whole host for `seconds` as the node asked; a ban is never extended. */
  private backOff(seconds: number): void {
    this.pacer.blockedUntil = Math.max(this.pacer.blockedUntil, this.backOffEnd(seconds));
  }

  /**
   * A 403 backs off what it refused. The node's ban (for continuing while rate limited) is per
   * client address and says so with RateLimit-Retry-After (or Retry-After): the whole host waits.
   * A 403 without one is about that endpoint (a proxy's rule, a path the node will not serve): only
   * that endpoint waits, as long as a ban would; the node's other endpoints are polled as before.
   */
  private forbidden(err: UpstreamHttpError, endpoint: string): void {
    if (err.retryAfterSeconds !== undefined) return this.backOff(err.retryAfterSeconds);
    const blocked = this.pacer.endpointBlockedUntil;
    blocked.set(endpoint, Math.max(blocked.get(endpoint) ?? 0, this.backOffEnd(DEFAULT_BAN_SECONDS)));
  }

  /** Build the request path; every key and value is percent-encoded (cursors contain + / =). */
  pathFor(path: string, query: readonly (readonly [string, string])[] = []): string {
    const prefix = this.base.pathname.replace(/\/$/, '');
    const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    return `${prefix}${path}${qs ? `?${qs}` : ''}`;
  }

  /** `rows`: how many rows the answer holds when the query does not say (one market by id). */
  async get(path: string, query: readonly (readonly [string, string])[], endpoint: string, signal: AbortSignal, rows?: number): Promise<Response> {
    const fullPath = this.pathFor(path, query);
    const first = query.find(([k]) => k === 'pagination.first');
    const held = Math.min(...(this.opts.budgets ?? []).map((b) => Math.floor(b.limit / HELD_PER_BYTE)));
    const bound = bodyBound(this.opts.lists.get(endpoint), first ? Number(first[1]) : rows, Math.min(this.opts.maxResponseBytes, held));
    let attempt = 0;
    for (;;) {
      const wait = Math.max(this.pacer.blockedUntil, this.pacer.endpointBlockedUntil.get(endpoint) ?? 0) - Date.now();
      if (wait > 0) {
        // Waiting out a long ban inside one poll is pointless; a short pause is not.
        if (wait > 5_000)
          throw new ExporterError('UPSTREAM_RATE_LIMITED', `${endpoint}: backing off for ${Math.ceil(wait / 1000)} s after the node refused requests`);
        await delay(wait, undefined, { signal }).catch((err: unknown) => {
          signal.throwIfAborted(); // the deadline's own reason, as the pacer's wait gives
          throw err;
        });
      }
      await this.pacer.bucket.take(signal);
      try {
        return await this.once(fullPath, bound, endpoint, signal);
      } catch (err) {
        if (signal.aborted) throw timeoutError(endpoint, signal.reason ?? err);
        if (err instanceof UpstreamHttpError) {
          if (err.status === 403) {
            this.forbidden(err, endpoint);
            throw err;
          }
          if (err.status === 429) this.backOff(err.retryAfterSeconds ?? 1);
          if (!RETRYABLE_STATUS.has(err.status)) throw err;
        } else if (err instanceof ExporterError && err.code !== 'UPSTREAM_CONNECT' && err.code !== 'UPSTREAM_TIMEOUT') {
          throw err; // bad JSON or an oversized body will not improve on retry
        }
        if (attempt >= this.opts.retries) throw err;
        attempt++;
        // Exponential backoff with full jitter, inside the caller's deadline.
        await delay(Math.random() * Math.min(2_000, 100 * 2 ** attempt), undefined, { signal }).catch(() => {
          throw timeoutError(endpoint, err);
        });
      }
    }
  }

  private async once(path: string, bound: BodyBound, endpoint: string, outer: AbortSignal): Promise<Response> {
    const linked = linkedSignal([outer], this.opts.requestTimeoutMs, `${endpoint} request`);
    const releases: (() => void)[] = [];
    let answered = false;
    const release = (): void => releases.forEach((r) => r());
    try {
      for (const b of this.opts.budgets ?? []) releases.push(await b.acquire(bound.bytes * HELD_PER_BYTE, linked.signal, endpoint));
      const res = await this.request(path, bound, endpoint, linked.signal);
      answered = true;
      // The caller takes the answer in the microtasks that follow; held until it next yields to
      // the event loop (a walk takes each page before asking the next; what it keeps across
      // pages has its own budget, bounds.ts KeptBytes). The markets collectors read a large answer
      // over a few turns (engine/turns.ts) and may ask for a market or an asset meanwhile: were
      // the answer still reserved, those requests would wait for the poll they are part of. What
      // is held past the reservation is bounded by the polls: one answer per network and collector.
      setImmediate(release);
      return res;
    } finally {
      if (!answered) release();
      linked.dispose();
    }
  }

  private async request(path: string, bound: BodyBound, endpoint: string, signal: AbortSignal): Promise<Response> {
    const t0 = performance.now();
    const ended = (failed: boolean): void => this.opts.onResponse?.(endpoint, failed, (performance.now() - t0) / 1000);
    let res;
    try {
      res = await this.pool.request({
        path,
        method: 'GET',
        headers: this.opts.lists.has(endpoint) ? this.headers.list : this.headers.single,
        signal,
      });
    } catch (err) {
      this.opts.onRequest?.(endpoint, 'error');
      ended(true);
      throw classify(endpoint, err, signal);
    }
    this.opts.onRequest?.(endpoint, statusLabel(res.statusCode));
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    // A 2xx body is checked as it arrives, and abandoned at its first excess.
    const scan = ok ? new ShapeScan(bound, endpoint) : undefined;
    let raw: Buffer | undefined;
    try {
      raw = await this.body(res, bound.bytes, endpoint, signal, scan);
    } catch (err) {
      ended(!scan?.refused);
      throw err;
    }
    ended(res.statusCode === 429 || res.statusCode >= 500);
    if (!ok) {
      try {
        checkShape(raw, bound, endpoint);
      } catch {
        raw = Buffer.alloc(0); // an error body beyond the bound is not read: the status alone is decoded
      }
    }
    const bytes = raw.length;
    const text = raw.toString('utf8');
    raw = undefined; // not held while the text is parsed: a large body is then two copies, not three
    const json = parseJson(text, bytes, res.statusCode, endpoint);
    if (!ok) throw httpError(endpoint, res.statusCode, res.headers, json);
    return { status: res.statusCode, headers: res.headers, json };
  }

  /**
   * The body, capped before and after gunzip; on any failure the rest is abandoned. A gzip body is
   * decompressed as it arrives, on zlib's thread pool: a large one never holds the serving thread.
   */
  private async body(res: Dispatcher.ResponseData, cap: number, endpoint: string, signal: AbortSignal, scan?: ShapeScan): Promise<Buffer> {
    const tooBig = (): ExporterError => tooLarge(endpoint, cap);
    try {
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > cap) throw tooBig();
      const body = res.body as AsyncIterable<Buffer>;
      if (String(res.headers['content-encoding'] ?? '').toLowerCase() !== 'gzip') return await readCapped(body, declared, tooBig, cap, scan);
      const gunzip = createGunzip({ chunkSize: gunzipChunk(declared) });
      // An error of either side reaches the reader through the gunzip stream, which pipeline destroys with it.
      pipeline(capped(body, cap, tooBig), gunzip, () => {});
      try {
        return await readCapped(gunzip, NaN, tooBig, cap, scan);
      } catch (err) {
        if (typeof (err as { errno?: unknown }).errno === 'number' && String((err as { code?: unknown }).code).startsWith('Z_'))
          throw new ExporterError('UPSTREAM_BAD_JSON', `${endpoint}: response body is not valid gzip`, { cause: err });
        throw err;
      } finally {
        gunzip.destroy();
      }
    } catch (err) {
      // Abandon the rest of the body; undici reports the abort on the stream, which nobody reads now.
      res.body.on('error', () => {});
      res.body.destroy();
      if (err instanceof ExporterError) throw err;
      throw classify(endpoint, err, signal);
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/** zlib's own output chunk, and the largest one. */
const MIN_GUNZIP_CHUNK = 16 * 1024;
const MAX_GUNZIP_CHUNK = 1024 * 1024;

/**
 * The gunzip output chunk for a body of `compressed` bytes (NaN: not declared). A small body gets
 * zlib's 16 KiB: a chunk sized for the largest body, allocated per answer, costs more than the
 * gunzip. A larger one gets chunks up to 1 MiB, above glibc's mmap threshold (the launch settings),
 * so a gzip bomb's megabytes go back to the system instead of fragmenting the heap. Deflate expands
 * at most about a thousandfold: a body declared small cannot become a bomb of much.
 */
function gunzipChunk(compressed: number): number {
  if (!Number.isFinite(compressed)) return MAX_GUNZIP_CHUNK;
  return Math.min(MAX_GUNZIP_CHUNK, Math.max(MIN_GUNZIP_CHUNK, 2 ** Math.ceil(Math.log2(Math.max(1, compressed) * 8))));
}

/** The chunks of `body`, failing once more than `cap` bytes have come (the compressed side of a gzip body). */
async function* capped(body: AsyncIterable<Buffer>, cap: number, tooBig: () => Error): AsyncIterable<Buffer> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) throw tooBig();
    yield chunk;
  }
}

/**
 * Read a body into one buffer, at most `cap` bytes: sized by Content-Length when declared, else
 * grown by doubling. The network's chunks are copied and dropped at once, so they stay small and
 * reused, and the one large buffer (above glibc's mmap threshold under the launch settings) goes
 * back to the system when freed: an over-cap episode does not leave the heap fragmented and
 * resident memory high (docs/reliability.md, Attacks). `scan` checks each chunk's bytes as they come.
 */
async function readCapped(body: AsyncIterable<Buffer>, declared: number, tooBig: () => Error, cap: number, scan?: ShapeScan): Promise<Buffer> {
  let buf = Buffer.allocUnsafeSlow(Number.isFinite(declared) && declared >= 0 ? declared : 64 * 1024);
  let size = 0;
  for await (const chunk of body) {
    const next = size + chunk.length;
    if (next > cap) throw tooBig();
    if (next > buf.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(cap, Math.max(next, buf.length * 2)));
      buf.copy(grown, 0, 0, size);
      buf = grown;
    }
    chunk.copy(buf, size);
    size = next;
    scan?.feed(buf, size);
  }
  return size === buf.length ? buf : buf.subarray(0, size);
}

/** JSON of a body; a 2xx body that is not JSON is an error, an error body that is not is undefined. */
function parseJson(text: string, bytes: number, status: number, endpoint: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (status >= 200 && status < 300)
      throw new ExporterError('UPSTREAM_BAD_JSON', `${endpoint}: response body is not valid JSON (${bytes} bytes)`, { cause: err });
    return undefined;
  }
}

function tooLarge(endpoint: string, cap: number): ExporterError {
  return new ExporterError('UPSTREAM_BODY_TOO_LARGE', `${endpoint}: response body exceeds the ${cap}-byte cap`);
}

function timeoutError(endpoint: string, cause: unknown): ExporterError {
  return new ExporterError('UPSTREAM_TIMEOUT', `${endpoint}: deadline exceeded`, { cause });
}

function classify(endpoint: string, err: unknown, signal: AbortSignal): ExporterError {
  if (signal.aborted) return timeoutError(endpoint, err); // whichever deadline fired
  if (err instanceof ExporterError) return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return timeoutError(endpoint, err);
  }
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return new ExporterError('UPSTREAM_CONNECT', `${endpoint}: ${code ?? 'connection failed'}`, { cause: err });
}

function header(h: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Decode `{code, message, details:[{code, message}]}`; anything else still yields a typed error. */
function httpError(endpoint: string, status: number, headers: Record<string, string | string[] | undefined>, body: unknown): UpstreamHttpError {
  let grpc: number | undefined;
  let detailCode: number | undefined;
  let text: string | undefined;
  if (typeof body === 'object' && body !== null) {
    const b = body as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof b.code === 'number') grpc = b.code;
    if (typeof b.message === 'string') text = b.message;
    const d = Array.isArray(b.details) ? (b.details[0] as { code?: unknown; message?: unknown } | undefined) : undefined;
    if (d && typeof d.code === 'number') detailCode = d.code;
    if (d && typeof d.message === 'string' && d.message !== '') text = d.message;
  }
  if (text !== undefined && text.length > 200) text = `${text.slice(0, 200)}…`;
  const retry = Number(
    header(headers, 'ratelimit-retry-after') ?? header(headers, 'retry-after') ?? (status === 429 ? header(headers, 'ratelimit-reset') : undefined),
  );
  return new UpstreamHttpError(status, endpoint, grpc, detailCode, text, Number.isFinite(retry) && retry >= 0 ? retry : undefined);
}
