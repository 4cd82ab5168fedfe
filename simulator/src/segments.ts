/**
 * Network-history segments as a data node lists them: one segment per `segmentBlocks` blocks of the
 * data node's own height, newest first, each naming the one before. Under the stop fault the list
 * freezes where production stopped, as on a node whose IPFS store or snapshotting broke.
 */
import { Rng, mix } from './rng.js';
import type { SimNetwork } from './network.js';

/** How many segments a node lists: real nodes keep a bounded window of recent segments. */
const LISTED = 10;
const DATABASE_VERSION = '78';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Where production stopped, per network: fixed when the fault is first seen, so the lag grows. */
const stops = new WeakMap<SimNetwork, { blocks: number; at: number }>();

function stopHeight(net: SimNetwork, stoppedBlocks: number | null): number | undefined {
  if (stoppedBlocks === null) {
    stops.delete(net);
    return undefined;
  }
  let s = stops.get(net);
  if (s?.blocks !== stoppedBlocks) {
    s = { blocks: stoppedBlocks, at: Math.max(0, net.datanodeHeight() - stoppedBlocks) };
    stops.set(net, s);
  }
  return s.at;
}

/** A CIDv0-looking id ("Qm" + 44 base58 characters), the same for the same seed and segment. */
function segmentId(seed: number, toHeight: number): string {
  const rng = new Rng(mix(seed, 0x5e6, toHeight));
  let s = 'Qm';
  for (let i = 0; i < 44; i++) s += B58[rng.int(0, B58.length - 1)];
  return s;
}

export function segmentsJson(net: SimNetwork, stoppedBlocks: number | null): { segments: Record<string, unknown>[] } {
  const every = net.opts.segmentBlocks;
  const upTo = Math.min(net.datanodeHeight(), stopHeight(net, stoppedBlocks) ?? Infinity);
  const newest = Math.floor(upTo / every);
  const segments: Record<string, unknown>[] = [];
  for (let k = newest; k > 0 && k > newest - LISTED; k--) {
    const to = k * every;
    segments.push({
      fromHeight: String(to - every + 1),
      toHeight: String(to),
      historySegmentId: segmentId(net.opts.seed, to),
      // The oldest segment a node holds names no predecessor ("" as in real answers).
      previousHistorySegmentId: k - 1 > 0 && k - 1 > newest - LISTED ? segmentId(net.opts.seed, to - every) : '',
      databaseVersion: DATABASE_VERSION,
      chainId: net.opts.chainId,
    });
  }
  return { segments };
}
