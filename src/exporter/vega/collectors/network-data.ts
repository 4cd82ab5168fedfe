/**
 * GET /api/v2/network/data and GET /api/v2/epoch → the validator set and the current epoch, once
 * per network. The counts come from network/data (one small answer) rather than from /api/v2/nodes,
 * whose rows carry every delegation of every validator (megabytes on a real network) for numbers
 * network/data already has.
 */
import { simpleCollectorConfig } from '../../engine/fields.js';
import { M, ownedBy } from '../../engine/catalogue.js';
import { amount, i64, obj, scaleExact, u64, unixNsSeconds } from '../convert.js';
import { FieldError } from '../../errors.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { Collector } from '../../engine/types.js';

/** The network's own token has 18 decimals (datanode-api.md): staked totals are in whole tokens. */
export const STAKE_DECIMALS = 18;
const SETS = [
  ['tendermint', 'tendermintNodes'],
  ['ersatz', 'ersatzNodes'],
  ['pending', 'pendingNodes'],
] as const;

/** int64 fields arrive as JSON numbers here (integer/int64 in the reference) or, from some gateways, as strings. */
function count(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') return Number(i64(v, field));
  throw new FieldError(field, 'an integer', v);
}

/** Each set, the totals and the stake are isolated like rows: one bad field leaves the others. */
export function networkDataSamples(network: string, body: unknown, skips = new RowSkips()): Sample[] {
  const raw = obj(body, 'body').nodeData;
  if (raw === null || raw === undefined) return []; // unset message: nothing known
  const d = obj(raw, 'nodeData');
  const out: Sample[] = [];
  const push = (metric: Sample['metric'], value: number, ...extra: string[]): void => void out.push({ metric, values: [network, ...extra], value });
  skips.row(() => {
    const total = count(d.totalNodes, 'nodeData.totalNodes');
    const inactive = count(d.inactiveNodes, 'nodeData.inactiveNodes');
    push(M.ndValidators, total, 'all');
    push(M.ndInactive, inactive, 'all');
  });
  for (const [set, k] of SETS) {
    if (d[k] === null || d[k] === undefined) continue; // unset message: nothing known about that set
    out.push(...(skips.row(() => setSamples(network, set, obj(d[k], `nodeData.${k}`), `nodeData.${k}`)) ?? []));
  }
  skips.row(() => {
    const staked = amount(d.stakedTotal, 'nodeData.stakedTotal');
    const v = staked === undefined ? undefined : scaleExact(staked, STAKE_DECIMALS);
    if (v !== undefined && Number.isFinite(v)) push(M.ndStaked, v);
  });
  return out;
}

function setSamples(network: string, set: string, s: Record<string, unknown>, path: string): Sample[] {
  const out: Sample[] = [
    { metric: M.ndValidators, values: [network, set], value: count(s.total, `${path}.total`) },
    { metric: M.ndInactive, values: [network, set], value: count(s.inactive, `${path}.inactive`) },
  ];
  if (s.maximum !== undefined) out.push({ metric: M.ndMaximum, values: [network, set], value: count(s.maximum, `${path}.maximum`) });
  return out;
}

export function epochSamples(network: string, body: unknown, skips = new RowSkips()): Sample[] {
  const raw = obj(body, 'body').epoch;
  if (raw === null || raw === undefined) return [];
  const e = obj(raw, 'epoch');
  // epoch.seq is not exported: vega_epoch{target} carries it (GET /statistics epochSeq) per node.
  const out: Sample[] = [];
  if (e.timestamps === null || e.timestamps === undefined) return out;
  const ts = obj(e.timestamps, 'epoch.timestamps');
  for (const [event, k] of [
    ['start', 'startTime'],
    ['expiry', 'expiryTime'],
    ['end', 'endTime'],
  ] as const) {
    const v = skips.row(() => unixNsSeconds(ts[k], `epoch.timestamps.${k}`)); // "0" (not yet ended) is absent
    if (v !== undefined) out.push({ metric: M.ndEpochTimestamp, values: [network, event], value: v });
  }
  const first = skips.row(() => u64(ts.firstBlock, 'epoch.timestamps.firstBlock'));
  if (first !== undefined && first > 0n) out.push({ metric: M.ndEpochFirstBlock, values: [network], value: Number(first) });
  return out;
}

export const networkDataCollector: Collector = {
  async collect({ target, client, signal }) {
    const data = await client.get('/api/v2/network/data', [], 'network_data', signal);
    const epoch = await client.get('/api/v2/epoch', [], 'epoch', signal);
    const skips = new RowSkips();
    return { samples: [...networkDataSamples(target, data.json, skips), ...epochSamples(target, epoch.json, skips)], skipped: skips.list };
  },
};

export default defineCollector({
  name: 'network_data',
  scope: 'network',
  // The validator set changes at epoch boundaries (minutes to a day apart): a minute is plenty.
  title: 'network_data collector (`GET /api/v2/network/data`, `GET /api/v2/epoch`; every 60 s by default)',
  config: simpleCollectorConfig('60s', true),
  metrics: ownedBy('network_data'),
  create: () => networkDataCollector,
});
