/**
 * Writes fixtures/<name>.expected.json from the hand-written expectations below.
 *
 *   npx tsx test/contract/tools/build-expected.ts
 *
 * Each expected sample is written out by hand here (metric, labels, which fixture value, which scaling rule
 * of docs/metrics.md / README.md). The arithmetic is exact: the raw field is parsed into a BigInt rational,
 * scaled by 10^k exactly (k may be negative), differences are exact, and the result is rounded ONCE to the
 * nearest float64 (ties to even) by exact.ts:toFloat64. `exact` is the exact decimal before rounding, `value`
 * the float64's shortest round-trip decimal. Compare with Number(value) === sample (or Object.is).
 * Nothing here imports exporter code.
 */
import { ENUMS } from '../descriptor.js';
import { nsToSeconds, rat, rfc3339ToSeconds, scaleDown, sub } from '../exact.js';
import { Expect, load, marketSamples, type Labels } from './expect.js';

const NETWORK = 'vega-mainnet-0011';
const TARGET = 'dn1';
const WETH = 'a2cf1b144299fd910c9a3b9facf1417de01282371987bf3322bca45a3e048e78';
const USDT = 'ba3563946d92c94a0d9a29c27413caec6ec23f99b881449f426084192699ef7c';
const UNKNOWN_ASSET = '9ea56a6334a45ee6569f95703133ad7cd78721cdf855e3077abdb0a10951b73e';

// ------------------------------------------------------------------------------------------ statistics
function statistics(): void {
  const s = load('statistics.json').statistics;
  const h = load('statistics.headers.json');
  const e = new Expect();
  const t = { target: TARGET };
  e.int('vega_up', t, 1);
  e.int('vega_block_height', t, s.blockHeight);
  e.int('vega_datanode_block_height', t, h['X-Block-Height']);
  e.add('vega_datanode_block_timestamp_seconds', t, nsToSeconds(h['X-Block-Timestamp']));
  e.add('vega_datanode_lag_blocks', t, rat(BigInt(s.blockHeight) - BigInt(h['X-Block-Height'])));
  e.add('vega_block_timestamp_seconds', t, rfc3339ToSeconds(s.vegaTime));
  e.add('vega_current_timestamp_seconds', t, rfc3339ToSeconds(s.currentTime));
  e.add('vega_genesis_timestamp_seconds', t, rfc3339ToSeconds(s.genesisTime));
  e.add('vega_core_start_timestamp_seconds', t, rfc3339ToSeconds(s.uptime));
  e.add('vega_block_time_staleness_seconds', t, sub(rfc3339ToSeconds(s.currentTime), rfc3339ToSeconds(s.vegaTime)));
  e.add('vega_block_duration_seconds', t, nsToSeconds(s.blockDuration));
  e.int('vega_peers', t, s.totalPeers);
  e.int('vega_backlog_transactions', t, s.backlogLength);
  e.int('vega_block_transactions', t, s.txPerBlock);
  e.int('vega_block_average_transaction_size_bytes', t, s.averageTxBytes);
  e.int('vega_block_orders', t, s.averageOrdersPerBlock);
  e.int('vega_block_events', t, s.eventCount);
  e.int('vega_trades_per_second', t, s.tradesPerSecond);
  e.int('vega_chain_orders_per_second', t, s.ordersPerSecond);
  e.int('vega_events_per_second', t, s.eventsPerSecond);
  e.int('vega_chain_orders_submitted_total', t, s.totalCreateOrder);
  e.int('vega_chain_orders_amended_total', t, s.totalAmendOrder);
  e.int('vega_chain_orders_cancelled_total', t, s.totalCancelOrder);
  e.int('vega_chain_orders_total', t, s.totalOrders); // 2^64-1 → 18446744073709551616
  e.int('vega_chain_trades_total', t, s.totalTrades); // 2^53+1 → 9007199254740992 (ties to even)
  e.int('vega_statistics_markets', t, s.totalMarkets);
  e.int('vega_epoch', t, s.epochSeq);
  e.add('vega_epoch_start_timestamp_seconds', t, rfc3339ToSeconds(s.epochStartTime));
  e.add('vega_epoch_expiry_timestamp_seconds', t, rfc3339ToSeconds(s.epochExpiryTime));
  e.stateSet('vega_chain_status', t, 'status', ENUMS.ChainStatus, s.status);
  e.int(
    'vega_build_info',
    {
      ...t,
      app_version: s.appVersion,
      app_version_hash: s.appVersionHash,
      chain_version: s.chainVersion,
      chain_id: s.chainId,
    },
    1,
  );
  for (const [field, kind] of [
    ['orderSubscriptions', 'order'],
    ['tradeSubscriptions', 'trade'],
    ['candleSubscriptions', 'candle'],
    ['marketDepthSubscriptions', 'market_depth'],
    ['positionsSubscriptions', 'positions'],
    ['accountSubscriptions', 'account'],
    ['marketDataSubscriptions', 'market_data'],
    ['marketDepthUpdatesSubscriptions', 'market_depth_updates'],
  ] as const) {
    e.ambiguous.push({
      name: 'vega_subscriptions',
      labels: { ...t, kind },
      value: String(s[field]),
      reading: `one series per statistics.*Subscriptions field; kind = the field name without "Subscriptions", in snake_case (docs do not list the kind values)`,
    });
  }
  e.forbiddenStrings.push(s.blockHash);
  // fleet signals and self-metrics with a single configured target (no configured network)
  const fleet: [string, Labels, string][] = [
    ['vega_target_network_info', { ...t, network: s.chainId, group: '*' }, '1'],
    ['datanode_exporter_collector_success', { ...t, collector: 'statistics' }, '1'],
  ];
  for (const [name, labels, value] of fleet) {
    e.ambiguous.push({
      name,
      labels,
      value,
      reading: 'single target, network taken from statistics.chainId, group * (no configured network); collector label = the collector name of docs/metrics.md',
    });
  }
  e.write('statistics.expected.json', {
    fixture: 'statistics.json',
    endpoint: 'GET /statistics',
    context: { target: TARGET, headers: 'statistics.headers.json', note: 'single successful poll' },
  });
}

function statisticsReplaying(): void {
  const s = load('statistics-replaying.json').statistics;
  const e = new Expect();
  const t = { target: TARGET };
  e.int('vega_up', t, 1);
  e.int('vega_block_height', t, s.blockHeight);
  e.add('vega_block_timestamp_seconds', t, rfc3339ToSeconds(s.vegaTime));
  e.add('vega_current_timestamp_seconds', t, rfc3339ToSeconds(s.currentTime));
  e.add('vega_core_start_timestamp_seconds', t, rfc3339ToSeconds(s.uptime));
  e.add('vega_block_time_staleness_seconds', t, sub(rfc3339ToSeconds(s.currentTime), rfc3339ToSeconds(s.vegaTime)));
  e.int('vega_peers', t, s.totalPeers);
  e.int('vega_backlog_transactions', t, s.backlogLength);
  e.int('vega_chain_orders_total', t, s.totalOrders);
  e.int('vega_epoch', t, s.epochSeq);
  e.stateSet('vega_chain_status', t, 'status', ENUMS.ChainStatus, s.status);
  e.none('vega_genesis_timestamp_seconds', 'genesisTime is "" while the chain replays (unset upstream value)', t);
  e.none('vega_datanode_block_height', 'X-Block-Height is "0" (lookup failed): "absent when the header is missing or 0"', t);
  e.none('vega_datanode_block_timestamp_seconds', 'X-Block-Timestamp header missing', t);
  e.none('vega_datanode_lag_blocks', 'X-Block-Height is 0 (unknown), so no lag can be computed', t);
  e.none('vega_epoch_start_timestamp_seconds', 'epochStartTime is 0001-01-01T00:00:00Z (unset)', t);
  e.none('vega_epoch_expiry_timestamp_seconds', 'epochExpiryTime is 0001-01-01T00:00:00Z (unset)', t);
  e.ambiguous.push({
    name: 'vega_block_duration_seconds',
    labels: t,
    value: '0',
    reading: 'blockDuration "0" is a number, not an unset marker from the docs\' list, so it is exported as 0',
  });
  e.ambiguous.push({
    name: 'vega_build_info',
    labels: { ...t, app_version: s.appVersion, app_version_hash: s.appVersionHash, chain_version: s.chainVersion, chain_id: '' },
    value: '1',
    reading: 'chainId "" gives an empty (= absent) chain_id label rather than dropping vega_build_info',
  });
  e.write('statistics-replaying.expected.json', {
    fixture: 'statistics-replaying.json',
    endpoint: 'GET /statistics',
    context: { target: TARGET, headers: 'statistics-replaying.headers.json', note: 'replaying node; X-Block-Timestamp missing' },
  });
}

// ------------------------------------------------------------------------------------------ network history
function networkHistory(): void {
  const b = load('networkhistory.json');
  const e = new Expect();
  const t = { target: TARGET };
  e.int('vega_network_history_up', t, 1);
  e.int('vega_network_history_connected_peers', t, new Set(b.connectedPeers).size);
  e.int('vega_network_history_connections', t, b.connectedPeers.length);
  e.forbiddenStrings.push(b.swarmKey, b.swarmKeySeed);
  for (const p of [b.ipfsAddress, ...b.connectedPeers]) e.forbiddenStrings.push(String(p).split('/p2p/')[1]!);
  e.write('networkhistory.expected.json', { fixture: 'networkhistory.json', endpoint: 'GET /api/v2/networkhistory', context: { target: TARGET } });
}

// ------------------------------------------------------------------------------------------ key rotations
function keyRotations(): void {
  const b = load('vega-keys-rotations.json');
  const e = new Expect();
  const per = new Map<string, { n: number; max: bigint }>();
  for (const { node } of b.rotations.edges) {
    const cur = per.get(node.nodeId) ?? { n: 0, max: -1n };
    cur.n += 1;
    if (BigInt(node.blockHeight) > cur.max) cur.max = BigInt(node.blockHeight);
    per.set(node.nodeId, cur);
  }
  for (const [id, { n, max }] of per) {
    e.int('vega_key_rotations_total', { network: NETWORK, node_id: id }, n);
    e.add('vega_key_rotation_last_block_height', { network: NETWORK, node_id: id }, rat(max));
  }
  e.write('vega-keys-rotations.expected.json', {
    fixture: 'vega-keys-rotations.json',
    endpoint: 'GET /api/v2/vega/keys/rotations',
    context: { network: NETWORK, note: 'the whole history in one page (hasNextPage false); last = highest blockHeight' },
  });
}

// ------------------------------------------------------------------------------------------ markets
function markets(fixture: string, endpoint: string): void {
  const nodes: any[] = fixture === 'markets.json' ? load(fixture).markets : load(fixture).markets.edges.map((x: any) => x.node);
  const e = new Expect();
  marketSamples(e, nodes, NETWORK);
  const base = fixture.replace(/\.json$/, '');
  e.write(`${base}.expected.json`, {
    fixture,
    endpoint,
    context: { network: NETWORK, config: { max_markets: 500, allow: [], counts_only: false } },
  });
}

// ------------------------------------------------------------------------------------------ positions
function positions(): void {
  const mk = new Map<string, any>(load('api-v2-markets.json').markets.edges.map((x: any) => [x.node.id, x.node]));
  const decimals = new Map<string, number>([
    [load('asset.json').asset.id, Number(load('asset.json').asset.details.decimals)], // GET /api/v2/asset/{id}
    [USDT, 6], // collectors.positions.asset_decimals
  ]);
  const e = new Expect();
  for (const { node: p } of load('positions.json').positions.edges) {
    const m = mk.get(p.marketId);
    const ins = m.tradableInstrument.instrument;
    const asset: string = ins.future?.settlementAsset ?? ins.perpetual?.settlementAsset ?? ins.spot.quoteAsset;
    const l = { network: NETWORK, market_id: p.marketId, party_id: p.partyId };
    e.add('vega_position_open_volume', l, scaleDown(p.openVolume, m.positionDecimalPlaces));
    e.add('vega_position_average_entry_price', l, scaleDown(p.averageEntryPrice, m.decimalPlaces));
    const d = decimals.get(asset);
    const money = [
      ['vega_position_realised_pnl', p.realisedPnl],
      ['vega_position_unrealised_pnl', p.unrealisedPnl],
      ['vega_position_loss_socialisation', p.lossSocialisationAmount],
    ] as const;
    for (const [name, v] of money) {
      if (d !== undefined) e.add(name, { ...l, asset }, scaleDown(v, d));
      else e.none(name, `settlement asset ${asset} has unknown decimals (not configured, GET /api/v2/asset answers 404)`, l);
    }
    e.stateSet('vega_position_status', l, 'status', ENUMS.PositionStatus, p.positionStatus);
    if (p.updatedAt !== '0') e.add('vega_position_updated_timestamp_seconds', l, nsToSeconds(p.updatedAt));
    else e.none('vega_position_updated_timestamp_seconds', 'updatedAt "0" is absent', l);
  }
  e.write('positions.expected.json', {
    fixture: 'positions.json',
    endpoint: 'GET /api/v2/positions',
    context: {
      network: NETWORK,
      config: {
        party_ids: [
          '682422f8edd289a388ea4c746e8106799a1cbde59b1f079ce0c5704457a4ccfc',
          '0840622c98df43523b51bf5baaa6d98baeaa7e02c9ff03ebc36db48653e7394e',
          'network',
        ],
        market_ids: [],
        asset_decimals: { [USDT]: 6 },
      },
      markets: 'api-v2-markets.json (decimalPlaces, positionDecimalPlaces, settlement asset)',
      assets: { [WETH]: 'asset.json (decimals 18)', [UNKNOWN_ASSET]: 'GET /api/v2/asset/{id} answers 404 error-gateway.json' },
    },
  });
}

// ------------------------------------------------------------------------------------------ orders
function order(): void {
  const o = load('order.json').order;
  const m = load('api-v2-markets.json')
    .markets.edges.map((x: any) => x.node)
    .find((x: any) => x.id === o.marketId);
  const e = new Expect();
  const l = { network: NETWORK, order_id: o.id };
  e.int('vega_order_found', l, 1);
  e.int('vega_order_info', { ...l, market_id: o.marketId, party_id: o.partyId, side: o.side, type: o.type, time_in_force: o.timeInForce }, 1);
  e.stateSet('vega_order_status', l, 'status', ENUMS.OrderStatus, o.status);
  e.add('vega_order_size', l, scaleDown(o.size, m.positionDecimalPlaces));
  e.add('vega_order_remaining', l, scaleDown(o.remaining, m.positionDecimalPlaces));
  e.add('vega_order_price', l, scaleDown(o.price, m.decimalPlaces));
  e.int('vega_order_version', l, o.version);
  for (const [field, ev] of [
    ['createdAt', 'created'],
    ['updatedAt', 'updated'],
    ['expiresAt', 'expires'],
  ] as const) {
    if (o[field] !== '0') e.add('vega_order_timestamp_seconds', { ...l, event: ev }, nsToSeconds(o[field]));
    else e.none('vega_order_timestamp_seconds', `${field} "0" is absent`, { ...l, event: ev });
  }
  e.write('order.expected.json', {
    fixture: 'order.json',
    endpoint: 'GET /api/v2/order/{orderId}',
    context: { network: NETWORK, config: { ids: [o.id] }, markets: 'api-v2-markets.json (market db0ba967…: decimalPlaces 5, positionDecimalPlaces -2)' },
  });
}

function orderNotFound(): void {
  const e = new Expect();
  const l = { network: NETWORK, order_id: UNKNOWN_ASSET };
  e.int('vega_order_found', l, 0);
  for (const name of [
    'vega_order_info',
    'vega_order_status',
    'vega_order_size',
    'vega_order_remaining',
    'vega_order_price',
    'vega_order_version',
    'vega_order_timestamp_seconds',
  ]) {
    e.none(name, 'the order does not exist (404)', l);
  }
  e.write('error.expected.json', {
    fixture: 'error.json',
    endpoint: 'error (HTTP 404 to GET /api/v2/order/{orderId})',
    context: { network: NETWORK, config: { ids: [UNKNOWN_ASSET] }, http_status: 404 },
  });
}

// ------------------------------------------------------------------------------------------ parties, signatures
function parties(): void {
  const e = new Expect();
  e.int('vega_parties', { network: NETWORK }, load('parties.json').parties.edges.length);
  e.write('parties.expected.json', {
    fixture: 'parties.json',
    endpoint: 'GET /api/v2/parties',
    context: { network: NETWORK, config: { enabled: true, party_ids: [] }, note: 'whole list in one page' },
  });
}

function nodeSignatures(): void {
  const edges = load('node-signatures.json').signatures.edges;
  const e = new Expect();
  const id = edges[0].node.id;
  const by = new Map<string, number>();
  for (const { node } of edges) by.set(node.kind, (by.get(node.kind) ?? 0) + 1);
  for (const [k, c] of by) e.int('vega_node_signatures', { network: NETWORK, resource_id: id, kind: k }, c);
  e.int('vega_node_signatures_collected', { network: NETWORK, resource_id: id }, edges.length);
  for (const k of ENUMS.NodeSignatureKind) {
    if (!by.has(k)) {
      e.ambiguous.push({
        name: 'vega_node_signatures',
        labels: { network: NETWORK, resource_id: id, kind: k },
        reading: 'kinds with no signature: absent or 0 both fit "by kind"; not checked',
      });
    }
  }
  e.write('node-signatures.expected.json', {
    fixture: 'node-signatures.json',
    endpoint: 'GET /api/v2/node/signatures',
    context: { network: NETWORK, config: { ids: [id] } },
  });
}

function noMetrics(fixture: string, endpoint: string, note: string): void {
  const e = new Expect();
  e.write(fixture.replace(/\.json$/, '.expected.json'), { fixture, endpoint, context: { note } });
}

statistics();
statisticsReplaying();
networkHistory();
keyRotations();
markets('api-v2-markets.json', 'GET /api/v2/markets');
markets('markets.json', 'GET /markets (core)');
positions();
order();
orderNotFound();
parties();
nodeSignatures();
noMetrics(
  'api-v2-market.json',
  'GET /api/v2/market/{marketId}',
  'no series of its own; same market as api-v2-markets.json edge 0 (a collector that reads it must derive the same per-market values)',
);
noMetrics('asset.json', 'GET /api/v2/asset/{assetId}', 'no series of its own; supplies decimals 18 for positions.expected.json');
noMetrics('info.json', 'GET /api/v2/info', 'not read by any documented collector');
noMetrics('vega-time.json', 'GET /api/v2/vega/time', 'not read by any documented collector');
noMetrics('networkhistory-segments.json', 'GET /api/v2/networkhistory/segments', 'not read by any documented collector');
noMetrics('markets-data.json', 'GET /api/v2/markets/data', 'not read by any documented collector');
noMetrics('network-data.json', 'GET /api/v2/network/data', 'not read by any documented collector');
noMetrics('epoch.json', 'GET /api/v2/epoch', 'not read by any documented collector');
noMetrics('nodes.json', 'GET /api/v2/nodes', 'not read by any documented collector');
noMetrics(
  'error-gateway.json',
  'error (HTTP 404, gateway)',
  "a data node's answer to core's GET /markets: the markets collector falls back to GET /api/v2/markets and must then produce api-v2-markets.expected.json; also the 404 of GET /api/v2/asset/{id} for the unknown asset in positions.expected.json",
);
