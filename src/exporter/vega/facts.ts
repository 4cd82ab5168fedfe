/** What the Vega collectors learn about a node beyond its series, for the fleet's cross-target signals. */
import { defineFact } from '../engine/facts.js';

/** statistics.chainId: names the node's network ("" while it replays). */
export const CHAIN_ID = defineFact<string>('chainId');
/** statistics.appVersion: the core's version. */
export const APP_VERSION = defineFact<string>('appVersion');
/** statistics.blockHeight: core height. */
export const HEIGHT = defineFact<bigint>('height');
/** Header X-Block-Height: the last block the data node itself processed. */
export const DATANODE_HEIGHT = defineFact<bigint>('datanodeHeight');
/** Core's block time (vegaTime) and its clock at the answer (currentTime), in ns since the epoch. */
export const BLOCK_TIME_NS = defineFact<bigint>('blockTimeNs');
export const CURRENT_TIME_NS = defineFact<bigint>('currentTimeNs');
/** The last block interval, in ns. */
export const BLOCK_DURATION_NS = defineFact<bigint>('blockDurationNs');
/** A digest of the node's view of network data, and the data-node height it was taken at. */
export const FINGERPRINT = defineFact<string>('fingerprint');
export const FINGERPRINT_HEIGHT = defineFact<bigint>('fingerprintHeight');
/** The data node's own version (GET /api/v2/info), apart from the core's. */
export const DATANODE_VERSION = defineFact<string>('datanodeVersion');
/** The toHeight of the node's newest network-history segment. */
export const SEGMENT_HEIGHT = defineFact<bigint>('segmentHeight');
