/**
 * fast-check arbitraries compiled from the same descriptor as the zod schemas (descriptor.ts).
 * They produce any response the schema allows, biased toward the cases collectors get wrong:
 * digit strings far beyond 2^64 (30-120 digits), signs where allowed, "" in string fields,
 * omitted optional fields and oneof members, null messages, "NaN"/"Infinity"/"-Infinity" doubles,
 * unknown enum names (forward mode) and enum numbers, 64-bit boundaries, leap days and 9-digit
 * fractional seconds.
 */
import fc from 'fast-check';
import { DESCRIPTORS, ENUMS, type Desc, type Field, type RouteKey, type ScalarKind } from './descriptor.js';
import { I32_MAX, I32_MIN, I64_MAX, I64_MIN, U64_MAX, type Mode } from './schema.js';

export interface ArbOptions {
  mode?: Mode;
  /** longest array generated at each level (default 3) */
  maxLength?: number;
}

const digit = fc.constantFrom(...'0123456789'.split(''));
const nonZeroDigit = fc.constantFrom(...'123456789'.split(''));
/** a canonical unsigned integer of 30-120 digits */
const hugeDigits = fc.tuple(nonZeroDigit, fc.array(digit, { minLength: 29, maxLength: 119 })).map(([h, t]) => h + t.join(''));

const unsignedInt: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom('0', '1', '9223372036854775807', '9223372036854775808', '18446744073709551615', '18446744073709551616', '9007199254740993'),
  },
  { weight: 3, arbitrary: fc.bigInt({ min: 0n, max: U64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.bigInt({ min: U64_MAX + 1n, max: 10n ** 40n }).map(String) },
  { weight: 2, arbitrary: hugeDigits },
);
const signedInt: fc.Arbitrary<string> = fc.tuple(fc.boolean(), unsignedInt).map(([neg, v]) => (neg && v !== '0' ? '-' + v : v));
const fraction = fc.array(digit, { minLength: 1, maxLength: 40 }).map((d) => '.' + d.join(''));
const unsignedDec = fc.tuple(unsignedInt, fc.option(fraction, { nil: '' })).map(([i, f]) => i + f);
const signedDec = fc.tuple(fc.boolean(), unsignedDec).map(([neg, v]) => (neg ? '-' + v : v));
const orEmpty = (a: fc.Arbitrary<string>) => fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 6, arbitrary: a });

const rfc3339: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('0001-01-01T00:00:00Z', '2024-02-29T23:59:59.999999999Z', '2023-05-31T15:06:26.962283107Z') },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.option(fc.array(digit, { minLength: 1, maxLength: 9 }), { nil: undefined }),
      )
      .map(([d, frac]) => d.toISOString().slice(0, 19) + (frac ? '.' + frac.join('') : '') + 'Z'),
  },
);

function scalar(s: ScalarKind): fc.Arbitrary<unknown> {
  switch (s) {
    case 'uint64':
      return fc.oneof(
        fc.constantFrom('0', '1', '9007199254740993', '9223372036854775808', U64_MAX.toString()),
        fc.bigInt({ min: 0n, max: U64_MAX }).map(String),
      );
    case 'int64':
      return fc.oneof(
        fc.constantFrom('0', '-1', '1700000000000000000', I64_MIN.toString(), I64_MAX.toString()),
        fc.bigInt({ min: I64_MIN, max: I64_MAX }).map(String),
      );
    case 'int32':
      return fc.oneof(fc.constantFrom(0, I32_MIN, I32_MAX), fc.integer({ min: I32_MIN, max: I32_MAX }));
    case 'double':
      return fc.oneof(
        { weight: 4, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
        { weight: 1, arbitrary: fc.constantFrom('NaN', 'Infinity', '-Infinity') },
      );
    case 'bool':
      return fc.boolean();
    case 'string':
      return fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 3, arbitrary: fc.string({ maxLength: 70 }) });
    case 'bytes':
      return fc.uint8Array({ maxLength: 70 }).map((b) => Buffer.from(b).toString('base64'));
    case 'amount':
      return orEmpty(unsignedInt);
    case 'signedAmount':
      return orEmpty(signedInt);
    case 'decimal':
      return orEmpty(unsignedDec);
    case 'signedDecimal':
      return orEmpty(signedDec);
    case 'rfc3339':
      return rfc3339;
    case 'rfc3339OrEmpty':
      return orEmpty(rfc3339);
  }
}

const unknownEnumName = fc
  .tuple(
    fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('')),
    fc.array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'.split('')), { maxLength: 40 }),
  )
  .map(([h, t]) => h + t.join(''));

export function arbitraryOf(d: Desc, opts: ArbOptions = {}): fc.Arbitrary<unknown> {
  const mode = opts.mode ?? 'forward';
  const maxLength = opts.maxLength ?? 3;
  const go = (x: Desc): fc.Arbitrary<unknown> => {
    switch (x.t) {
      case 'scalar':
        return scalar(x.s);
      case 'enum': {
        const known = fc.constantFrom(...(ENUMS[x.e] as readonly string[]));
        const number = fc.integer({ min: I32_MIN, max: I32_MAX });
        return mode === 'forward'
          ? fc.oneof({ weight: 6, arbitrary: known }, { weight: 1, arbitrary: unknownEnumName }, { weight: 1, arbitrary: number })
          : fc.oneof({ weight: 6, arbitrary: known }, { weight: 1, arbitrary: number });
      }
      case 'arr':
        return fc.array(go(x.of), { maxLength });
      case 'nullable':
        return fc.option(go(x.of), { nil: null, freq: 6 });
      case 'opaque': {
        const known = record(x.known ?? {}, undefined);
        const extra = fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(k in (x.known ?? {})) && k !== '__proto__'),
          fc.jsonValue({ maxDepth: 2 }),
          { maxKeys: 3 },
        );
        return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...(k as object) }));
      }
      case 'obj':
        return record(x.fields, x.oneofs);
    }
  };
  const record = (fields: Record<string, Field>, oneofs: string[][] | undefined): fc.Arbitrary<unknown> => {
    const inOneof = new Set((oneofs ?? []).flat());
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const [k, f] of Object.entries(fields)) {
      if (inOneof.has(k)) continue;
      model[k] = go(f.d);
      if (!f.optional) required.push(k);
    }
    const base = fc.record(model, { requiredKeys: required });
    if (!oneofs?.length) return base;
    // each oneof group: none of its members, or exactly one
    const groups = oneofs.map((g) => fc.oneof(fc.constant({}), ...g.map((k) => go(fields[k]!.d).map((v) => ({ [k]: v })))));
    return fc.tuple(base, ...groups).map(([b, ...gs]) => Object.assign({}, b as object, ...gs));
  };
  return go(d);
}

/** An arbitrary for any response body the schema of `route` allows. */
export function arbitraryFor(route: RouteKey, opts: ArbOptions = {}): fc.Arbitrary<unknown> {
  const a = arbitraryOf(DESCRIPTORS[route], opts);
  if (route !== 'error') return a;
  // an error answer's code is a gRPC status code 1..16; some details are typed vega.ErrorDetail entries
  const detail = fc.record({
    '@type': fc.constant('type.googleapis.com/vega.ErrorDetail'),
    code: fc.integer({ min: I32_MIN, max: I32_MAX }),
    message: fc.string(),
    inner: fc.string(),
  });
  return fc.tuple(a, fc.integer({ min: 1, max: 16 }), fc.array(detail, { maxLength: 2 })).map(([e, code, typed]) => {
    const o = e as { code: number; details: unknown[] };
    return { ...o, code, details: [...typed, ...o.details] };
  });
}

// ---------------------------------------------------------------------------------------------
// Invalid answers: a valid body with exactly one defect, for checking that the schema is not lax.
// ---------------------------------------------------------------------------------------------

const WRONG: Record<ScalarKind | 'enum', readonly unknown[]> = {
  uint64: [18591101, '-1', '1.5', '18446744073709551616', '', ' 1', '01', null],
  int64: [5, '1.5', '9223372036854775808', '-9223372036854775809', '', '+1', '-0', null],
  int32: ['1', 1.5, 2 ** 31, true, null],
  double: ['nan', 'inf', '1.5', '+Infinity', true, null],
  bool: ['true', 0, null],
  string: [5, true, null, {}],
  bytes: ['%%%', 'YWI', 5, null],
  amount: ['-1', '1e5', '1.5', '01', 5, null],
  signedAmount: ['1e5', '1.5', '+1', '--1', 5, null],
  decimal: ['-1', '1e-5', '.5', '1.', '1,5', 5, null],
  signedDecimal: ['1e-5', '+1', '.5', 5, null],
  rfc3339: ['1700000000', '2023-11-14 22:13:20Z', '2023-11-14T22:13:20+01:00', '', 5, null],
  rfc3339OrEmpty: ['1700000000', '2023-13-01T00:00:00Z', 5, null],
  enum: [true, 1.5, 'lower_case', '', null, {}],
};

type Site = { path: (string | number)[]; wrong: readonly unknown[] } | { path: (string | number)[]; strict: true };

/** every scalar/enum value present in `v`, and every strict object, with its path */
function sites(d: Desc, v: unknown, path: (string | number)[], out: Site[]): void {
  if (v === undefined) return;
  switch (d.t) {
    case 'scalar':
      out.push({ path, wrong: WRONG[d.s] });
      return;
    case 'enum':
      out.push({ path, wrong: WRONG.enum });
      return;
    case 'nullable':
      if (v !== null) sites(d.of, v, path, out);
      return;
    case 'arr':
      if (Array.isArray(v)) v.forEach((x, i) => sites(d.of, x, [...path, i], out));
      return;
    case 'opaque':
      return; // anything goes inside an unexpanded object
    case 'obj':
      if (v === null || typeof v !== 'object') return;
      out.push({ path, strict: true });
      for (const [k, f] of Object.entries(d.fields)) sites(f.d, (v as Record<string, unknown>)[k], [...path, k], out);
  }
}

export interface Defect {
  body: unknown;
  path: (string | number)[];
  defect: string;
}

/** A body that the schema of `route` must reject: a valid body with one wrong-typed value or one unknown field. */
export function invalidArbitraryFor(route: RouteKey, opts: ArbOptions = {}): fc.Arbitrary<Defect> {
  return fc.tuple(arbitraryFor(route, opts), fc.nat(), fc.nat()).map(([body, i, j]) => {
    const json = JSON.parse(JSON.stringify(body)) as unknown;
    const all: Site[] = [];
    sites(DESCRIPTORS[route], json, [], all);
    const site = all[i % all.length]!;
    let target = json as any;
    for (const k of site.path.slice(0, -1)) target = target[k];
    if ('strict' in site) {
      let obj = json as any;
      for (const k of site.path) obj = obj[k];
      obj['unlistedField'] = 'x';
      return { body: json, path: site.path, defect: 'unknown field "unlistedField"' };
    }
    const wrong = site.wrong[j % site.wrong.length];
    const last = site.path[site.path.length - 1]!;
    target[last] = wrong;
    return { body: json, path: site.path, defect: `value ${JSON.stringify(wrong)}` };
  });
}
