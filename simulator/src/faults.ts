/**
 * Fault switches: what the simulator can be told to break, at startup or at run time through
 * `/__sim/faults`. Network faults change the chain itself; endpoint faults change one operation's
 * responses on the wire.
 */
import { ENUM_FIELDS } from '../../src/shared/enums.js';
import type { PaginationFaults } from './pagination.js';

export const ENDPOINTS = [
  'statistics',
  'networkhistory',
  'rotations',
  'markets',
  'positions',
  'parties',
  'orders',
  'signatures',
  'assets',
  'info',
  'segments',
  'marketsData',
  'networkData',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export const ERROR_FAULTS = [500, 503, 504, 429, 403, 'ratelimit'] as const;
export type ErrorFault = (typeof ERROR_FAULTS)[number];

export interface EndpointFaults {
  /** Added latency before the response starts, in ms. */
  latencyMs?: number;
  /** An error response with a realistic body; 'ratelimit' answers 429 three times, then bans (403). */
  error?: ErrorFault;
  malformedJson?: boolean;
  /** Sends half the body, then drops the connection. */
  truncatedBody?: boolean;
  /** Trickles the body: chunkBytes every intervalMs. */
  slowBody?: { chunkBytes: number; intervalMs: number };
  /** Pads the body with this many bytes (still valid JSON). */
  oversizedBody?: number;
  wrongTypes?: boolean;
  /** One row of each list answer carries an empty id (the one string that is never an id); the others are intact. */
  badRow?: boolean;
  unknownEnums?: boolean;
  missingFreshnessHeaders?: boolean;
  pagination?: PaginationFaults;
}

export interface RateLimitSettings {
  enabled: boolean;
  /** Tokens per second per client IP (real default 20). */
  rps: number;
  /** Bucket size (real default 100). */
  burst: number;
  /** Requests refused with 429 before a client is banned. */
  banAfter: number;
  banSeconds: number;
}

export interface FaultState {
  /** Chain halt: height and block time freeze. */
  halted: boolean;
  /** The data node's own position (X-Block-Height) trails core by this many blocks. */
  datanodeLagBlocks: number;
  peersZero: boolean;
  /** Consensus peers pinned to this number (null: they wander as usual). */
  fixedPeers: number | null;
  networkHistoryDisabled: boolean;
  /** Segment production stopped this many blocks before the fault was set (null: producing). */
  segmentsStoppedBlocks: number | null;
  /** The first market has been in a price-monitoring auction for two hours (markets/data only). */
  longAuction: boolean;
  /** The first market's supplied stake is 60 % of its target stake. */
  stakeBelowTarget: boolean;
  /** The first market's mark price stops moving while it trades continuously. */
  markPriceFrozen: boolean;
  /** This many validators have left the consensus set (network/data counts shrink). */
  validatorsLeft: number;
  /** This many validators are inactive. */
  validatorsInactive: number;
  /** The data node reports this version in /api/v2/info instead of the core's (null: the same). */
  datanodeVersion: string | null;
  /**
   * Serve `GET /markets` (200) as the specification describes it. On by default; the `datanode`
   * profile turns it off, as real data nodes answer 404 there since v0.63.
   */
  marketsCore: boolean;
  /**
   * Answer 400 for an id that is not 64 lowercase hex (position filters also take `network`), as a
   * data node checks them. Off by default: the specification types ids as plain strings, so an
   * unknown id of any shape gets the operation's not-found answer. The `datanode` profile turns it on.
   */
  hexIds: boolean;
  /** Some markets carry non-finite doubles ("NaN", "Infinity") in their risk parameters, as real nodes may. */
  nonFiniteDoubles: boolean;
  /** Strip X-Block-Height / X-Block-Timestamp everywhere, as a proxy might. */
  stripFreshnessHeaders: boolean;
  /** The chain is replaying: genesisTime and chainId are "", status REPLAYING. */
  replaying: boolean;
  rateLimit: RateLimitSettings;
  endpoints: Partial<Record<Endpoint | '*', EndpointFaults>>;
}

/**
 * `spec`: every operation of the query-service specification, `GET /markets` included, ids of any
 * shape; `datanode`: what a real data node serves (404 on `GET /markets`, so clients fall back to
 * `/api/v2/markets`; 400 for an id that is not 64 hex).
 */
export type SimProfile = 'spec' | 'datanode';
export const PROFILES: readonly SimProfile[] = ['spec', 'datanode'];

export function defaultFaults(profile: SimProfile = 'spec'): FaultState {
  return {
    halted: false,
    datanodeLagBlocks: 0,
    peersZero: false,
    fixedPeers: null,
    networkHistoryDisabled: false,
    segmentsStoppedBlocks: null,
    datanodeVersion: null,
    longAuction: false,
    stakeBelowTarget: false,
    markPriceFrozen: false,
    validatorsLeft: 0,
    validatorsInactive: 0,
    marketsCore: profile === 'spec',
    hexIds: profile === 'datanode',
    nonFiniteDoubles: false,
    stripFreshnessHeaders: false,
    replaying: false,
    rateLimit: { enabled: false, rps: 20, burst: 100, banAfter: 10, banSeconds: 600 },
    endpoints: {},
  };
}

export class FaultError extends Error {}

const BOOL_KEYS = [
  'halted',
  'peersZero',
  'networkHistoryDisabled',
  'marketsCore',
  'hexIds',
  'nonFiniteDoubles',
  'stripFreshnessHeaders',
  'replaying',
  'longAuction',
  'stakeBelowTarget',
  'markPriceFrozen',
] as const;
const EP_BOOL = ['malformedJson', 'truncatedBody', 'wrongTypes', 'badRow', 'unknownEnums', 'missingFreshnessHeaders'] as const;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNegInt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new FaultError(`${path}: expected a non-negative integer`);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new FaultError(`${path}: expected true or false`);
  return v;
}

function endpointPatch(cur: EndpointFaults, patch: Record<string, unknown>, path: string): EndpointFaults {
  const next: EndpointFaults = { ...cur };
  for (const [k, v] of Object.entries(patch)) {
    const p = `${path}.${k}`;
    if (v === null) {
      delete (next as Record<string, unknown>)[k];
      continue;
    }
    if ((EP_BOOL as readonly string[]).includes(k)) (next as Record<string, unknown>)[k] = bool(v, p);
    else if (k === 'latencyMs' || k === 'oversizedBody') next[k] = nonNegInt(v, p);
    else if (k === 'error') {
      if (!(ERROR_FAULTS as readonly unknown[]).includes(v)) throw new FaultError(`${p}: expected one of ${ERROR_FAULTS.join(', ')}`);
      next.error = v as ErrorFault;
    } else if (k === 'slowBody') {
      if (v === true) next.slowBody = { chunkBytes: 16, intervalMs: 200 };
      else if (isObj(v))
        next.slowBody = { chunkBytes: nonNegInt(v.chunkBytes ?? 16, `${p}.chunkBytes`) || 1, intervalMs: nonNegInt(v.intervalMs ?? 200, `${p}.intervalMs`) };
      else if (v === false) delete next.slowBody;
      else throw new FaultError(`${p}: expected true or {chunkBytes, intervalMs}`);
    } else if (k === 'pagination') {
      if (!isObj(v)) throw new FaultError(`${p}: expected an object`);
      const pf: PaginationFaults = { ...next.pagination };
      for (const [pk, pv] of Object.entries(v)) {
        if (pk !== 'cursorLoop' && pk !== 'stuckHasNext' && pk !== 'duplicateRows') throw new FaultError(`${p}.${pk}: unknown pagination fault`);
        pf[pk] = bool(pv, `${p}.${pk}`);
      }
      next.pagination = pf;
    } else throw new FaultError(`${p}: unknown endpoint fault`);
  }
  return next;
}

/** Merge a JSON patch into the fault state; throws FaultError naming the bad field. Null clears a key. */
export function applyFaultPatch(state: FaultState, patch: unknown): FaultState {
  if (!isObj(patch)) throw new FaultError('faults: expected a JSON object');
  const next: FaultState = { ...state, rateLimit: { ...state.rateLimit }, endpoints: { ...state.endpoints } };
  for (const [k, v] of Object.entries(patch)) {
    if ((BOOL_KEYS as readonly string[]).includes(k)) (next as unknown as Record<string, unknown>)[k] = bool(v, k);
    else if (k === 'datanodeLagBlocks') next.datanodeLagBlocks = nonNegInt(v, k);
    else if (k === 'fixedPeers') next.fixedPeers = v === null ? null : nonNegInt(v, k);
    else if (k === 'validatorsLeft' || k === 'validatorsInactive') next[k] = nonNegInt(v, k);
    else if (k === 'segmentsStoppedBlocks') next.segmentsStoppedBlocks = v === null ? null : nonNegInt(v, k);
    else if (k === 'datanodeVersion') {
      if (v !== null && (typeof v !== 'string' || v === '')) throw new FaultError(`${k}: expected a version string or null`);
      next.datanodeVersion = v;
    } else if (k === 'rateLimit') {
      if (typeof v === 'boolean') next.rateLimit.enabled = v;
      else if (isObj(v)) {
        for (const [rk, rv] of Object.entries(v)) {
          if (rk === 'enabled') next.rateLimit.enabled = bool(rv, `rateLimit.${rk}`);
          else if (rk === 'rps' || rk === 'burst' || rk === 'banAfter' || rk === 'banSeconds') next.rateLimit[rk] = nonNegInt(rv, `rateLimit.${rk}`);
          else throw new FaultError(`rateLimit.${rk}: unknown setting`);
        }
      } else throw new FaultError('rateLimit: expected true/false or an object');
    } else if (k === 'endpoints') {
      if (!isObj(v)) throw new FaultError('endpoints: expected an object');
      for (const [ep, ev] of Object.entries(v)) {
        if (ep !== '*' && !(ENDPOINTS as readonly string[]).includes(ep))
          throw new FaultError(`endpoints.${ep}: unknown endpoint (one of ${ENDPOINTS.join(', ')}, *)`);
        const key = ep as Endpoint | '*';
        if (ev === null) delete next.endpoints[key];
        else if (isObj(ev)) next.endpoints[key] = endpointPatch(next.endpoints[key] ?? {}, ev, `endpoints.${ep}`);
        else throw new FaultError(`endpoints.${ep}: expected an object or null`);
      }
    } else throw new FaultError(`${k}: unknown fault`);
  }
  return next;
}

/** The faults in force for one endpoint: '*' first, the endpoint's own on top. */
export function faultsFor(state: FaultState, ep: Endpoint): EndpointFaults {
  const all = state.endpoints['*'];
  const own = state.endpoints[ep];
  if (!all) return own ?? {};
  if (!own) return all;
  return { ...all, ...own, pagination: { ...all.pagination, ...own.pagination } };
}

/** Replace every leaf under `root` with a value of the wrong JSON type (deterministically). */
export function mangleTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? { unexpected: 'object' } : value.map(mangleTypes);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mangleTypes(v)]));
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? true : 12345;
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return 'yes';
  return value;
}

/** Break the first row of the first list in a body: its id fields become "" (no id). */
export function badRow(value: unknown): unknown {
  const copy = structuredClone(value);
  const find = (v: unknown): Record<string, unknown> | undefined => {
    if (Array.isArray(v)) return isObj(v[0]) ? (isObj(v[0].node) ? v[0].node : v[0]) : undefined;
    if (isObj(v))
      for (const e of Object.values(v)) {
        const r = find(e);
        if (r) return r;
      }
    return undefined;
  };
  const row = find(copy);
  for (const k of ['id', 'marketId', 'nodeId']) if (row && typeof row[k] === 'string') row[k] = ''; // empty: the one string that can never be an id
  return copy;
}

/** Rewrite enum names to integers, as a node does for values its descriptor does not know. */
export function unknownEnums(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => unknownEnums(v, key));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unknownEnums(v, k)]));
  if (typeof value === 'string' && ENUM_FIELDS.has(key) && /^[A-Z][A-Z0-9_]+$/.test(value)) return 99;
  return value;
}
