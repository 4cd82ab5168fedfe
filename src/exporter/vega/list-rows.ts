/**
 * The row bounds of the lists more than one module reads (http/bounds.ts, vega/endpoints.ts): each
 * list has one bound, however many read it. A list only one collector reads is declared in its file.
 */
import { KIB, MAX_LIST_ROWS, type ListRowBound } from '../http/bounds.js';

/**
 * One market of a `markets` answer: about one and a half times the largest of the contract fixtures.
 * It carries names, tags and an Ethereum oracle's ABI as text, so its longest string is 8 KiB; a page
 * of every product and data source kind uses about 160 keys. 500 a page: a large row, and a page
 * blocks the exporter while it is parsed. Read by the directory (one market by id) and by the
 * markets and consistency collectors.
 */
export const MARKET_ROW: ListRowBound = { bytes: 16 * KIB, tokens: 600, containers: 80, string: 8 * KIB, keys: 512, page: 500 };

/** One key rotation of a `rotations` page: read by the key_rotations and consistency collectors. */
export const ROTATION_ROW: ListRowBound = { bytes: KIB, tokens: 30, containers: 4, string: KIB, keys: 128, page: MAX_LIST_ROWS };
