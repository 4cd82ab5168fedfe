/**
 * Contract tests of the independent oracle (no exporter or simulator code is imported):
 *  (a) every golden fixture validates against its endpoint's schema (both modes);
 *  (b) the schema rejects what the published definitions forbid, and accepts the awkward values they allow;
 *  (c) the arbitraries, compiled from the same descriptor, produce 200 valid samples per endpoint and do reach
 *      the edge cases they are meant to reach;
 *  (d) the expected samples are internally consistent (exact value ↔ float64, one sample per series);
 *  (e) per release (v0.73 to v0.79): a field newer than the body's release may be absent, nothing else changes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor, invalidArbitraryFor } from './arbitraries.js';
import { parseDecimal, toFloat64 } from './exact.js';
import { DESCRIPTORS, type Desc } from './descriptor.js';
import { FIXTURES, RECORDED } from './fixture-map.js';
import { ENDPOINTS, ENDPOINTS_V079, ENUMS, LATEST, RELEASES, ROUTES, schemaFor, type Release, type RouteKey } from './schema.js';

const FIX = new URL('./fixtures/', import.meta.url);
const load = (f: string): any => JSON.parse(readFileSync(new URL(f, FIX), 'utf8'));
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

/** set (or delete, with value `undefined`) the value at a dotted path; numbers index arrays */
function mutate(body: unknown, path: (string | number)[], value: unknown): unknown {
  const out = clone(body) as any;
  let cur = out;
  for (const k of path.slice(0, -1)) cur = cur[k];
  const last = path[path.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return out;
}

const ok = (route: RouteKey, body: unknown, mode: 'forward' | 'v079' = 'forward'): boolean =>
  (mode === 'forward' ? ENDPOINTS : ENDPOINTS_V079)[route].safeParse(body).success;

describe('(a) golden fixtures fit the published schema', () => {
  const files = readdirSync(FIX).filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json') && !f.endsWith('.headers.json'));
  it('every fixture file is mapped to an endpoint', () => {
    expect(files.sort()).toEqual(Object.keys(FIXTURES).sort());
  });
  for (const [file, route] of Object.entries(FIXTURES)) {
    it(`${file} validates against ${route} (v0.79 names and forward-compatible)`, () => {
      const body = load(file);
      const r = ENDPOINTS_V079[route].safeParse(body);
      expect(r.success, r.success ? '' : r.error.message).toBe(true);
      expect(ok(route, body)).toBe(true);
    });
  }
  it('every endpoint the exporter reads has a golden fixture', () => {
    const covered = new Set(Object.values(FIXTURES));
    for (const r of ROUTES) if (r !== 'GET /api/v2/chain/keys/rotations' && r !== 'GET /api/v2/market/data/{marketId}/latest') expect(covered, r).toContain(r);
  });
  it('the fixtures carry the magnitudes real networks send', () => {
    const pos = load('positions.json').positions.edges.map((e: any) => e.node);
    expect(pos.some((p: any) => p.realisedPnl === '123456789123456789012345678')).toBe(true);
    expect(BigInt(load('order.json').order.price) > 2n ** 64n).toBe(true);
    const mk = load('api-v2-markets.json').markets.edges.map((e: any) => e.node);
    expect(mk.some((m: any) => BigInt(m.positionDecimalPlaces) < 0n)).toBe(true);
    expect(mk.some((m: any) => m.tradableInstrument.logNormalRiskModel?.riskAversionParameter === 'NaN')).toBe(true);
    expect(mk.some((m: any) => m.lpPriceRange === '' && m.liquiditySlaParams?.priceRange)).toBe(true);
    expect(load('asset.json').asset.details.decimals).toBe('18');
  });
});

describe('(b) the schema rejects what it must and accepts what it must', () => {
  const stats = load('statistics.json');
  const pos = load('positions.json');
  const mkts = load('api-v2-markets.json');
  const core = load('markets.json');
  const order = load('order.json');
  const sigs = load('node-signatures.json');
  const nh = load('networkhistory.json');
  const rot = load('vega-keys-rotations.json');
  const err = load('error.json');
  const asset = load('asset.json');
  const S = 'GET /statistics' as const;
  const P = 'GET /api/v2/positions' as const;
  const M = 'GET /api/v2/markets' as const;
  const node = (i = 0): (string | number)[] => ['markets', 'edges', i, 'node'];
  const pnode = (i = 0): (string | number)[] => ['positions', 'edges', i, 'node'];

  const reject: [string, RouteKey, unknown, unknown, (string | number)[]][] = [
    // [what, route, base body, new value, path]
    ['unknown field in statistics', S, stats, 'x', ['statistics', 'blockHeightz']],
    ['unknown top-level field', S, stats, {}, ['extra']],
    ['uint64 as a JSON number', S, stats, 18591101, ['statistics', 'blockHeight']],
    ['uint64 negative', S, stats, '-1', ['statistics', 'blockHeight']],
    ['uint64 = 2^64', S, stats, '18446744073709551616', ['statistics', 'blockHeight']],
    ['uint64 with a leading zero', S, stats, '018591101', ['statistics', 'blockHeight']],
    ['uint64 with a fraction', S, stats, '1.0', ['statistics', 'blockHeight']],
    ['uint64 empty string', S, stats, '', ['statistics', 'blockHeight']],
    ['enum as a boolean', S, stats, true, ['statistics', 'status']],
    ['enum as a non-integer number', S, stats, 1.5, ['statistics', 'status']],
    ['enum as lower-case text', S, stats, 'connected', ['statistics', 'status']],
    ['enum as null', S, stats, null, ['statistics', 'status']],
    ['int32 as a string', S, stats, '0', ['statistics', 'orderSubscriptions']],
    ['int32 fractional', S, stats, 0.5, ['statistics', 'orderSubscriptions']],
    ['int32 beyond 32 bits', S, stats, 2 ** 31, ['statistics', 'orderSubscriptions']],
    ['RFC3339 without Z', S, stats, '2023-11-14T22:13:20.123456789', ['statistics', 'vegaTime']],
    ['RFC3339 with 10 fractional digits', S, stats, '2023-11-14T22:13:20.1234567891Z', ['statistics', 'vegaTime']],
    ['statistics time as unix ns', S, stats, '1700000000123456789', ['statistics', 'vegaTime']],
    ['impossible date', S, stats, '2023-02-29T00:00:00Z', ['statistics', 'currentTime']],
    ['currentTime "" (only genesisTime may be empty)', S, stats, '', ['statistics', 'currentTime']],
    ['missing required scalar', S, stats, undefined, ['statistics', 'eventsPerSecond']],
    ['statistics wrapper absent', S, stats, undefined, ['statistics']],
    ['PnL as a JSON number', P, pos, 1e30, [...pnode(), 'realisedPnl']],
    ['PnL in exponent notation', P, pos, '1e30', [...pnode(), 'realisedPnl']],
    ['PnL with a plus sign', P, pos, '+5', [...pnode(), 'realisedPnl']],
    ['unsigned price negative', P, pos, '-1', [...pnode(), 'averageEntryPrice']],
    ['int64 openVolume = 2^63', P, pos, '9223372036854775808', [...pnode(), 'openVolume']],
    ['int64 "-0"', P, pos, '-0', [...pnode(), 'openVolume']],
    ['unknown field in a position', P, pos, '1', [...pnode(), 'marginLevel']],
    ['missing fee field', P, pos, undefined, [...pnode(), 'takerFeesPaid']],
    ['pageInfo missing', P, pos, undefined, ['positions', 'pageInfo']],
    ['cursor as a number', P, pos, 5, ['positions', 'edges', 0, 'cursor']],
    ['double as a decimal string', M, mkts, '1.5', [...node(), 'tradableInstrument', 'marginCalculator', 'scalingFactors', 'initialMargin']],
    ['double non-finite in the wrong spelling', M, mkts, 'nan', [...node(), 'tradableInstrument', 'logNormalRiskModel', 'riskAversionParameter']],
    ['double "+Infinity"', M, mkts, '+Infinity', [...node(), 'tradableInstrument', 'logNormalRiskModel', 'tau']],
    ['decimalPlaces as a number', M, mkts, 5, [...node(), 'decimalPlaces']],
    ['decimalPlaces negative (uint64)', M, mkts, '-2', [...node(), 'decimalPlaces']],
    ['two products (oneof)', M, mkts, { baseAsset: 'a', quoteAsset: 'b' }, [...node(), 'tradableInstrument', 'instrument', 'spot']],
    [
      'two risk models (oneof)',
      M,
      mkts,
      { params: { factorLong: 0.1, factorShort: 0.1, maxMoveUp: 1, minMoveDown: -1, probabilityOfTrading: 0.1 } },
      [...node(), 'tradableInstrument', 'simpleRiskModel'],
    ],
    ['optional scalar sent as null', M, mkts, null, [...node(), 'fees', 'liquidityFeeSettings', 'feeConstant']],
    ['unknown field in tradableInstrument', M, mkts, {}, [...node(), 'tradableInstrument', 'riskModel']],
    ['repeated field absent', M, mkts, undefined, [...node(), 'allowedSellers']],
    ['fee factor with a comma', M, mkts, '0,0002', [...node(), 'fees', 'factors', 'makerFee']],
    ['tags not a list', M, mkts, 'a,b', [...node(), 'tradableInstrument', 'instrument', 'metadata', 'tags']],
    [
      'property key type in lower case (nested enum)',
      M,
      mkts,
      'type_integer',
      [...node(1), 'markPriceConfiguration', 'dataSourcesSpec', 0, 'external', 'ethOracle', 'filters', 0, 'key', 'type'],
    ],
    ['core /markets: a connection instead of a list', 'GET /markets', core, { edges: [], pageInfo: {} }, ['markets']],
    ['order size fractional', 'GET /api/v2/order/{orderId}', order, '1.5', ['order', 'size']],
    ['order version as a number', 'GET /api/v2/order/{orderId}', order, 3, ['order', 'version']],
    ['unset message omitted instead of null', 'GET /api/v2/order/{orderId}', order, undefined, ['order', 'peggedOrder']],
    ['signature not base64', 'GET /api/v2/node/signatures', sigs, 'not base64!', ['signatures', 'edges', 0, 'node', 'sig']],
    ['signature base64 without padding', 'GET /api/v2/node/signatures', sigs, 'YWI', ['signatures', 'edges', 0, 'node', 'sig']],
    ['connectedPeers as a string', 'GET /api/v2/networkhistory', nh, 'a,b', ['connectedPeers']],
    ['networkhistory wrapped', 'GET /api/v2/networkhistory', nh, {}, ['networkHistory']],
    ['rotation blockHeight as a number', 'GET /api/v2/vega/keys/rotations', rot, 1000, ['rotations', 'edges', 0, 'node', 'blockHeight']],
    ['asset decimals as a number', 'GET /api/v2/asset/{assetId}', asset, 18, ['asset', 'details', 'decimals']],
    ['asset with both sources (oneof)', 'GET /api/v2/asset/{assetId}', asset, { maxFaucetAmountMint: '1' }, ['asset', 'details', 'builtinAsset']],
    ['error code as a string', 'error', err, '5', ['code']],
    ['error code 0 (OK is not an error)', 'error', err, 0, ['code']],
    ['error code beyond gRPC codes', 'error', err, 404, ['code']],
    ['error details absent', 'error', err, undefined, ['details']],
    ['error details not a list', 'error', err, {}, ['details']],
    ['ErrorDetail code as a string', 'error', err, '10001', ['details', 0, 'code']],
    ['ErrorDetail with an unknown field', 'error', err, 'x', ['details', 0, 'extra']],
  ];
  for (const [what, route, base, value, path] of reject) {
    it(`rejects: ${what}`, () => {
      expect(ok(route, base), 'the unmutated fixture must pass').toBe(true);
      expect(ok(route, mutate(base, path, value))).toBe(false);
      expect(ok(route, mutate(base, path, value), 'v079')).toBe(false);
    });
  }

  const accept: [string, RouteKey, unknown, unknown, (string | number)[]][] = [
    ['an unknown enum number', S, stats, 99, ['statistics', 'status']],
    ['genesisTime "" while replaying', S, stats, '', ['statistics', 'genesisTime']],
    ['RFC3339 with no fraction', S, stats, '2023-11-14T22:13:20Z', ['statistics', 'vegaTime']],
    ['the unset time', S, stats, '0001-01-01T00:00:00Z', ['statistics', 'epochStartTime']],
    ['uint64 = 2^64-1', S, stats, '18446744073709551615', ['statistics', 'blockHeight']],
    ['PnL of 120 digits, negative', P, pos, '-' + '9'.repeat(120), [...pnode(), 'realisedPnl']],
    ['price of 40 digits', P, pos, '1' + '0'.repeat(39), [...pnode(), 'averageEntryPrice']],
    ['fee with fractional digits', P, pos, '0.000000000000000000000001', [...pnode(), 'feesPaid']],
    ['an empty (unset) amount', P, pos, '', [...pnode(), 'lossSocialisationAmount']],
    ['int64 = -2^63', P, pos, '-9223372036854775808', [...pnode(), 'openVolume']],
    ['double "Infinity"', M, mkts, 'Infinity', [...node(), 'tradableInstrument', 'logNormalRiskModel', 'tau']],
    ['double "-Infinity"', M, mkts, '-Infinity', [...node(), 'tradableInstrument', 'logNormalRiskModel', 'params', 'mu']],
    ['negative positionDecimalPlaces', M, mkts, '-6', [...node(), 'positionDecimalPlaces']],
    ['no product at all', M, mkts, undefined, [...node(), 'tradableInstrument', 'instrument', 'future']],
    ['unset message null', M, mkts, null, [...node(), 'liquiditySlaParams']],
    ['optional message omitted', M, mkts, undefined, [...node(), 'liquiditySlaParams']],
    ['optional scalar omitted', M, mkts, undefined, [...node(), 'allowedEmptyAmmLevels']],
    ['extra keys inside an unexpanded object', M, mkts, 'x', [...node(), 'tradableInstrument', 'instrument', 'metadata', 'other']],
    ['reason present on an order', 'GET /api/v2/order/{orderId}', order, 'ORDER_ERROR_MARGIN_CHECK_FAILED', ['order', 'reason']],
    ['an order price beyond 2^256', 'GET /api/v2/order/{orderId}', order, (2n ** 300n).toString(), ['order', 'price']],
    ['an empty page', 'GET /api/v2/positions', pos, [], ['positions', 'edges']],
  ];
  for (const [what, route, base, value, path] of accept) {
    it(`accepts: ${what}`, () => {
      expect(ok(route, mutate(base, path, value))).toBe(true);
    });
  }

  it('forward mode takes enum names newer than v0.79; v0.79 mode does not', () => {
    const b = mutate(stats, ['statistics', 'status'], 'CHAIN_STATUS_SOMETHING_NEW');
    expect(ok(S, b)).toBe(true);
    expect(ok(S, b, 'v079')).toBe(false);
    const p = mutate(pos, [...pnode(), 'positionStatus'], 'POSITION_STATUS_LIQUIDATED');
    expect(ok(P, p)).toBe(true);
    expect(ok(P, p, 'v079')).toBe(false);
  });

  it('the enum lists are the published ones', () => {
    expect(ENUMS.MarketState).toHaveLength(11);
    expect(ENUMS.MarketTradingMode).toHaveLength(9);
    expect(ENUMS.OrderError).toHaveLength(54);
    expect(ENUMS.PositionStatus).toEqual([
      'POSITION_STATUS_UNSPECIFIED',
      'POSITION_STATUS_ORDERS_CLOSED',
      'POSITION_STATUS_CLOSED_OUT',
      'POSITION_STATUS_DISTRESSED',
    ]);
  });
});

describe('(c) arbitraries derived from the schema', () => {
  for (const route of ROUTES) {
    it(`${route}: 200 samples validate (forward and v0.79 modes)`, () => {
      fc.assert(
        fc.property(arbitraryFor(route), (body) => {
          const json = JSON.parse(JSON.stringify(body)); // what goes over the wire
          const r = ENDPOINTS[route].safeParse(json);
          if (!r.success) throw new Error(r.error.message);
        }),
        { numRuns: 200, seed: 7 },
      );
      fc.assert(
        fc.property(arbitraryFor(route, { mode: 'v079' }), (body) => {
          const r = ENDPOINTS_V079[route].safeParse(JSON.parse(JSON.stringify(body)));
          if (!r.success) throw new Error(r.error.message);
        }),
        { numRuns: 200, seed: 7 },
      );
    });
  }

  for (const route of ROUTES) {
    it(`${route}: 200 bodies with one defect (a wrong-typed value or an unknown field) are rejected`, () => {
      fc.assert(
        fc.property(invalidArbitraryFor(route), ({ body, path, defect }) => {
          if (ENDPOINTS[route].safeParse(body).success) throw new Error(`accepted ${defect} at ${path.join('.')}`);
          if (ENDPOINTS_V079[route].safeParse(body).success) throw new Error(`v0.79 accepted ${defect} at ${path.join('.')}`);
        }),
        { numRuns: 200, seed: 11 },
      );
    });
  }

  it('the arbitraries reach the edge cases (huge and signed digits, "", NaN strings, nulls, omissions, unknown enums)', () => {
    const pos = fc.sample(arbitraryFor('GET /api/v2/positions'), { numRuns: 300, seed: 1 }) as any[];
    const nodes = pos
      .flatMap((p) => p.positions?.edges ?? [])
      .map((e: any) => e.node)
      .filter(Boolean);
    const pnl = nodes.map((n: any) => n.realisedPnl as string);
    expect(pnl.some((v) => v.length >= 30)).toBe(true);
    expect(pnl.some((v) => v.startsWith('-') && BigInt(v) < -(2n ** 64n))).toBe(true);
    expect(pnl.some((v) => v === '')).toBe(true);
    const status = nodes.map((n: any) => n.positionStatus);
    expect(status.some((s: unknown) => typeof s === 'number')).toBe(true);
    expect(status.some((s: unknown) => typeof s === 'string' && !(ENUMS.PositionStatus as readonly string[]).includes(s))).toBe(true);
    expect(pos.some((p) => p.positions === null)).toBe(true);

    const mk = fc.sample(arbitraryFor('GET /api/v2/markets'), { numRuns: 300, seed: 2 }) as any[];
    const mn = mk
      .flatMap((m) => m.markets?.edges ?? [])
      .map((e: any) => e.node)
      .filter(Boolean);
    const text = JSON.stringify(mk);
    expect(text).toContain('"NaN"');
    expect(text).toContain('"-Infinity"');
    expect(mn.some((m: any) => !('allowedEmptyAmmLevels' in m))).toBe(true);
    expect(mn.some((m: any) => m.liquiditySlaParams === null)).toBe(true);
    expect(mn.some((m: any) => m.lpPriceRange === '')).toBe(true);
    expect(mn.some((m: any) => typeof m.positionDecimalPlaces === 'string' && m.positionDecimalPlaces.startsWith('-'))).toBe(true);

    const orders = fc.sample(arbitraryFor('GET /api/v2/order/{orderId}'), { numRuns: 300, seed: 3 }) as any[];
    const o = orders.map((x) => x.order).filter(Boolean);
    expect(o.some((x: any) => 'reason' in x)).toBe(true);
    expect(o.some((x: any) => !('reason' in x))).toBe(true);
    expect(o.some((x: any) => x.price.length > 30)).toBe(true);
  });
});

describe('(d) expected samples are exact and consistent', () => {
  const expectedIn = (sub: string): string[] =>
    readdirSync(new URL(sub, FIX))
      .filter((f) => f.endsWith('.expected.json'))
      .map((f) => sub + f);
  const files = [...expectedIn(''), ...expectedIn('recorded/')];
  it('every fixture has an expected file', () => {
    for (const f of [...Object.keys(FIXTURES), ...Object.keys(RECORDED)]) expect(files).toContain(f.replace(/\.json$/, '.expected.json'));
  });
  for (const f of files) {
    it(`${f}: value is the float64 nearest to exact, one sample per series`, () => {
      const e = load(f);
      const seen = new Set<string>();
      for (const s of e.samples) {
        const key = s.name + JSON.stringify(Object.entries(s.labels).sort());
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
        // two independent roundings: BigInt rational (exact.ts) and the engine's correctly rounded parser
        expect(Object.is(Number(s.value), toFloat64(parseDecimal(s.exact)))).toBe(true);
        expect(Object.is(Number(s.value), Number(s.exact))).toBe(true);
        expect(Number.isFinite(Number(s.value))).toBe(true);
      }
      for (const a of e.absent) {
        const clash = e.samples.find((s: any) => s.name === a.name && Object.entries(a.labels ?? {}).every(([k, v]) => s.labels[k] === v));
        expect(clash, `${a.name} is both expected and absent`).toBeUndefined();
      }
    });
  }
  it('spot checks computed by hand', () => {
    const pos = load('positions.expected.json').samples;
    const pnl = pos.find((s: any) => s.name === 'vega_position_realised_pnl' && s.labels.party_id.startsWith('682422'));
    expect(pnl.exact).toBe('123456789.123456789012345678');
    expect(pnl.value).toBe('123456789.12345679');
    expect(
      pos.find((s: any) => s.name === 'vega_position_open_volume' && s.labels.party_id.startsWith('682422') && s.labels.market_id.startsWith('db0b')).value,
    ).toBe('-123456700');
    const ord = load('order.expected.json').samples;
    expect(ord.find((s: any) => s.name === 'vega_order_price').exact).toBe('1234567890123456789.01234');
    const st = load('statistics.expected.json').samples;
    expect(st.find((s: any) => s.name === 'vega_chain_trades_total').value).toBe('9007199254740992');
    expect(st.find((s: any) => s.name === 'vega_block_time_staleness_seconds').exact).toBe('1.376543211');
    const mk = load('api-v2-markets.expected.json');
    expect(mk.absent.some((a: any) => a.name === 'vega_market_risk_parameter' && a.labels.parameter === 'risk_aversion')).toBe(true);
    expect(mk.samples.find((s: any) => s.name === 'vega_market_lp_price_range' && s.labels.market_id.startsWith('db0b')).value).toBe('0.05');
    expect(mk.samples.find((s: any) => s.name === 'vega_market_lp_price_range' && s.labels.market_id.startsWith('a3ea')).value).toBe('0.1');
  });
  it('core /markets and /api/v2/markets expect the same samples', () => {
    expect(load('markets.expected.json').samples).toEqual(load('api-v2-markets.expected.json').samples);
  });
});

/** `body` without the fields the descriptor says came after `release` (what a node of that release sends) */
function olderBody(d: Desc, body: unknown, release: Release): { body: unknown; dropped: number } {
  let dropped = 0;
  const walk = (d: Desc, v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (d.t === 'nullable') return walk(d.of, v);
    if (d.t === 'arr') return (v as unknown[]).map((x) => walk(d.of, x));
    if (d.t !== 'obj' && d.t !== 'opaque') return v;
    const fields = d.t === 'obj' ? d.fields : (d.known ?? {});
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const f = fields[k];
      if (f?.since && RELEASES.indexOf(f.since) > RELEASES.indexOf(release)) dropped++;
      else out[k] = f ? walk(f.d, x) : x;
    }
    return out;
  };
  return { body: walk(d, body), dropped };
}

describe('(e) every release in service: v0.73 to v0.79', () => {
  const okAt = (route: RouteKey, body: unknown, release: Release): boolean => schemaFor(route, release).safeParse(body).success;
  const M = 'GET /api/v2/market/{marketId}' as const;
  const market = load('api-v2-market.json');
  const fees = ['market', 'fees', 'factors'];

  it('v0.79 is the default schema', () => {
    expect(LATEST).toBe('0.79');
    expect(schemaFor('GET /statistics', '0.79')).toBe(ENDPOINTS['GET /statistics']);
  });
  it('a body without treasuryFee (v0.78) fails under v0.79 and v0.78, passes under v0.77 and v0.73', () => {
    const b = mutate(market, [...fees, 'treasuryFee'], undefined);
    expect(okAt(M, market, '0.73')).toBe(true);
    expect(okAt(M, b, '0.79')).toBe(false);
    expect(okAt(M, b, '0.78')).toBe(false);
    expect(okAt(M, b, '0.77')).toBe(true);
    expect(okAt(M, b, '0.73')).toBe(true);
  });
  it('a field from a later release, when sent, is still typed; unknown fields fail under every release', () => {
    for (const r of RELEASES) {
      expect(okAt(M, mutate(market, [...fees, 'treasuryFee'], 0.01), r), r).toBe(false);
      expect(okAt(M, mutate(market, [...fees, 'treasuryFee'], '-0.01'), r), r).toBe(false);
      expect(okAt(M, mutate(market, [...fees, 'rebateFee'], '0.01'), r), r).toBe(false);
      expect(okAt(M, mutate(market, ['market', 'tickSize'], 1), r), r).toBe(false);
      expect(okAt(M, mutate(market, ['market', 'decimalPlaces'], 5), r), r).toBe(false);
      expect(okAt(M, mutate(market, ['market', 'id'], undefined), r), r).toBe(false);
    }
  });
  it('positions without fees and funding (v0.79), an asset without chainId, bounds without active (v0.77)', () => {
    const pos = mutate(load('positions.json'), ['positions', 'edges', 0, 'node', 'feesPaid'], undefined);
    expect(okAt('GET /api/v2/positions', pos, '0.79')).toBe(false);
    expect(okAt('GET /api/v2/positions', pos, '0.78')).toBe(true);
    const asset = mutate(load('asset.json'), ['asset', 'details', 'erc20', 'chainId'], undefined);
    expect(okAt('GET /api/v2/asset/{assetId}', asset, '0.79')).toBe(false);
    expect(okAt('GET /api/v2/asset/{assetId}', asset, '0.73')).toBe(true);
    const md = mutate(load('markets-data.json'), ['marketsData', 0, 'priceMonitoringBounds', 0, 'active'], undefined);
    expect(okAt('GET /api/v2/markets/data', md, '0.77')).toBe(false);
    expect(okAt('GET /api/v2/markets/data', md, '0.76')).toBe(true);
  });
  for (const [file, route] of Object.entries(FIXTURES)) {
    it(`${file}: without the fields newer than each release it passes there, and fails under v0.79 when any was dropped`, () => {
      for (const r of RELEASES) {
        const { body, dropped } = olderBody(DESCRIPTORS[route], load(file), r);
        const res = schemaFor(route, r).safeParse(body);
        expect(res.success, `${r}: ${res.success ? '' : res.error.message}`).toBe(true);
        if (dropped > 0) expect(okAt(route, body, LATEST), r).toBe(false);
      }
    });
  }
  it('every recorded body is mapped', () => {
    const files = readdirSync(new URL('recorded/', FIX)).filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'));
    expect(files.map((f) => `recorded/${f}`).sort()).toEqual(Object.keys(RECORDED).sort());
  });
  for (const [file, { route, release }] of Object.entries(RECORDED)) {
    it(`${file} (recorded, v${release}) fits its release (v0.79 only if nothing newer is missing); an unknown field still fails`, () => {
      const body = load(file);
      const r = schemaFor(route, release).safeParse(body);
      expect(r.success, r.success ? '' : r.error.message).toBe(true);
      // The order has no field newer than v0.73; the others lack some (fees v0.78, composite prices, position fees).
      expect(okAt(route, body, LATEST)).toBe(file === 'recorded/order.json');
      const top = Object.keys(body)[0]!;
      expect(okAt(route, mutate(body, [top, 'unlistedField'], 'x'), release)).toBe(false);
      expect(okAt(route, { ...body, unlistedField: 1 }, release)).toBe(false);
    });
  }
  it('recorded bodies with a wrong-typed value fail at their release', () => {
    const mk = load('recorded/market.json');
    expect(okAt('GET /api/v2/market/{marketId}', mutate(mk, ['market', 'decimalPlaces'], 5), '0.73')).toBe(false);
    expect(okAt('GET /api/v2/market/{marketId}', mutate(mk, ['market', 'fees', 'factors', 'makerFee'], 0.0002), '0.73')).toBe(false);
    const md = load('recorded/market-data-latest.json');
    expect(okAt('GET /api/v2/market/data/{marketId}/latest', mutate(md, ['marketData', 'openInterest'], 654289), '0.73')).toBe(false);
    const pos = load('recorded/positions.json');
    expect(okAt('GET /api/v2/positions', mutate(pos, ['positions', 'edges', 0, 'node', 'realisedPnl'], -234350), '0.73')).toBe(false);
    const ord = load('recorded/order.json');
    expect(okAt('GET /api/v2/order/{orderId}', mutate(ord, ['order', 'peggedOrder'], undefined), '0.73')).toBe(false);
  });
  for (const route of ROUTES) {
    it(`${route}: one-defect bodies are rejected under v0.73 too`, () => {
      fc.assert(
        fc.property(invalidArbitraryFor(route), ({ body, path, defect }) => {
          if (schemaFor(route, '0.73').safeParse(body).success) throw new Error(`v0.73 accepted ${defect} at ${path.join('.')}`);
        }),
        { numRuns: 100, seed: 13 },
      );
    });
  }
});
