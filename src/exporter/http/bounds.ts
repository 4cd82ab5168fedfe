/**
 * What one endpoint's answer can hold, sized from the data node's magnitudes (datanode-api.md): its
 * bytes, its JSON tokens, the elements of any one array, its nesting, its longest string and its
 * distinct object keys. A body beyond them is refused by a structural scan before JSON.parse, so the
 * parse's time and memory are bounded by the endpoint, not only by the configured byte cap: a few
 * megabytes of `{}` cost seconds and hundreds of megabytes to parse, and every new key costs the
 * parse a hidden class. What a walk keeps across pages has a byte budget of its own (KeptBytes).
 */
import { ExporterError } from '../errors.js';

export interface BodyBound {
  bytes: number;
  /** Objects, arrays, strings (keys included) and elements, counted by their separators. */
  tokens: number;
  /** Objects and arrays: what a parse costs most for. */
  containers: number;
  /** Elements of any one array. */
  items: number;
  /** Bytes of any one string (keys included) as sent, escapes counted as sent. */
  string: number;
  /** Distinct object keys in the whole body. */
  keys: number;
}

/** Deeper than any answer of the node's API (a market nests about ten levels). */
export const MAX_DEPTH = 32;

const KIB = 1024;

/**
 * One message: statistics, info, epoch, network data, an asset, an order, an error. Its strings are
 * ids (64 hex), hashes, versions, times, peer addresses and amounts (at most 78 digits for a uint256):
 * 4 KiB is ample. Its keys: the largest (epoch, statistics) has fewer than 50.
 */
const SINGLE: BodyBound = { bytes: 256 * KIB, tokens: 20_000, containers: 2_000, items: 1_000, string: 4 * KIB, keys: 256 };

interface Row {
  bytes: number;
  tokens: number;
  containers: number;
  /** Longest string of a row, and distinct keys of a whole answer (the row's fields and the envelope's). */
  string: number;
  keys: number;
  /** Rows asked for a page: the bound is sized for this many (more than this is never asked). */
  page: number;
}

/** Unpaginated lists (`/markets`, markets data, segments) hold at most this many rows. */
export const MAX_LIST_ROWS = 5_000;

/**
 * A row's bound on each list: about one and a half times the largest row of the contract fixtures.
 * Strings: ids are 64 hex characters, a signature 88 base64 ones, amounts at most 78 digits (uint256),
 * so 1 KiB; a market carries names, tags and an Ethereum oracle's ABI as text, so 8 KiB. Keys: a
 * market page of every product and data source kind uses about 160, the other rows fewer than 80.
 * Pages: markets 500 and positions 1,000 (large rows, parsed while the exporter waits; a position is
 * 18 series, so 1,000 of them already pass a collector's share at the default limits).
 */
const ROWS: Record<string, Row> = {
  markets: { bytes: 16 * KIB, tokens: 600, containers: 80, string: 8 * KIB, keys: 512, page: 500 },
  markets_data: { bytes: 4 * KIB, tokens: 200, containers: 20, string: KIB, keys: 256, page: MAX_LIST_ROWS },
  positions: { bytes: 2 * KIB, tokens: 60, containers: 4, string: KIB, keys: 128, page: 1_000 },
  parties: { bytes: KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS },
  rotations: { bytes: KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS },
  signatures: { bytes: 2 * KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS },
  networkhistory_segments: { bytes: KIB, tokens: 40, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS },
};

/** Whether `endpoint` answers with a list (rather than one message: statistics, info, …). */
export function isList(endpoint: string): boolean {
  return ROWS[endpoint] !== undefined;
}

/** The bytes one row of `endpoint`'s lists is sized for. */
export function rowBytes(endpoint: string): number {
  return ROWS[endpoint]?.bytes ?? SINGLE.bytes;
}

/** The page size to ask `endpoint` for: the configured one, never above what its bound is sized for. */
export function pageRows(endpoint: string, configured: number): number {
  return Math.min(configured, ROWS[endpoint]?.page ?? MAX_LIST_ROWS);
}

/**
 * The bound of `endpoint`'s answers: a page of `rows` rows when the request pages or names how many
 * rows it wants (one market by id), else an unpaginated list's; never above the configured byte cap.
 */
export function bodyBound(endpoint: string, rows: number | undefined, maxBytes: number): BodyBound {
  const row = ROWS[endpoint];
  const bound = row ? listBound(row, rows ?? MAX_LIST_ROWS) : SINGLE;
  return { ...bound, bytes: Math.min(maxBytes, bound.bytes) };
}

function listBound(row: Row, rows: number): BodyBound {
  // A node may send more rows than asked: any one array may hold a full unpaginated list, as long
  // as the whole body stays within the rows asked for.
  return {
    bytes: rows * row.bytes + SINGLE.bytes,
    tokens: rows * row.tokens + SINGLE.tokens,
    containers: rows * row.containers + SINGLE.containers,
    items: MAX_LIST_ROWS,
    string: row.string,
    keys: row.keys,
  };
}

/**
 * What one walk may keep across its pages (ids and strings held until it ends: the keys of rows
 * seen, the rows' label values), in UTF-16 code units of the strings held. Every page is bounded on
 * its own; without this a walk of max_pages pages could hold them all.
 */
export const WALK_KEPT_BYTES = 8 * 1024 * KIB;

/** A walk's budget for what it keeps; beyond it the walk fails (UPSTREAM_LIST_TOO_LARGE). */
export class KeptBytes {
  total = 0;

  constructor(
    private readonly endpoint: string,
    readonly limit = WALK_KEPT_BYTES,
  ) {}

  /** Count strings held until the walk ends; past the budget the collector fails with one log line. */
  keep(...strings: string[]): void {
    for (const s of strings) this.total += s.length;
    this.check();
  }

  /** Count a parsed row held until the walk ends: its strings' lengths (its keys are shared with every other row). */
  keepRow(row: unknown): void {
    this.total += stringLength(row);
    this.check();
  }

  private check(): void {
    if (this.total > this.limit) {
      throw new ExporterError(
        'UPSTREAM_LIST_TOO_LARGE',
        `${this.endpoint}: the list's rows hold more than ${this.limit} bytes of ids and strings, beyond what a walk keeps`,
      );
    }
  }
}

/** The lengths of the strings in a parsed JSON value (its nesting is bounded by the scan). */
function stringLength(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) n += stringLength(x);
  return n;
}

/**
 * Refuse a body beyond `bound` before it is parsed: one pass over its bytes, stopping at the first
 * excess (UTF-8 continuation bytes never equal the ASCII structural characters). Malformed JSON is
 * left for JSON.parse to report.
 */
export function checkShape(buf: Uint8Array, bound: BodyBound, endpoint: string): void {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const arrayItems = new Int32Array(MAX_DEPTH + 1); // per open container: elements so far, -1 for an object
  const keys = new Set<string>();
  let depth = 0;
  let tokens = 0;
  let containers = 0;
  let inString = false;
  let start = 0; // of the string being read, or of the last one read (its opening quote)
  let end = -1; // of the last string read (its closing quote); a ':' after it makes it a key
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        end = i;
        if (i - start - 1 > bound.string) throw tooComplex(endpoint, `holds a string longer than ${bound.string} bytes`);
      }
      continue;
    }
    if (c === 0x3a) {
      // A key: decoded as bytes (latin1), which tells distinct UTF-8 keys apart as well.
      if (end > start) keys.add(text.toString('latin1', start + 1, end));
      if (keys.size > bound.keys) throw tooComplex(endpoint, `holds more than ${bound.keys} distinct object keys`);
      end = -1;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      start = i;
      end = -1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) throw tooComplex(endpoint, `nests deeper than ${MAX_DEPTH} levels`);
      arrayItems[depth] = c === 0x5b ? 1 : -1;
      if (++containers > bound.containers) throw tooComplex(endpoint, `holds more than ${bound.containers} objects and arrays`);
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--;
      continue;
    } else if (c === 0x2c) {
      if (arrayItems[depth]! > 0 && ++arrayItems[depth]! > bound.items) throw tooComplex(endpoint, `has an array of more than ${bound.items} elements`);
    } else {
      continue;
    }
    if (++tokens > bound.tokens) throw tooComplex(endpoint, `holds more than ${bound.tokens} JSON tokens`);
  }
}

function tooComplex(endpoint: string, what: string): ExporterError {
  return new ExporterError('UPSTREAM_BODY_TOO_LARGE', `${endpoint}: response body ${what}, beyond what this endpoint can hold`);
}
