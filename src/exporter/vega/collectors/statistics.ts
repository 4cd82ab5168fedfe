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

/** The facts the fleet logic uses: chain id, version, core and data-node heights. */
export function statisticsFacts(body: unknown, headers: Record<string, string | string[] | undefined>): NodeFacts {
  if (obj(body, 'body').statistics === null) return {}; // unset message: nothing known
  const s = obj(obj(body, 'body').statistics, 'statistics');
  const dn = headerU64(headers['x-block-height']);
  const block = rfc3339Nanos(s.vegaTime, 'statistics.vegaTime');
  const current = rfc3339Nanos(s.currentTime, 'statistics.currentTime');
  return {
    chainId: str(s.chainId, 'statistics.chainId'),
    appVersion: str(s.appVersion, 'statistics.appVersion'),
    height: u64(s.blockHeight, 'statistics.blockHeight'),
    ...(dn !== undefined && dn > 0n ? { datanodeHeight: dn } : {}),
    ...(block !== undefined && current !== undefined ? { blockTimeNs: block, currentTimeNs: current } : {}),
    blockDurationNs: u64(s.blockDuration, 'statistics.blockDuration'),
  };
}

export function statisticsSamples(target: string, body: unknown, headers: Record<string, string | string[] | undefined>): Sample[] {
  if (obj(body, 'body').statistics === null) return []; // unset message (the schema allows it): no series
  const s = obj(obj(body, 'body').statistics, 'statistics');
  const f = (k: string): unknown => s[k];
  const out: Sample[] = [];
  const push = (metric: Sample['metric'], value: number, ...extra: string[]): void => {
    out.push({ metric, values: [target, ...extra], value });
  };

  const height = u64(f('blockHeight'), 'statistics.blockHeight');
  for (const [m, k] of GAUGES_U64) push(m, Number(u64(f(k), `statistics.${k}`)));
  for (const [m, k] of COUNTERS) push(m, Number(u64(f(k), `statistics.${k}`)));
  for (const [m, k] of TIMES) {
    const v = rfc3339Seconds(f(k), `statistics.${k}`);
    if (v !== undefined) push(m, v); // unset times are absent, not 0
  }
  push(M.blockDuration, nsToSeconds(u64(f('blockDuration'), 'statistics.blockDuration')));
  // The difference is taken on exact nanoseconds: two rounded floats would lose the last digits.
  const current = rfc3339Nanos(f('currentTime'), 'statistics.currentTime');
  const block = rfc3339Nanos(f('vegaTime'), 'statistics.vegaTime');
  if (current !== undefined && block !== undefined) push(M.blockStaleness, current > block ? nsToSeconds(current - block) : 0);
  for (const [kind, k] of SUBSCRIPTIONS) {
    // Older nodes omit some subscription counters; absent stays absent.
    if (k in s) push(M.subscriptions, i32(f(k), `statistics.${k}`), kind);
  }

  const status = enumValue(f('status'), 'statistics.status');
  // Chain states real nodes know each get a 0/1 series, plus any unknown state the node sends.
  for (const [st, v] of oneHot(CHAIN_STATUS, status)) push(M.chainStatus, v, st);

  push(
    M.buildInfo,
    1,
    str(f('appVersion'), 'statistics.appVersion'),
    str(f('appVersionHash'), 'statistics.appVersionHash'),
    str(f('chainVersion'), 'statistics.chainVersion'),
    str(f('chainId'), 'statistics.chainId'),
  );

  // The data node's own position; a missing header or 0 means unknown, so the series are absent.
  const dnHeight = headerU64(headers['x-block-height']);
  if (dnHeight !== undefined && dnHeight > 0n) {
    push(M.datanodeBlockHeight, Number(dnHeight));
    push(M.datanodeLag, Number(height - dnHeight));
  }
  const dnTime = headerU64(headers['x-block-timestamp']);
  if (dnTime !== undefined && dnTime > 0n) push(M.datanodeBlockTimestamp, nsToSeconds(dnTime));
  return out;
}

export const statisticsCollector: Collector = {
  async collect({ target, client, signal }) {
    const res = await client.get('/statistics', [], 'statistics', signal);
    return { samples: statisticsSamples(target, res.json, res.headers), facts: statisticsFacts(res.json, res.headers) };
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
