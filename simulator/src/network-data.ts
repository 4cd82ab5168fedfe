/**
 * GET /api/v2/network/data and GET /api/v2/epoch as a data node sends them, from the simulated
 * validators and epochs. Faults: validators that left the set, validators that went inactive.
 */
import type { SimNetwork } from './network.js';

export interface ValidatorFaults {
  /** This many validators have left the consensus set (counts shrink). */
  validatorsLeft: number;
  /** This many validators are inactive (still counted, flagged inactive). */
  validatorsInactive: number;
}

/** Each validator stakes this many whole tokens (18 decimals), plus a little per validator. */
const STAKE = 3_000_000n * 10n ** 18n;

export function networkDataJson(net: SimNetwork, f: ValidatorFaults): Record<string, unknown> {
  const n = Math.max(0, net.validators.length - f.validatorsLeft);
  const inactive = Math.min(n, f.validatorsInactive);
  let staked = 0n;
  for (let i = 0; i < n; i++) staked += STAKE + BigInt(i) * 123_456_789_000_000_000n;
  return {
    nodeData: {
      stakedTotal: staked.toString(),
      totalNodes: n,
      inactiveNodes: inactive,
      tendermintNodes: { total: n, inactive, promoted: [], demoted: [], maximum: net.validators.length },
      ersatzNodes: { total: 0, inactive: 0, promoted: [], demoted: [], maximum: 10 },
      pendingNodes: { total: 0, inactive: 0, promoted: [], demoted: [] },
      uptime: Number(net.blockTimeNs - net.startedNs) / 1e9,
    },
  };
}

export function epochJson(net: SimNetwork): Record<string, unknown> {
  const expiry = net.epochStartNs + BigInt(net.opts.epochBlocks) * net.intervalNs;
  const first = net.epochSeq * net.opts.epochBlocks;
  return {
    epoch: {
      seq: String(net.epochSeq),
      timestamps: { startTime: net.epochStartNs.toString(), expiryTime: expiry.toString(), endTime: '0', firstBlock: String(first), lastBlock: '0' },
      // The validator records (with every delegation) are left out: nothing here reads them.
      validators: [],
      delegations: [],
    },
  };
}
