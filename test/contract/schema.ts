/**
 * Zod schemas of the data-node responses the exporter reads, compiled from descriptor.ts.
 *
 * Two modes:
 *  - ENDPOINTS (forward-compatible, the default): what a collector must ACCEPT. Enum fields take any
 *    well-formed enum name (enums grow between releases: "an unknown value is data, never a crash")
 *    or an integer (how a server sends a value its descriptor does not know).
 *  - ENDPOINTS_V079: what a v0.79.0 node SENDS. Enum fields take only the published v0.79 names, or an
 *    integer. Used to check the simulator, which claims to be v0.79.0.
 * Objects are strict in both modes: a field the reference does not list is a failure, except inside
 * objects the reference marks "not expanded".
 *
 * Per release (v0.73 to v0.79, `schemaFor(route, release)`): a field the descriptor marks `since` a later
 * release may be absent; every other rule (types, unknown fields) is the same. ENDPOINTS and
 * ENDPOINTS_V079 are the v0.79 schemas.
 */
import { z } from 'zod';
import {
  DESCRIPTORS,
  ENUMS,
  ERROR_DETAIL_DESCRIPTOR,
  ERROR_DETAIL_TYPE,
  LATEST,
  RELEASES,
  type Desc,
  type Field,
  type Release,
  type RouteKey,
  type ScalarKind,
} from './descriptor.js';

export { ENUMS, ROUTES, DESCRIPTORS, RELEASES, LATEST, type RouteKey, type EnumName, type Release } from './descriptor.js';

export type Mode = 'forward' | 'v079';

export const U64_MAX = (1n << 64n) - 1n;
export const I64_MIN = -(1n << 63n);
export const I64_MAX = (1n << 63n) - 1n;
export const I32_MIN = -(2 ** 31);
export const I32_MAX = 2 ** 31 - 1;

export const RE = {
  uint: /^(0|[1-9][0-9]*)$/,
  int: /^(0|-?[1-9][0-9]*)$/,
  amount: /^(|0|[1-9][0-9]*)$/,
  signedAmount: /^(|0|-?[1-9][0-9]*)$/,
  decimal: /^(|(0|[1-9][0-9]*)(\.[0-9]+)?)$/,
  signedDecimal: /^(|-?(0|[1-9][0-9]*)(\.[0-9]+)?)$/,
  // RFC3339 in UTC with 0-9 fractional digits (datanode-api.md "Statistics")
  rfc3339: /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]{1,9})?Z$/,
  base64: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  enumName: /^[A-Z][A-Z0-9_]*$/,
} as const;

const NON_FINITE = ['NaN', 'Infinity', '-Infinity'] as const;

function validDate(s: string): boolean {
  const m = RE.rfc3339.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dim = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= dim[mo - 1]!;
}

function scalar(s: ScalarKind): z.ZodType {
  switch (s) {
    case 'uint64':
      return z
        .string()
        .regex(RE.uint, 'uint64: quoted canonical decimal')
        .refine((v) => !RE.uint.test(v) || BigInt(v) <= U64_MAX, 'uint64 out of range');
    case 'int64':
      return z
        .string()
        .regex(RE.int, 'int64: quoted canonical decimal')
        .refine((v) => !RE.int.test(v) || (BigInt(v) >= I64_MIN && BigInt(v) <= I64_MAX), 'int64 out of range');
    case 'int32':
      return z.number().int().min(I32_MIN).max(I32_MAX);
    case 'double':
      return z.union([z.number(), z.enum(NON_FINITE)]);
    case 'bool':
      return z.boolean();
    case 'string':
      return z.string();
    case 'bytes':
      return z.string().regex(RE.base64, 'bytes: padded standard base64');
    case 'amount':
      return z.string().regex(RE.amount, 'amount: unsigned decimal integer string');
    case 'signedAmount':
      return z.string().regex(RE.signedAmount, 'signed decimal integer string');
    case 'decimal':
      return z.string().regex(RE.decimal, 'unsigned decimal string');
    case 'signedDecimal':
      return z.string().regex(RE.signedDecimal, 'signed decimal string');
    case 'rfc3339':
      return z.string().refine(validDate, 'RFC3339 UTC time with 0-9 fractional digits');
    case 'rfc3339OrEmpty':
      return z.string().refine((v) => v === '' || validDate(v), 'RFC3339 UTC time or ""');
  }
}

/** whether a body of `release` may lack the field */
const mayLack = (f: Field, release: Release): boolean => f.optional || (f.since !== undefined && RELEASES.indexOf(f.since) > RELEASES.indexOf(release));

export function compile(d: Desc, mode: Mode, release: Release = LATEST): z.ZodType {
  const shapeOf = (fields: Record<string, Field>): Record<string, z.ZodType> =>
    Object.fromEntries(
      Object.entries(fields).map(([k, f]) => {
        const s = compile(f.d, mode, release);
        return [k, mayLack(f, release) ? s.optional() : s];
      }),
    );
  switch (d.t) {
    case 'scalar':
      return scalar(d.s);
    case 'enum': {
      const names = ENUMS[d.e] as readonly string[];
      const nameSchema = mode === 'v079' ? z.enum(names as [string, ...string[]]) : z.string().regex(RE.enumName, `enum ${d.e}: an UPPER_SNAKE name`);
      return z.union([nameSchema, z.number().int().min(I32_MIN).max(I32_MAX)]);
    }
    case 'arr':
      return z.array(compile(d.of, mode, release));
    case 'nullable':
      return compile(d.of, mode, release).nullable();
    case 'opaque':
      return z.looseObject(shapeOf(d.known ?? {}));
    case 'obj': {
      let s: z.ZodType = z.strictObject(shapeOf(d.fields));
      if (d.oneofs?.length) {
        const groups = d.oneofs;
        s = s.superRefine((v, ctx) => {
          for (const g of groups) {
            const set = g.filter((k) => (v as Record<string, unknown>)[k] !== undefined);
            if (set.length > 1) ctx.addIssue({ code: 'custom', message: `oneof: at most one of ${g.join(', ')}; got ${set.join(', ')}` });
          }
        });
      }
      return s;
    }
  }
}

const errorDetail = {
  forward: compile(ERROR_DETAIL_DESCRIPTOR, 'forward'),
  v079: compile(ERROR_DETAIL_DESCRIPTOR, 'v079'),
};

function build(mode: Mode, release: Release): Record<RouteKey, z.ZodType> {
  const out = {} as Record<RouteKey, z.ZodType>;
  for (const [k, d] of Object.entries(DESCRIPTORS) as [RouteKey, Desc][]) {
    let s = compile(d, mode, release);
    if (k === 'error') {
      // gRPC status codes are 1..16 in an error answer; a vega.ErrorDetail entry is typed.
      s = s.superRefine((v, ctx) => {
        const e = v as { code: number; details: Record<string, unknown>[] };
        if (e.code < 1 || e.code > 16) ctx.addIssue({ code: 'custom', message: `code ${e.code} is not a gRPC error code` });
        e.details.forEach((det, i) => {
          if (det['@type'] !== ERROR_DETAIL_TYPE) return;
          const r = errorDetail[mode].safeParse(det);
          if (!r.success) ctx.addIssue({ code: 'custom', path: ['details', i], message: r.error.message });
        });
      });
    }
    out[k] = s;
  }
  return out;
}

/** route key → response schema (forward-compatible: what a collector must accept) */
export const ENDPOINTS: Record<RouteKey, z.ZodType> = build('forward', LATEST);
/** route key → response schema, v0.79.0 enum names only (what a v0.79.0 node sends) */
export const ENDPOINTS_V079: Record<RouteKey, z.ZodType> = build('v079', LATEST);

const byRelease = new Map<Release, Record<RouteKey, z.ZodType>>([[LATEST, ENDPOINTS]]);
/** route key → the forward-compatible schema of a body sent by a node of `release` */
export function schemaFor(route: RouteKey, release: Release): z.ZodType {
  let all = byRelease.get(release);
  if (!all) byRelease.set(release, (all = build('forward', release)));
  return all[route];
}

/** Concrete path → route key (for checking live answers). */
export function routeFor(path: string): RouteKey | undefined {
  const p = path.split('?')[0]!;
  if (p === '/statistics') return 'GET /statistics';
  if (p === '/markets') return 'GET /markets';
  if (/^\/api\/v2\/market\/data\/[^/]+\/latest$/.test(p)) return 'GET /api/v2/market/data/{marketId}/latest';
  if (/^\/api\/v2\/market\/[^/]+$/.test(p)) return 'GET /api/v2/market/{marketId}';
  if (/^\/api\/v2\/asset\/[^/]+$/.test(p)) return 'GET /api/v2/asset/{assetId}';
  if (/^\/api\/v2\/order\/[^/]+$/.test(p)) return 'GET /api/v2/order/{orderId}';
  const k = `GET ${p}` as RouteKey;
  return k in DESCRIPTORS ? k : undefined;
}

/** Freshness headers (datanode-api.md): decimal integers when present. */
export const FRESHNESS_HEADERS = z.object({
  'x-block-height': z
    .string()
    .regex(RE.uint)
    .refine((v) => !RE.uint.test(v) || BigInt(v) <= U64_MAX)
    .optional(),
  'x-block-timestamp': z
    .string()
    .regex(RE.int)
    .refine((v) => !RE.int.test(v) || (BigInt(v) >= I64_MIN && BigInt(v) <= I64_MAX))
    .optional(),
});
