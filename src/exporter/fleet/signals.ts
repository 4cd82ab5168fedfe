/**
 * Fleet logic, pure: which network each target belongs to, which target a network-scoped
 * collector should ask first, and the cross-node signals (height lag, chain-id and version
 * disagreement, data agreement).
 */
import { FLEET } from './metrics.js';
import type { Sample } from '../engine/labels.js';

/** What the fleet logic reads about a node's core from its last poll (the facts vega/facts.ts names). */
export interface NodeFacts {
  chainId?: string | undefined;
  appVersion?: string | undefined;
  height?: bigint | undefined;
  datanodeHeight?: bigint | undefined;
  /** Core's block time (vegaTime), its clock at the answer (currentTime), and the last block interval, in ns. */
  blockTimeNs?: bigint | undefined;
  currentTimeNs?: bigint | undefined;
  blockDurationNs?: bigint | undefined;
}

export interface TargetView {
  name: string;
  /** The network the configuration puts this target in, if any. */
  configuredNetwork?: string | undefined;
  /** The last statistics poll succeeded. */
  healthy: boolean;
  /** From the last successful statistics poll. */
  facts?: NodeFacts | undefined;
  /** That poll's place in time, for comparing heights at one moment (trackPoll). */
  poll?: PollTrack | undefined;
  /** From the last successful consistency poll. */
  fingerprint?: { value: string; height?: bigint | undefined } | undefined;
  /** From the last successful datanode_info poll. */
  datanodeVersion?: string | undefined;
  /** From the last successful history_segments poll: the newest segment's toHeight. */
  segmentHeight?: bigint | undefined;
}

/** A statistics poll: when it was answered (exporter clock, ms) and the height it read. */
export interface PollTrack {
  at: number;
  height: bigint;
  blockTimeNs?: bigint | undefined;
  /** The height moved since the poll before (unknown after the first poll). */
  advancing?: boolean | undefined;
  /** The mean block interval (ns) over the last polls that saw the height move. */
  intervalNs?: bigint | undefined;
}

/** The track after a new poll answered at `at`. */
export function trackPoll(prev: PollTrack | undefined, at: number, height: bigint, blockTimeNs: bigint | undefined): PollTrack {
  const next: PollTrack = { at, height, blockTimeNs };
  if (prev === undefined) return next;
  next.advancing = height > prev.height;
  const t0 = prev.blockTimeNs;
  if (next.advancing && blockTimeNs !== undefined && t0 !== undefined && blockTimeNs > t0) next.intervalNs = (blockTimeNs - t0) / (height - prev.height);
  else next.intervalNs = prev.intervalNs;
  return next;
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
 * For each value, whether it disagrees: with a strict majority when there is one, and every value
 * when there is none (nobody can be trusted). Unanimous values never disagree.
 */
export function disagreement(values: readonly string[]): boolean[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size <= 1) return values.map(() => false);
  let top: string | undefined;
  for (const [v, n] of counts) if (n * 2 > values.length) top = v;
  return values.map((v) => top === undefined || v !== top);
}

function groupBy<T>(items: readonly T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    if (k === undefined) continue;
    const list = out.get(k);
    if (list) list.push(it);
    else out.set(k, [it]);
  }
  return out;
}

export function fleetSamples(views: readonly TargetView[], toleranceBlocks: number): Sample[] {
  const out: Sample[] = [];
  const byNetwork = groupBy(views, networkOf);
  for (const [network, members] of [...byNetwork].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const healthy = members.filter((t) => t.healthy && t.facts?.height !== undefined);
    for (const t of members) out.push({ metric: FLEET.targetNetwork, values: [t.name, network], value: 1 });
    out.push({ metric: FLEET.networkHealthyTargets, values: [network], value: healthy.length });

    // Heights are compared at one moment, the network's newest poll: polls at different instants
    // would otherwise read as lag.
    const at = healthy.reduce((m, t) => Math.max(m, t.poll?.at ?? -Infinity), -Infinity);
    const carried = healthy.map((t) => heightAt(t, at));
    const max = carried.reduce((m, h) => (h > m ? h : m), 0n);
    healthy.forEach((t, i) => out.push({ metric: FLEET.fleetHeightLag, values: [t.name, network], value: Number(max - carried[i]!) }));

    const versioned = healthy.filter((t) => t.facts?.appVersion !== undefined);
    disagreement(versioned.map((t) => t.facts!.appVersion!)).forEach((bad, i) => {
      out.push({ metric: FLEET.fleetVersionMismatch, values: [versioned[i]!.name, network], value: bad ? 1 : 0 });
    });

    const dnVersioned = healthy.filter((t) => t.datanodeVersion !== undefined);
    disagreement(dnVersioned.map((t) => t.datanodeVersion!)).forEach((bad, i) => {
      out.push({ metric: FLEET.fleetDatanodeVersionMismatch, values: [dnVersioned[i]!.name, network], value: bad ? 1 : 0 });
    });
    out.push(...segmentLag(healthy, network));

    // Data agreement among nodes at about the same height: a node far behind is not compared
    // (its lag is reported by the height signals instead).
    const printed = healthy.filter((t) => t.fingerprint !== undefined);
    const heights = printed
      .map((t) => t.fingerprint!.height)
      .filter((h): h is bigint => h !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const ref = heights[Math.floor(heights.length / 2)];
    const comparable = printed.filter((t) => {
      const h = t.fingerprint!.height;
      if (h === undefined || ref === undefined) return true;
      const d = h > ref ? h - ref : ref - h;
      return d <= BigInt(toleranceBlocks);
    });
    disagreement(comparable.map((t) => t.fingerprint!.value)).forEach((bad, i) => {
      out.push({ metric: FLEET.fleetDataAgreement, values: [comparable[i]!.name, network], value: bad ? 0 : 1 });
    });
  }

  // Chain ids are compared within a configured network, and across all targets that have none.
  const groups = groupBy(
    views.filter((t) => t.healthy && t.facts?.chainId !== undefined),
    (t) => t.configuredNetwork ?? '*',
  );
  for (const [group, members] of groups) {
    disagreement(members.map((t) => t.facts!.chainId!)).forEach((bad, i) => {
      out.push({ metric: FLEET.fleetChainIdMismatch, values: [members[i]!.name, group], value: bad ? 1 : 0 });
    });
  }
  return out;
}

/**
 * The height a node had at `atMs`, carried forward from its last poll by the block boundaries
 * crossed since: its last block was `currentTime − vegaTime` old when it answered, and blocks come
 * at the mean interval measured between its last two polls (`blockDuration` before that). Block
 * times place the boundaries, so nodes polled at different phases of a block agree. A node that did
 * not advance between its last two polls (halted or stuck) is not carried: it is where it was.
 */
export function heightAt(t: TargetView, atMs: number): bigint {
  const f = t.facts!;
  const h = f.height!;
  const p = t.poll;
  const d = p?.intervalNs ?? f.blockDurationNs;
  if (p === undefined || p.advancing === false || !(atMs > p.at) || d === undefined || d <= 0n) return h;
  if (f.blockTimeNs === undefined || f.currentTimeNs === undefined) return h;
  const age = f.currentTimeNs > f.blockTimeNs ? f.currentTimeNs - f.blockTimeNs : 0n;
  const since = BigInt(Math.round((atMs - p.at) * 1e6));
  return h + (age + since) / d - age / d;
}

/**
 * Segment lag against the data node's own height: segments are cut from the blocks the data node
 * has processed, so a data node that trails its core (alerted on its own) does not also show as
 * late with its segments. Core height stands in when the data node does not send its height.
 */
function segmentLag(healthy: readonly TargetView[], network: string): Sample[] {
  const out: Sample[] = [];
  for (const t of healthy) {
    const h = t.facts?.datanodeHeight ?? t.facts?.height;
    if (h === undefined || t.segmentHeight === undefined) continue;
    out.push({ metric: FLEET.historySegmentLag, values: [t.name, network], value: h > t.segmentHeight ? Number(h - t.segmentHeight) : 0 });
  }
  return out;
}
