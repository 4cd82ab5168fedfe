/**
 * Fleet logic, pure: which network each target belongs to, which target a network-scoped
 * collector should ask first, which shard polls a network, and what one node contributes to the
 * cross-node comparisons (the comparisons themselves are Prometheus recording rules:
 * prometheus/alerts.yml, docs/fleet.md).
 */
import { FLEET } from './metrics.js';
import type { Sample } from '../engine/labels.js';
import { fnv1a } from '../hash.js';
import { shardOf } from './shard.js';

/** What the fleet logic reads about a node's core from its last poll (the facts vega/facts.ts names). */
export interface NodeFacts {
  chainId?: string | undefined;
  height?: bigint | undefined;
  datanodeHeight?: bigint | undefined;
}

export interface TargetView {
  name: string;
  /** The network the configuration puts this target in, if any. */
  configuredNetwork?: string | undefined;
  /** The last statistics poll succeeded. */
  healthy: boolean;
  /** From the last successful statistics poll. */
  facts?: NodeFacts | undefined;
  /** From the last successful consistency poll. */
  fingerprint?: { value: string; height?: bigint | undefined } | undefined;
  /** From the last successful history_segments poll: the newest segment's toHeight. */
  segmentHeight?: bigint | undefined;
}

/** The configured network, else the chain id (unknown while the node has not answered or replays). */
export function networkOf(t: TargetView): string | undefined {
  if (t.configuredNetwork) return t.configuredNetwork;
  const id = t.facts?.chainId;
  return id ? id : undefined;
}

/** Healthy targets first, freshest (highest data-node height, else core height) first. */
export function candidateOrder(views: readonly TargetView[]): string[] {
  const h = (t: TargetView): bigint => t.facts?.datanodeHeight ?? t.facts?.height ?? -1n;
  return [...views]
    .sort((a, b) => Number(b.healthy) - Number(a.healthy) || (h(b) > h(a) ? 1 : h(b) < h(a) ? -1 : 0) || (a.name < b.name ? -1 : 1))
    .map((t) => t.name);
}

/**
 * The shard ("i/n") whose exporter polls a network's network-scoped collectors: the shard of the
 * first (by name) target configured in that network, so that it always has a member to ask; for a
 * network known only by the chain id its targets report, the network name's FNV-1a modulo `n`.
 * Every shard reads the same target list, so all agree without talking to each other.
 */
export function networkShard(network: string, all: readonly { name: string; network?: string | undefined }[], shards: number): number {
  let first: string | undefined;
  for (const t of all) if (t.network === network && (first === undefined || t.name < first)) first = t.name;
  return first !== undefined ? shardOf(first, shards) : fnv1a(network) % shards;
}

/**
 * What one node contributes to the fleet comparisons, from its own last polls only: its network
 * (and the group its chain id is compared in), a digest of its network data as a number that
 * `count_values` can compare, the height that digest was taken at, and its segment lag.
 */
export function targetSamples(t: TargetView): Sample[] {
  const out: Sample[] = [];
  const network = networkOf(t);
  if (network === undefined) return out;
  out.push({ metric: FLEET.targetNetwork, values: [t.name, network, t.configuredNetwork ?? '*'], value: 1 });
  if (!t.healthy) return out;
  if (t.fingerprint !== undefined) {
    out.push({ metric: FLEET.dataDigest, values: [t.name], value: fnv1a(t.fingerprint.value) });
    if (t.fingerprint.height !== undefined) out.push({ metric: FLEET.dataDigestHeight, values: [t.name], value: Number(t.fingerprint.height) });
  }
  out.push(...segmentLag(t, network));
  return out;
}

/**
 * Segment lag against the data node's own height: segments are cut from the blocks the data node
 * has processed, so a data node that trails its core (alerted on its own) does not also show as
 * late with its segments. Core height stands in when the data node does not send its height.
 */
function segmentLag(t: TargetView, network: string): Sample[] {
  const h = t.facts?.datanodeHeight ?? t.facts?.height;
  if (h === undefined || t.segmentHeight === undefined) return [];
  return [{ metric: FLEET.historySegmentLag, values: [t.name, network], value: h > t.segmentHeight ? Number(h - t.segmentHeight) : 0 }];
}
