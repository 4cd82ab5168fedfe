/**
 * The collector registry: every collector the exporter can run, in the order their series and
 * documentation appear. A new collector is one module (see define.ts) and one line here.
 */
import { catalogueOf } from '../../engine/catalogue.js';
import type { AnyCollectorModule } from '../../engine/define.js';
import consistency from './consistency.js';
import datanodeInfo from './datanode-info.js';
import historySegments from './history-segments.js';
import keyRotations from './key-rotations.js';
import marketData from './market-data.js';
import markets from './markets.js';
import networkData from './network-data.js';
import networkHistory from './network-history.js';
import nodeSignatures from './node-signatures.js';
import orders from './orders.js';
import parties from './parties.js';
import positions from './positions.js';
import statistics from './statistics.js';

export const COLLECTORS = [
  statistics,
  networkHistory,
  datanodeInfo,
  historySegments,
  consistency,
  keyRotations,
  markets,
  marketData,
  networkData,
  positions,
  parties,
  nodeSignatures,
  orders,
] as const satisfies readonly AnyCollectorModule[];

/** Every metric the exporter can write, in exposition order. */
export const CATALOGUE = catalogueOf(COLLECTORS);
