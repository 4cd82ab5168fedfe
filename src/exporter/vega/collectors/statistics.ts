/** GET /statistics → samples. The pure part takes the JSON body and headers, nothing else. */
import { M } from '../../engine/catalogue.js';
import { simpleCollectorConfig } from '../../engine/fields.js';
import { CHAIN_STATUS } from '../../../shared/enums.js';
import { enumValue, headerU64, i32, nsToSeconds, obj, rfc3339Nanos, rfc3339Seconds, str, u64 } from '../convert.js';
import { oneHot } from '../scale.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector, NodeFacts } from '../../engine/types.js';

const COUNTERS = [
  [M.ordersCreated, 'totalCreateOrder'],
  [M.ordersAmended, 'totalAmendOrder'],
  [M.ordersCancelled, 'totalCancelOrder'],
  [M.ordersTotal, 'totalOrders'],
  [M.tradesTotal, 'totalTrades'],
] as const;

const GAUGES_U64 = [
  [M.blockHeight, 'blockHeight'],
  [M.peers, 'totalPeers'],
  [M.backlog, 'backlogLength'],
  [M.txPerBlock, 'txPerBlock'],
  [M.avgTxBytes, 'averageTxBytes'],
  [M.avgOrdersPerBlock, 'averageOrdersPerBlock'],
  [M.eventCount, 'eventCount'],
  [M.tradesPerSecond, 'tradesPerSecond'],
  [M.ordersPerSecond, 'ordersPerSecond'],
  [M.eventsPerSecond, 'eventsPerSecond'],
  [M.markets, 'totalMarkets'],
  [M.epoch, 'epochSeq'],
] as const;

const TIMES = [
  [M.blockTimestamp, 'vegaTime'],
  [M.currentTimestamp, 'currentTime'],
  [M.genesisTimestamp, 'genesisTime'],
  [M.coreStartTimestamp, 'uptime'],
  [M.epochStart, 'epochStartTime'],
  [M.epochExpiry, 'epochExpiryTime'],
] as const;

const SUBSCRIPTIONS = [
  ['orders', 'orderSubscriptions'],
  ['trades', 'tradeSubscriptions'],
  ['candles', 'candleSubscriptions'],
  ['market_depth', 'marketDepthSubscriptions'],
  ['market_depth_updates', 'marketDepthUpdatesSubscriptions'],
  ['positions', 'positionsSubscriptions'],
  ['accounts', 'accountSubscriptions'],
  ['market_data', 'marketDataSubscriptions'],
] as const;

type Headers = Record<string, string | string[] | undefined>;

/** The /statistics body and headers decoded once: every field the samples and the facts use. */
interface Statistics {
  /** blockHeight, blockDuration and the GAUGES_U64 and COUNTERS fields. */
  u64: Map<string, bigint>;
  /** The TIMES fields that are set, in seconds. */
  times: Map<string, number>;
  currentNs?: bigint;
  blockNs?: bigint;
  subscriptions: [kind: string, value: number][];
  status: string;
  build: { appVersion: string; appVersionHash: string; chainVersion: string; chainId: string };
  /** From the headers; a missing header or 0 means unknown. */
  datanodeHeight?: bigint;
  datanodeTimeNs?: bigint;
}

/** Decode the body (FieldError names the first bad field); undefined for an unset message, which the schema allows. */
function readStatistics(body: unknown, headers: Headers): Statistics | undefined {
  if (obj(body, 'body').statistics === null) return undefined;
  const s = obj(obj(body, 'body').statistics, 'statistics');
  const u64s = new Map<string, bigint>();
  for (const k of ['blockHeight', ...GAUGES_U64.map(([, k]) => k), ...COUNTERS.map(([, k]) => k)]) u64s.set(k, u64(s[k], `statistics.${k}`));
  const times = new Map<string, number>();
  for (const [, k] of TIMES) {
    const v = rfc3339Seconds(s[k], `statistics.${k}`);
    if (v !== undefined) times.set(k, v); // unset times are absent, not 0
  }
  u64s.set('blockDuration', u64(s.blockDuration, 'statistics.blockDuration'));
  const currentNs = rfc3339Nanos(s.currentTime, 'statistics.currentTime');
  const blockNs = rfc3339Nanos(s.vegaTime, 'statistics.vegaTime');
  // Older nodes omit some subscription counters; absent stays absent.
  const subscriptions = SUBSCRIPTIONS.filter(([, k]) => k in s).map(([kind, k]): [string, number] => [kind, i32(s[k], `statistics.${k}`)]);
  const status = enumValue(s.status, 'statistics.status');
  const build = {
    appVersion: str(s.appVersion, 'statistics.appVersion'),
    appVersionHash: str(s.appVersionHash, 'statistics.appVersionHash'),
    chainVersion: str(s.chainVersion, 'statistics.chainVersion'),
    chainId: str(s.chainId, 'statistics.chainId'),
  };
  const dnHeight = headerU64(headers['x-block-height']);
  const dnTime = headerU64(headers['x-block-timestamp']);
  return {
    u64: u64s,
    times,
    ...(currentNs !== undefined ? { currentNs } : {}),
    ...(blockNs !== undefined ? { blockNs } : {}),
    subscriptions,
    status,
    build,
    ...(dnHeight !== undefined && dnHeight > 0n ? { datanodeHeight: dnHeight } : {}),
    ...(dnTime !== undefined && dnTime > 0n ? { datanodeTimeNs: dnTime } : {}),
  };
}

/** The facts the fleet logic uses: chain id, version, core and data-node heights. */
function factsOf(st: Statistics | undefined): NodeFacts {
  if (!st) return {}; // unset message: nothing known
  return {
    chainId: st.build.chainId,
    appVersion: st.build.appVersion,
    height: st.u64.get('blockHeight')!,
    ...(st.datanodeHeight !== undefined ? { datanodeHeight: st.datanodeHeight } : {}),
    ...(st.blockNs !== undefined && st.currentNs !== undefined ? { blockTimeNs: st.blockNs, currentTimeNs: st.currentNs } : {}),
    blockDurationNs: st.u64.get('blockDuration')!,
  };
}

function samplesOf(target: string, st: Statistics | undefined): Sample[] {
  if (!st) return []; // unset message: no series
  const out: Sample[] = [];
  const push = (metric: Sample['metric'], value: number, ...extra: string[]): void => {
    out.push({ metric, values: [target, ...extra], value });
  };
  const height = st.u64.get('blockHeight')!;
  for (const [m, k] of [...GAUGES_U64, ...COUNTERS]) push(m, Number(st.u64.get(k)!));
  for (const [m, k] of TIMES) {
    const v = st.times.get(k);
    if (v !== undefined) push(m, v);
  }
  push(M.blockDuration, nsToSeconds(st.u64.get('blockDuration')!));
  // The difference is taken on exact nanoseconds: two rounded floats would lose the last digits.
  if (st.currentNs !== undefined && st.blockNs !== undefined) push(M.blockStaleness, st.currentNs > st.blockNs ? nsToSeconds(st.currentNs - st.blockNs) : 0);
  for (const [kind, v] of st.subscriptions) push(M.subscriptions, v, kind);
  // Chain states real nodes know each get a 0/1 series, plus any unknown state the node sends.
  for (const [state, v] of oneHot(CHAIN_STATUS, st.status)) push(M.chainStatus, v, state);
  push(M.buildInfo, 1, st.build.appVersion, st.build.appVersionHash, st.build.chainVersion, st.build.chainId);
  // The data node's own position; unknown leaves the series absent.
  if (st.datanodeHeight !== undefined) {
    push(M.datanodeBlockHeight, Number(st.datanodeHeight));
    push(M.datanodeLag, Number(height - st.datanodeHeight));
  }
  if (st.datanodeTimeNs !== undefined) push(M.datanodeBlockTimestamp, nsToSeconds(st.datanodeTimeNs));
  return out;
}

export function statisticsFacts(body: unknown, headers: Headers): NodeFacts {
  return factsOf(readStatistics(body, headers));
}

export function statisticsSamples(target: string, body: unknown, headers: Headers): Sample[] {
  return samplesOf(target, readStatistics(body, headers));
}

export const statisticsCollector: Collector = {
  async collect({ target, client, signal }) {
    const res = await client.get('/statistics', [], 'statistics', signal);
    const st = readStatistics(res.json, res.headers); // the body is decoded once, for both
    return { samples: samplesOf(target, st), facts: factsOf(st) };
  },
};

export default defineCollector({
  name: 'statistics',
  scope: 'node',
  title: 'statistics collector (`GET /statistics`, every 15 s by default)',
  config: simpleCollectorConfig('15s', true),
  upMetric: M.up,
  create: () => statisticsCollector,
});
