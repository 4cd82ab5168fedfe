/** GET /statistics → samples. The pure part takes the JSON body and headers, nothing else. */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { simpleCollectorConfig } from '../../engine/fields.js';
import { CHAIN_STATUS } from '../../../shared/enums.js';
import { enumValue, headerU64, i32, nsToSeconds, obj, rfc3339Nanos, rfc3339Seconds, str, u64 } from '../convert.js';
import { oneHot } from '../scale.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import type { Collector } from '../../engine/types.js';
import { Facts } from '../../engine/facts.js';
import { APP_VERSION, BLOCK_DURATION_NS, BLOCK_TIME_NS, CHAIN_ID, CURRENT_TIME_NS, DATANODE_HEIGHT, HEIGHT } from '../facts.js';

const T = ['target'] as const;
const STATS = 'GET /statistics';
const metric = metricsOf('statistics');

/** The families this collector writes, in exposition order. */
export const M = {
  up: metric('vega_up', T, '')
    .source(`${STATS} (1 when the last poll succeeded)`)
    .help('Whether the data node answered its last statistics poll (1) or not (0).'),
  blockHeight: metric('vega_block_height', T, 'blocks').source(`${STATS} statistics.blockHeight`).help('Core block height.'),
  datanodeBlockHeight: metric('vega_datanode_block_height', T, 'blocks')
    .source(`${STATS} header X-Block-Height`)
    .help('Last block the data node itself has processed; absent when the header is missing or 0.'),
  datanodeBlockTimestamp: metric('vega_datanode_block_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} header X-Block-Timestamp (unix ns)`)
    .help("Time of the data node's last processed block; absent when the header is missing or 0."),
  datanodeLag: metric('vega_datanode_lag_blocks', T, 'blocks')
    .source(`${STATS} statistics.blockHeight minus header X-Block-Height`)
    .help('How many blocks the data node trails core; absent when the header is missing.'),
  blockTimestamp: metric('vega_block_timestamp_seconds', T, 'seconds since epoch').source(`${STATS} statistics.vegaTime`).help('Time of the current block.'),
  currentTimestamp: metric('vega_current_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.currentTime`)
    .help("Core's wall clock when it answered; minus vega_block_timestamp_seconds gives block-time staleness."),
  genesisTimestamp: metric('vega_genesis_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.genesisTime`)
    .help('Genesis time of the chain; absent while the chain replays.'),
  coreStartTimestamp: metric('vega_core_start_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.uptime`)
    .help('When the core process started (the uptime field is a start time, not a duration).'),
  blockStaleness: metric('vega_block_time_staleness_seconds', T, 'seconds')
    .source(`${STATS} statistics.currentTime minus statistics.vegaTime`)
    .help("How far the current block's time trails core's clock: grows when the chain halts."),
  blockDuration: metric('vega_block_duration_seconds', T, 'seconds').source(`${STATS} statistics.blockDuration (ns)`).help('Time between the last two blocks.'),
  peers: metric('vega_peers', T, 'peers').source(`${STATS} statistics.totalPeers`).help('Consensus peers connected to the node.'),
  backlog: metric('vega_backlog_transactions', T, 'transactions').source(`${STATS} statistics.backlogLength`).help('Transactions waiting in the mempool.'),
  txPerBlock: metric('vega_block_transactions', T, 'transactions').source(`${STATS} statistics.txPerBlock`).help('Transactions in the last block.'),
  avgTxBytes: metric('vega_block_average_transaction_size_bytes', T, 'bytes')
    .source(`${STATS} statistics.averageTxBytes`)
    .help('Average transaction size in the last block.'),
  avgOrdersPerBlock: metric('vega_block_orders', T, 'orders').source(`${STATS} statistics.averageOrdersPerBlock`).help('Orders in the last block.'),
  eventCount: metric('vega_block_events', T, 'events').source(`${STATS} statistics.eventCount`).help('Events emitted in the last block.'),
  tradesPerSecond: metric('vega_trades_per_second', T, 'trades per second')
    .source(`${STATS} statistics.tradesPerSecond`)
    .help("Trades per second over the last block's duration."),
  ordersPerSecond: metric('vega_chain_orders_per_second', T, 'orders per second')
    .source(`${STATS} statistics.ordersPerSecond`)
    .help("Orders per second over the last block's duration."),
  eventsPerSecond: metric('vega_events_per_second', T, 'events per second')
    .source(`${STATS} statistics.eventsPerSecond`)
    .help("Events per second over the last block's duration."),
  ordersCreated: metric('vega_chain_orders_submitted_total', T, 'orders')
    .source(`${STATS} statistics.totalCreateOrder`)
    .help('Orders created since the core started (resets when core restarts).'),
  ordersAmended: metric('vega_chain_orders_amended_total', T, 'orders')
    .source(`${STATS} statistics.totalAmendOrder`)
    .help('Order amendments since the core started (resets when core restarts).'),
  ordersCancelled: metric('vega_chain_orders_cancelled_total', T, 'orders')
    .source(`${STATS} statistics.totalCancelOrder`)
    .help('Order cancellations since the core started (resets when core restarts).'),
  ordersTotal: metric('vega_chain_orders_total', T, 'orders')
    .source(`${STATS} statistics.totalOrders`)
    .help('Orders processed since the core started (resets when core restarts).'),
  tradesTotal: metric('vega_chain_trades_total', T, 'trades')
    .source(`${STATS} statistics.totalTrades`)
    .help('Trades since the core started (resets when core restarts).'),
  markets: metric('vega_statistics_markets', T, 'markets')
    .source(`${STATS} statistics.totalMarkets`)
    .help('Market count as statistics reports it (real cores always report 0; use the markets collector).'),
  subscriptions: metric('vega_subscriptions', [...T, 'kind'], 'subscriptions')
    .source(`${STATS} statistics.*Subscriptions`)
    .help('Open API subscriptions by kind (0 on real nodes).'),
  epoch: metric('vega_epoch', T, 'epoch number').source(`${STATS} statistics.epochSeq`).help('Current epoch number.'),
  epochStart: metric('vega_epoch_start_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.epochStartTime`)
    .help('When the current epoch started.'),
  epochExpiry: metric('vega_epoch_expiry_timestamp_seconds', T, 'seconds since epoch')
    .source(`${STATS} statistics.epochExpiryTime`)
    .help('When the current epoch is due to end.'),
  chainStatus: metric('vega_chain_status', [...T, 'status'], '')
    .source(`${STATS} statistics.status`)
    .help('Chain status: 1 for the current state, 0 for the others (unknown states are exported as sent).'),
  buildInfo: metric('vega_build_info', [...T, 'app_version', 'app_version_hash', 'chain_version', 'chain_id'], '')
    .source(`${STATS} statistics.appVersion, appVersionHash, chainVersion, chainId`)
    .help('Versions and chain id of the node; value always 1.'),
} as const satisfies Record<string, MetricDef>;

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
function factsOf(st: Statistics | undefined): Facts {
  if (!st) return new Facts(); // unset message: nothing known
  const both = st.blockNs !== undefined && st.currentNs !== undefined;
  return new Facts()
    .with(CHAIN_ID, st.build.chainId)
    .with(APP_VERSION, st.build.appVersion)
    .with(HEIGHT, st.u64.get('blockHeight'))
    .with(DATANODE_HEIGHT, st.datanodeHeight)
    .with(BLOCK_TIME_NS, both ? st.blockNs : undefined)
    .with(CURRENT_TIME_NS, both ? st.currentNs : undefined)
    .with(BLOCK_DURATION_NS, st.u64.get('blockDuration'));
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

export function statisticsFacts(body: unknown, headers: Headers): Facts {
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
  families: M,
  facts: [CHAIN_ID, APP_VERSION, HEIGHT, DATANODE_HEIGHT, BLOCK_TIME_NS, CURRENT_TIME_NS, BLOCK_DURATION_NS],
  config: simpleCollectorConfig('15s', true),
  upMetric: M.up,
  create: () => statisticsCollector,
});
