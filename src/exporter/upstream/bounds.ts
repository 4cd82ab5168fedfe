/**
 * What one endpoint's answer can hold, sized from the data node's magnitudes (datanode-api.md): its
 * bytes, its JSON tokens, the elements of any one array, and its nesting. A body beyond them is
 * refused by a structural scan before JSON.parse, so the parse's time and memory are bounded by the
 * endpoint, not only by the configured byte cap: a few megabytes of `{}` cost seconds and hundreds of
 * megabytes to parse.
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
}

/** Deeper than any answer of the node's API (a market nests about ten levels). */
export const MAX_DEPTH = 32;

const KIB = 1024;

/** One message: statistics, info, epoch, network data, an asset, a market, an order. */
const SINGLE: BodyBound = { bytes: 256 * KIB, tokens: 20_000, containers: 2_000, items: 1_000 };

type Row = Omit<BodyBound, 'items'>;

/** A row's bound on each list: about one and a half times the largest row of the contract fixtures. */
const ROWS: Record<string, Row> = {
  markets: { bytes: 16 * KIB, tokens: 600, containers: 80 },
  markets_data: { bytes: 4 * KIB, tokens: 200, containers: 20 },
  positions: { bytes: 2 * KIB, tokens: 60, containers: 4 },
  parties: { bytes: KIB, tokens: 30, containers: 4 },
  rotations: { bytes: KIB, tokens: 30, containers: 4 },
  signatures: { bytes: 2 * KIB, tokens: 30, containers: 4 },
  networkhistory_segments: { bytes: KIB, tokens: 40, containers: 4 },
};

/** Unpaginated lists (`/markets`, markets data, segments) hold at most this many rows. */
export const MAX_LIST_ROWS = 5_000;

/**
 * The bound of `endpoint`'s answers: a page of `pageSize` rows when the request pages, else an
 * unpaginated list's; never above the configured byte cap.
 */
export function bodyBound(endpoint: string, pageSize: number | undefined, maxBytes: number): BodyBound {
  const row = ROWS[endpoint];
  const bound = row ? listBound(row, pageSize ?? MAX_LIST_ROWS) : SINGLE;
  return { ...bound, bytes: Math.min(maxBytes, bound.bytes) };
}

function listBound(row: Row, rows: number): BodyBound {
  // A node may send more rows than asked: any one array may hold a full unpaginated list.
  return {
    bytes: rows * row.bytes + SINGLE.bytes,
    tokens: rows * row.tokens + SINGLE.tokens,
    containers: rows * row.containers + SINGLE.containers,
    items: MAX_LIST_ROWS,
  };
}

/**
 * Refuse a body beyond `bound` before it is parsed: one pass over its bytes, stopping at the first
 * excess (UTF-8 continuation bytes never equal the ASCII structural characters). Malformed JSON is
 * left for JSON.parse to report.
 */
export function checkShape(buf: Uint8Array, bound: BodyBound, endpoint: string): void {
  const arrayItems = new Int32Array(MAX_DEPTH + 1); // per open container: elements so far, -1 for an object
  let depth = 0;
  let tokens = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
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
