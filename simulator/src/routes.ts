/**
 * The eight query operations (plus two cheap extras), as pure functions of the network and the
 * request. Transport concerns (faults on the wire, headers, gzip) are in server.ts.
 */
import { DETAIL, GRPC, datanodeError, gatewayError } from './api-error.js';
import type { Endpoint, FaultState } from './faults.js';
import type { SimNetwork } from './network.js';
import { paginate, parsePageRequest, singleParam, type PaginationFaults } from './pagination.js';
import { assetJson, marketJson, networkHistoryJson, orderJson, partyJson, positionJson, rotationJson, signatureJson, statisticsJson } from './records.js';
import { segmentsJson } from './segments.js';
import { marketsDataJson } from './market-data.js';
import { epochJson, networkDataJson } from './network-data.js';

export interface RouteContext {
  net: SimNetwork;
  faults: FaultState;
  query: URLSearchParams;
  params: string[];
  pageFaults: PaginationFaults;
}

export interface Route {
  endpoint: Endpoint;
  pattern: RegExp;
  handle: (ctx: RouteContext) => unknown;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A data node's check (the `hexIds` fault, on in the datanode profile); the specification takes any string. */
function requireHexId(faults: FaultState, value: string, what: string): void {
  if (faults.hexIds && !HEX64.test(value)) throw datanodeError(GRPC.InvalidArgument, DETAIL.invalidId, `invalid ${what}: must be a 64 character hex string`);
}

/** Repeated or comma-separated id filter; with `hexIds` each id is 64 hex chars or the literal `network`. */
function idFilter(faults: FaultState, query: URLSearchParams, name: string): string[] {
  const ids = query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const bad = faults.hexIds ? ids.find((id) => id !== 'network' && !HEX64.test(id)) : undefined;
  if (bad !== undefined) throw datanodeError(GRPC.InvalidArgument, DETAIL.invalidFilter, `invalid filter: ${name} contains an invalid id: ${bad}`);
  return ids;
}

export const ROUTES: Route[] = [
  {
    endpoint: 'statistics',
    pattern: /^\/statistics$/,
    handle: ({ net }) => ({ statistics: statisticsJson(net) }),
  },
  {
    endpoint: 'networkhistory',
    pattern: /^\/api\/v2\/networkhistory$/,
    handle: ({ net, faults }) => {
      if (faults.networkHistoryDisabled) {
        throw datanodeError(GRPC.Internal, DETAIL.networkHistory, 'network history service not initialised');
      }
      return networkHistoryJson(net);
    },
  },
  {
    endpoint: 'rotations',
    pattern: /^\/api\/v2\/(?:chain|vega)\/keys\/rotations$/,
    handle: ({ net, query, pageFaults }) => {
      const page = parsePageRequest(query);
      const nodeId = singleParam(query, 'nodeId');
      const rows = nodeId ? net.rotations.filter((r) => r.nodeId === nodeId) : net.rotations;
      return { rotations: paginate(rows, page, rotationJson, pageFaults) };
    },
  },
  {
    endpoint: 'markets',
    pattern: /^\/markets$/,
    handle: ({ net, faults, query }) => {
      if (!faults.marketsCore) throw gatewayError(GRPC.NotFound, 'Not Found'); // the datanode profile: only core serves it
      const id = singleParam(query, 'market');
      const rows = id ? net.markets.filter((m) => m.id === id) : net.markets;
      return { markets: rows.map((m) => marketJson(m, net.faults.nonFiniteDoubles)) };
    },
  },
  {
    endpoint: 'markets',
    pattern: /^\/api\/v2\/markets$/,
    handle: ({ net, query, pageFaults }) => ({
      markets: paginate(net.markets, parsePageRequest(query), (m) => marketJson(m, net.faults.nonFiniteDoubles), pageFaults),
    }),
  },
  {
    endpoint: 'markets',
    pattern: /^\/api\/v2\/market\/([^/]+)$/,
    handle: ({ net, faults, params }) => {
      const id = params[0]!;
      requireHexId(faults, id, 'market ID');
      const m = net.markets.find((x) => x.id === id);
      if (!m) throw datanodeError(GRPC.NotFound, DETAIL.notFound, 'market does not exist');
      return { market: marketJson(m, net.faults.nonFiniteDoubles) };
    },
  },
  {
    endpoint: 'positions',
    pattern: /^\/api\/v2\/positions$/,
    handle: ({ net, faults, query, pageFaults }) => {
      const page = parsePageRequest(query);
      const parties = new Set(idFilter(faults, query, 'filter.partyIds'));
      const markets = new Set(idFilter(faults, query, 'filter.marketIds'));
      const rows = net.positions.filter((p) => (parties.size === 0 || parties.has(p.partyId)) && (markets.size === 0 || markets.has(p.marketId)));
      return { positions: paginate(rows, page, positionJson, pageFaults) };
    },
  },
  {
    endpoint: 'parties',
    pattern: /^\/api\/v2\/parties$/,
    handle: ({ net, query, pageFaults }) => {
      const page = parsePageRequest(query);
      const partyId = singleParam(query, 'partyId');
      if (partyId) {
        const p = net.parties.find((x) => x.id === partyId);
        if (!p) throw datanodeError(GRPC.NotFound, DETAIL.notFound, 'party not found');
        return { parties: paginate([p], page, partyJson, pageFaults) };
      }
      return { parties: paginate(net.parties, page, partyJson, pageFaults) };
    },
  },
  {
    endpoint: 'orders',
    pattern: /^\/api\/v2\/order\/([^/]+)$/,
    handle: ({ net, faults, query, params }) => {
      const id = params[0]!;
      requireHexId(faults, id, 'order ID');
      const raw = singleParam(query, 'version');
      let version: number | undefined;
      if (raw !== undefined) {
        if (!/^[+-]?\d+$/.test(raw)) throw gatewayError(GRPC.InvalidArgument, `parsing field "version": strconv.ParseInt: parsing "${raw}": invalid syntax`);
        version = Number(raw);
        if (version <= 0) throw datanodeError(GRPC.InvalidArgument, DETAIL.invalidVersion, 'invalid order version: must be greater than 0');
      }
      const order = net.ordersById.get(id);
      const v = order && (version === undefined ? order.versions[order.versions.length - 1] : order.versions[version - 1]);
      if (!order || !v) throw datanodeError(GRPC.NotFound, DETAIL.notFound, 'order not found');
      return { order: orderJson(order, v) };
    },
  },
  {
    endpoint: 'signatures',
    pattern: /^\/api\/v2\/node\/signatures$/,
    handle: ({ net, query, pageFaults }) => {
      const page = parsePageRequest(query);
      const id = singleParam(query, 'id');
      if (!id) throw datanodeError(GRPC.InvalidArgument, DETAIL.missingId, 'missing ID');
      return { signatures: paginate(net.signatures.get(id) ?? [], page, signatureJson, pageFaults) };
    },
  },
  {
    // Not one of the eight operations: the positions collector reads settlement-asset decimals here.
    endpoint: 'assets',
    pattern: /^\/api\/v2\/asset\/([^/]+)$/,
    handle: ({ net, faults, params }) => {
      const id = params[0]!;
      requireHexId(faults, id, 'asset ID');
      const a = net.assets.find((x) => x.id === id);
      if (!a) throw datanodeError(GRPC.NotFound, DETAIL.notFound, 'asset not found');
      return assetJson(a);
    },
  },
  {
    endpoint: 'info',
    pattern: /^\/api\/v2\/info$/,
    handle: ({ net, faults }) => ({ version: faults.datanodeVersion ?? net.opts.appVersion, commitHash: net.appVersionHash }),
  },
  {
    endpoint: 'marketsData',
    pattern: /^\/api\/v2\/markets\/data$/,
    handle: ({ net, faults }) => marketsDataJson(net, faults),
  },
  {
    endpoint: 'networkData',
    pattern: /^\/api\/v2\/network\/data$/,
    handle: ({ net, faults }) => networkDataJson(net, faults),
  },
  {
    endpoint: 'networkData',
    pattern: /^\/api\/v2\/epoch$/,
    handle: ({ net }) => epochJson(net),
  },
  {
    endpoint: 'segments',
    pattern: /^\/api\/v2\/networkhistory\/segments$/,
    handle: ({ net, faults }) => {
      if (faults.networkHistoryDisabled) {
        throw datanodeError(GRPC.Internal, DETAIL.networkHistory, 'network history service not initialised');
      }
      return segmentsJson(net, faults.segmentsStoppedBlocks);
    },
  },
  {
    endpoint: 'info',
    pattern: /^\/api\/v2\/vega\/time$/,
    handle: ({ net }) => ({ timestamp: net.blockTimeNs.toString() }),
  },
];

export function matchRoute(path: string): { route: Route; params: string[] } | undefined {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return undefined;
}
