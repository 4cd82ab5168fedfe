/**
 * One node of a simulated fleet: a view of the shared network (same markets, rotations, orders,
 * counters, chain) with what differs between real nodes of one network made its own: how far its
 * core is behind the tip, its consensus and network-history peers, its seed-derived identity, and
 * its faults (a halted node freezes while the network moves on). The view is an object whose
 * prototype is the shared network, so routes and records read it exactly as they read a single
 * node's network and cost almost nothing per node.
 */
import { mix } from './rng.js';
import type { NetworkFaults, SimNetwork } from './network.js';

/** Requests one node served, by wall-clock second: the fleet reports the busiest second per node. */
export class NodeMeter {
  total = 0;
  maxPerSecond = 0;
  private second = 0;
  private inSecond = 0;

  hit(nowMs: number): void {
    const s = Math.floor(nowMs / 1000);
    if (s !== this.second) {
      this.second = s;
      this.inSecond = 0;
    }
    this.inSecond += 1;
    this.total += 1;
    if (this.inSecond > this.maxPerSecond) this.maxPerSecond = this.inSecond;
  }

  reset(): void {
    this.total = 0;
    this.maxPerSecond = 0;
    this.inSecond = 0;
  }
}

export interface NodeTraits {
  /** Blocks this node's core is behind the network's tip. */
  behindBlocks: number;
  /** Added to the network's consensus peer count. */
  peersDelta: number;
  /** How many of the network-history peer pool this node is connected to. */
  historyPeers: number;
}

/** Small, deterministic per-node differences: a few blocks behind, a few peers more or fewer. */
export function traitsOf(index: number, poolSize: number): NodeTraits {
  const h = mix(index, 0xf1ee7);
  return { behindBlocks: h % 4, peersDelta: (h >>> 4) % 5, historyPeers: 1 + ((h >>> 8) % Math.max(1, poolSize)) };
}

interface SharedInternals {
  blockTimes: Map<number, bigint>;
}

/** A node's view of `shared`: every data request passes through its sync(), which the meter counts. */
export function nodeView(shared: SimNetwork, index: number, traits: NodeTraits, meter: NodeMeter): SimNetwork {
  const view = Object.create(shared) as SimNetwork;
  const faults: NetworkFaults = { halted: false, datanodeLagBlocks: 0, peersZero: false, fixedPeers: null, replaying: false, nonFiniteDoubles: false };
  const blockTimes = (shared as unknown as SharedInternals).blockTimes;
  const pool = shared.nhPeerPool;
  const historyPeers = Array.from({ length: Math.min(traits.historyPeers, pool.length) }, (_, k) => pool[(index + k) % pool.length]!);
  let frozenAt: number | undefined;
  const height = (): number => frozenAt ?? Math.max(0, shared.height - traits.behindBlocks);
  Object.defineProperties(view, {
    faults: { value: faults },
    opts: { value: { ...shared.opts, seed: mix(shared.opts.seed, index) } },
    height: { get: height },
    blockTimeNs: { get: () => blockTimes.get(height()) ?? shared.blockTimeNs - BigInt(shared.height - height()) * shared.intervalNs },
    totalPeers: { get: () => shared.totalPeers + traits.peersDelta },
    nhConnected: { value: historyPeers },
    sync: {
      value: (): void => {
        meter.hit(shared.opts.now());
        shared.sync();
        // A halted node stops where it was; the network (and its other nodes) move on.
        if (faults.halted) frozenAt ??= Math.max(0, shared.height - traits.behindBlocks);
        else frozenAt = undefined;
      },
    },
    // What changes the network changes it for every node.
    step: { value: () => shared.step() },
    addMarket: { value: () => shared.addMarket() },
    removeMarket: { value: (id: string) => shared.removeMarket(id) },
  });
  return view;
}
