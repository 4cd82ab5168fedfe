/**
 * What one endpoint's answer can hold: its bytes, its JSON tokens, the elements of any one array, its
 * nesting, its longest string and its distinct object keys. A body beyond them is refused by a
 * structural scan before JSON.parse, so the parse's time and memory are bounded by the endpoint, not
 * only by the configured byte cap: a few megabytes of `{}` cost seconds and hundreds of megabytes to
 * parse, and every new key costs the parse a hidden class. An answer is one message unless its
 * endpoint is a list, whose row bound the client is given (ClientOptions.lists) by the code that
 * reads it (vega/endpoints.ts).
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

/** Deeper than any answer of the API (its deepest nests about ten levels). */
export const MAX_DEPTH = 32;

export const KIB = 1024;

/**
 * One message (an object, an error). Its strings are ids (64 hex), hashes, versions, times, peer
 * addresses and amounts (at most 78 digits for a uint256): 4 KiB is ample. Its keys: the largest
 * message of the node's API has fewer than 50 (datanode-api.md).
 */
const SINGLE: BodyBound = { bytes: 256 * KIB, tokens: 20_000, containers: 2_000, items: 1_000, string: 4 * KIB, keys: 256 };

/** What one row of a list answer can hold; whoever reads the list declares it (the bound of a page of it is listBound). */
export interface ListRowBound {
  bytes: number;
  tokens: number;
  containers: number;
  /** Longest string of a row, and distinct keys of a whole answer (the row's fields and the envelope's). */
  string: number;
  keys: number;
  /** Rows asked for a page: the bound is sized for this many (more than this is never asked). */
  page: number;
}

/** Unpaginated lists hold at most this many rows. */
export const MAX_LIST_ROWS = 5_000;

/** The page size to ask a list of `row`s for: the configured one, never above what its bound is sized for. */
export function pageRows(row: ListRowBound, configured: number): number {
  return Math.min(configured, row.page);
}

/**
 * The bound of an answer: a page of `rows` rows of a list (`row` defined) when the request pages or
 * names how many rows it wants (one by id), else an unpaginated list's; one message when `row` is
 * undefined. Never above the configured byte cap.
 */
export function bodyBound(row: ListRowBound | undefined, rows: number | undefined, maxBytes: number): BodyBound {
  const bound = row ? listBound(row, rows ?? MAX_LIST_ROWS) : SINGLE;
  return { ...bound, bytes: Math.min(maxBytes, bound.bytes) };
}

function listBound(row: ListRowBound, rows: number): BodyBound {
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
 * Refuse a body beyond `bound` before it is parsed: one pass over its bytes, stopping at the first
 * excess (UTF-8 continuation bytes never equal the ASCII structural characters). Malformed JSON is
 * left for JSON.parse to report.
 */
export function checkShape(buf: Uint8Array, bound: BodyBound, endpoint: string): void {
  new ShapeScan(bound, endpoint).feed(buf, buf.length);
}

/**
 * checkShape as the body arrives: each call scans the bytes added since the last one, so a large
 * body is checked a network read at a time, between other work, instead of in one pass that holds
 * the event loop once it has all come.
 */
export class ShapeScan {
  private readonly arrayItems = new Int32Array(MAX_DEPTH + 1); // per open container: elements so far, -1 for an object
  private readonly keys = new Set<string>();
  private depth = 0;
  private tokens = 0;
  private containers = 0;
  private inString = false;
  private start = 0; // of the string being read, or of the last one read (its opening quote)
  private end = -1; // of the last string read (its closing quote); a ':' after it makes it a key
  /** The next byte to scan (past the end after an escape split from what it escapes). */
  private at = 0;
  /** Whether the body went beyond the bound. */
  refused = false;

  constructor(
    private readonly bound: BodyBound,
    private readonly endpoint: string,
  ) {}

  /** Scan up to `size`: `buf` holds the whole body so far (it may have been copied to a larger buffer since the last call). */
  feed(buf: Uint8Array, size: number): void {
    const { bound, endpoint, arrayItems, keys } = this;
    const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    let { depth, tokens, containers, inString, start, end } = this;
    let i = this.at;
    try {
      for (; i < size; i++) {
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
    } catch (err) {
      this.refused = true;
      throw err;
    } finally {
      this.depth = depth;
      this.tokens = tokens;
      this.containers = containers;
      this.inString = inString;
      this.start = start;
      this.end = end;
      this.at = i;
    }
  }
}

function tooComplex(endpoint: string, what: string): ExporterError {
  return new ExporterError('UPSTREAM_BODY_TOO_LARGE', `${endpoint}: response body ${what}, beyond what this endpoint can hold`);
}
