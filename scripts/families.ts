/** Every family by its key, for the docs generators and tests that name a few: each collector's own, the fleet's and the exporter's. */
import { SELF } from '../src/exporter/engine/self-metrics.js';
import { FLEET } from '../src/exporter/fleet/metrics.js';
import { M as STATISTICS } from '../src/exporter/vega/collectors/statistics.js';
import { M as NETWORK_HISTORY } from '../src/exporter/vega/collectors/network-history.js';
import { M as KEY_ROTATIONS } from '../src/exporter/vega/collectors/key-rotations.js';
import { M as MARKETS } from '../src/exporter/vega/collectors/markets.js';
import { M as POSITIONS } from '../src/exporter/vega/collectors/positions.js';
import { M as DATANODE_INFO } from '../src/exporter/vega/collectors/datanode-info.js';
import { M as HISTORY_SEGMENTS } from '../src/exporter/vega/collectors/history-segments.js';
import { M as MARKET_DATA } from '../src/exporter/vega/collectors/market-data.js';
import { M as NETWORK_DATA } from '../src/exporter/vega/collectors/network-data.js';
import { M as PARTIES } from '../src/exporter/vega/collectors/parties.js';
import { M as NODE_SIGNATURES } from '../src/exporter/vega/collectors/node-signatures.js';
import { M as ORDERS } from '../src/exporter/vega/collectors/orders.js';

export const M = {
  ...STATISTICS,
  ...NETWORK_HISTORY,
  ...KEY_ROTATIONS,
  ...MARKETS,
  ...POSITIONS,
  ...DATANODE_INFO,
  ...HISTORY_SEGMENTS,
  ...MARKET_DATA,
  ...NETWORK_DATA,
  ...PARTIES,
  ...NODE_SIGNATURES,
  ...ORDERS,
  ...FLEET,
  ...SELF,
} as const;
