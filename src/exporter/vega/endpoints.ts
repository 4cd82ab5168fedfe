/**
 * The lists of the node's API that the exporter reads, by endpoint label, each with its row's bound:
 * declared by the collectors (and the directory) that read them, gathered here for the client
 * (ClientOptions.lists) and the request classes of the API's service levels. An endpoint not listed
 * is answered with one message.
 *
 * A row's bound is about one and a half times the largest row of the contract fixtures. Strings: ids
 * are 64 hex characters, a signature 88 base64 ones, amounts at most 78 digits (uint256), so 1 KiB
 * (a market's 8 KiB: list-rows.ts). Keys: fewer than 80 in any row but a market's.
 */
import type { ListEndpoints } from '../engine/define.js';
import type { ListRowBound } from '../http/bounds.js';
import { COLLECTORS } from './collectors/index.js';
import { DIRECTORY_ENDPOINTS } from './directory.js';

/** Every declaration of every endpoint; a label read by several modules names one bound, which they share. */
export const ENDPOINT_DECLARATIONS: readonly ListEndpoints[] = [DIRECTORY_ENDPOINTS, ...COLLECTORS.map((c) => c.endpoints ?? {})];

export const ENDPOINT_ROWS: ReadonlyMap<string, ListRowBound> = new Map(ENDPOINT_DECLARATIONS.flatMap((d) => Object.entries(d)));

/** Whether `endpoint` answers with a list (rather than one message: statistics, info, …). */
export function isList(endpoint: string): boolean {
  return ENDPOINT_ROWS.has(endpoint);
}
