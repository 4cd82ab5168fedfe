/**
 * GET /api/v2/network/data and GET /api/v2/epoch → the validator set and the current epoch, once
 * per network. The counts come from network/data (one small answer) rather than from /api/v2/nodes,
 * whose rows carry every delegation of every validator (megabytes on a real network) for numbers
 * network/data already has.
 */
import { simpleCollectorConfig } from '../../engine/fields.js';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { amount, i64, obj, scaleExact, u64, unixNsSeconds } from '../convert.js';
import { FieldError } from '../../errors.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { Collector } from '../../engine/types.js';

const N = ['network'] as const;
const ND = 'GET /api/v2/network/data';
const metric = metricsOf('network_data');

/** The families this collector writes, in exposition order. */
export const M = {
  ndValidators: metric('vega_network_validators', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.totalNodes and {tendermint,ersatz,pending}Nodes.total`)
    .help('Validators in the network (set="all") and in each set: tendermint (consensus), ersatz (standby), pending.'),
  ndInactive: metric('vega_network_validators_inactive', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.inactiveNodes and {tendermint,ersatz,pending}Nodes.inactive`)
    .help('Inactive validators, in all and per set.'),
  ndMaximum: metric('vega_network_validators_maximum', [...N, 'set'], 'validators')
    .source(`${ND} nodeData.{tendermint,ersatz,pending}Nodes.maximum`)
    .help('The most validators a set may hold; absent when the node does not say.'),
  ndStaked: metric('vega_network_stake', N, 'tokens')
    .source(`${ND} nodeData.stakedTotal / 10^18`)
    .help("Stake on all validators in whole governance tokens (the network's own token has 18 decimals). Exact up to float64 rounding."),
  ndEpochTimestamp: metric('vega_network_epoch_timestamp_seconds', [...N, 'event'], 'seconds since epoch')
    .source('GET /api/v2/epoch epoch.timestamps.startTime, expiryTime, endTime (unix ns; "0" is absent)')
    .help('Start, expected expiry and (once over) end of the current epoch.'),
  ndEpochFirstBlock: metric('vega_network_epoch_first_block', N, 'blocks')
    .source('GET /api/v2/epoch epoch.timestamps.firstBlock')
    .help('First block of the current epoch.'),
} as const satisfies Record<string, MetricDef>;

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
  families: M,
  create: () => networkDataCollector,
});
