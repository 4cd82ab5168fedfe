/**
 * Listed orders: GET /api/v2/order/{id} (and ?version=N when pinned). A 404 is "not found", not a
 * failure. Size and price are scaled by the market's decimals when the market is known.
 */
import { z } from 'zod';
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { anyId, timing } from '../../engine/fields.js';
import { amount, enumValue, id, obj, pathSegment, scaleExact, u64, unixNsSeconds } from '../convert.js';
import { UpstreamHttpError } from '../../errors.js';
import type { Sample } from '../../engine/labels.js';
import { oneHot } from '../scale.js';
import { ORDER_STATUS } from '../../../shared/enums.js';
import { isId } from '../../../shared/ids.js';
import type { Directory, MarketFacts } from '../directory.js';
import { defineCollector, watchesListedIds, type CollectorDeps } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const ORD = 'GET /api/v2/order/{id}';
const N = ['network'] as const;
const metric = metricsOf('orders');

/** The families this collector writes, in exposition order. */
export const M = {
  orderFound: metric('vega_order_found', [...N, 'order_id'], '')
    .source(`${ORD} (404 is 0)`)
    .help('Whether a listed order exists (1) or not (0).'),
  orderInfo: metric('vega_order_info', [...N, 'order_id', 'market_id', 'party_id', 'side', 'type', 'time_in_force'], '')
    .source(`${ORD} marketId, partyId, side, type, timeInForce`)
    .help('Order identity; value always 1.'),
  orderStatus: metric('vega_order_status', [...N, 'order_id', 'status'], '')
    .source(`${ORD} status`)
    .help('Order status: 1 for the current status, 0 for the other known ones.'),
  orderSize: metric('vega_order_size', [...N, 'order_id'], 'contracts')
    .source(`${ORD} size / 10^positionDecimalPlaces`)
    .help('Order size in contracts. Exact up to float64 rounding.'),
  orderRemaining: metric('vega_order_remaining', [...N, 'order_id'], 'contracts')
    .source(`${ORD} remaining / 10^positionDecimalPlaces`)
    .help('Unfilled size in contracts. Exact up to float64 rounding.'),
  orderPrice: metric('vega_order_price', [...N, 'order_id'], 'quote units')
    .source(`${ORD} price / 10^decimalPlaces`)
    .help(
      "Limit price in the market's price units (quote units per contract). Exact up to float64 rounding: the decimal string (any length, no 64-bit limit) is scaled by its decimals exactly and rounded once.",
    ),
  orderVersion: metric('vega_order_version', [...N, 'order_id'], 'version')
    .source(`${ORD} version (latest)`)
    .help('Latest version of the order: 1 plus the number of amendments.'),
  orderPeggedOffset: metric('vega_order_pegged_offset', [...N, 'order_id', 'reference'], 'quote units')
    .source(`${ORD} peggedOrder.offset / 10^decimalPlaces, peggedOrder.reference`)
    .help(
      "Pegged orders: the offset from the reference price (reference: PEGGED_REFERENCE_MID, _BEST_BID, _BEST_ASK) in the market's price units; absent for other orders and while the market's decimals are unknown. Exact up to float64 rounding.",
    ),
  orderReason: metric('vega_order_reason_info', [...N, 'order_id', 'reason'], '')
    .source(`${ORD} reason`)
    .help('Why the order was rejected (an ORDER_ERROR_* name); present (1) only while the order carries a reason.'),
  orderTimestamp: metric('vega_order_timestamp_seconds', [...N, 'order_id', 'event'], 'seconds since epoch')
    .source(`${ORD} createdAt, updatedAt, expiresAt (unix ns; "0" is absent)`)
    .help('Order times that are set: created, updated, expires.'),
} as const satisfies Record<string, MetricDef>;

export interface OrderRef {
  id: string;
  version?: number;
}

/** A version pin at the end of a listed order: "@" and a version of 1 or more. */
const PIN = /^(.*)@(\d+)$/s;
const VERSION = /^[1-9]\d{0,8}$/;

/**
 * A listed order as the configuration gives it: "<id>", "<id>@<version>", or { id, version? }
 * (the object form names an id that itself ends in "@" and digits).
 */
export function parseOrderRef(s: string | { id: string; version?: number | undefined }): OrderRef {
  if (typeof s !== 'string') return s.version === undefined ? { id: s.id } : { id: s.id, version: s.version };
  const pin = PIN.exec(s);
  return pin ? { id: pin[1]!, version: Number(pin[2]) } : { id: s };
}

/** Samples for one order version; `latestVersion` comes from the unpinned lookup. A FieldError skips the order. */
export function orderSamples(target: string, body: unknown, latestVersion: number, market: MarketFacts | undefined): Sample[] {
  const o = obj(obj(body, 'body').order, 'order');
  const t = [target, id(o.id, 'order.id')];
  const out: Sample[] = [{ metric: M.orderFound, values: t, value: 1 }];
  const marketId = id(o.marketId, 'order.marketId');
  out.push({
    metric: M.orderInfo,
    values: [
      ...t,
      marketId,
      id(o.partyId, 'order.partyId'),
      enumValue(o.side, 'order.side'),
      enumValue(o.type, 'order.type'),
      enumValue(o.timeInForce, 'order.timeInForce'),
    ],
    value: 1,
  });
  for (const [s, v] of oneHot(ORDER_STATUS, enumValue(o.status, 'order.status'))) out.push({ metric: M.orderStatus, values: [...t, s], value: v });
  const size = u64(o.size, 'order.size');
  const remaining = u64(o.remaining, 'order.remaining');
  const price = amount(o.price, 'order.price'); // uint256 in core: any length
  if (market) {
    out.push({ metric: M.orderSize, values: t, value: scaleExact(size, market.positionDecimalPlaces) });
    out.push({ metric: M.orderRemaining, values: t, value: scaleExact(remaining, market.positionDecimalPlaces) });
    if (price !== undefined) out.push({ metric: M.orderPrice, values: t, value: scaleExact(price, market.decimalPlaces) });
  }
  // Pegged orders: the offset from the reference price, in the market's price units. A node sends
  // null (or nothing) for other orders; an unset offset ("") is absent, never 0.
  if (o.peggedOrder !== null && o.peggedOrder !== undefined) {
    const pegged = obj(o.peggedOrder, 'order.peggedOrder');
    const reference = enumValue(pegged.reference, 'order.peggedOrder.reference');
    const offset = amount(pegged.offset, 'order.peggedOrder.offset', true); // read signed: a sign is no reason to drop it
    if (market && offset !== undefined) out.push({ metric: M.orderPeggedOffset, values: [...t, reference], value: scaleExact(offset, market.decimalPlaces) });
  }
  // Set on rejected orders only (proto3 optional): why the order was rejected.
  if (o.reason !== undefined && o.reason !== null) {
    const reason = enumValue(o.reason, 'order.reason');
    if (reason !== 'ORDER_ERROR_UNSPECIFIED') out.push({ metric: M.orderReason, values: [...t, reason], value: 1 });
  }
  out.push({ metric: M.orderVersion, values: t, value: latestVersion });
  for (const [ev, field] of [
    ['created', 'createdAt'],
    ['updated', 'updatedAt'],
    ['expires', 'expiresAt'],
  ] as const) {
    const v = unixNsSeconds(o[field], `order.${field}`);
    if (v !== undefined) out.push({ metric: M.orderTimestamp, values: [...t, ev], value: v });
  }
  return out.filter((x) => Number.isFinite(x.value)); // beyond float64's range: absent
}

export class OrdersCollector implements Collector {
  private readonly refs: OrderRef[];

  constructor(
    ids: readonly (string | { id: string; version?: number | undefined })[],
    private readonly directory: Directory,
  ) {
    this.refs = ids.map(parseOrderRef);
  }

  async collect(ctx: CollectContext): Promise<CollectResult> {
    const samples: Sample[] = [];
    const skips = new RowSkips();
    for (const ref of this.refs) {
      try {
        samples.push(...((await this.one(ctx, ref, skips)) ?? []));
      } catch (err) {
        if (!(err instanceof UpstreamHttpError && err.status === 404)) throw err;
        samples.push({ metric: M.orderFound, values: [ctx.target, ref.id], value: 0 });
      }
    }
    return { samples, skipped: skips.list };
  }

  /** One listed order; a bad field skips it (undefined), an HTTP error propagates. */
  private async one(ctx: CollectContext, ref: OrderRef, skips: RowSkips): Promise<Sample[] | undefined> {
    const path = `/api/v2/order/${pathSegment(ref.id)}`;
    const latest = await ctx.client.get(path, [], 'orders', ctx.signal);
    const latestVersion = skips.row(() => Number(u64(obj(obj(latest.json, 'body').order, 'order').version, 'order.version')));
    if (latestVersion === undefined) return undefined;
    const body = ref.version === undefined ? latest.json : (await ctx.client.get(path, [['version', String(ref.version)]], 'orders', ctx.signal)).json;
    const marketId = skips.row(() => id(obj(obj(body, 'body').order, 'order').marketId, 'order.marketId'));
    if (marketId === undefined) return undefined;
    const market = await this.directory.market(ctx.client, marketId, ctx.signal);
    return skips.row(() => orderSamples(ctx.target, body, latestVersion, market));
  }
}

/** A listed order in its string form: an id, optionally pinned with "@<version>" (1 or more). */
const orderRefString = z.string().superRefine((s, ctx) => {
  const pin = PIN.exec(s);
  if (pin && !VERSION.test(pin[2]!))
    ctx.addIssue({
      code: 'custom',
      message: 'expected "<id>@<version>" with a version of 1 or more (an id that itself ends in "@" and digits is written { id: "..." })',
    });
  else if (!isId(pin ? pin[1]! : s))
    ctx.addIssue({ code: 'custom', message: 'expected an order id: a non-empty string without control characters, optionally @<version>' });
});
const orderRefObject = z.strictObject({ id: anyId, version: z.number().int().min(1).max(999_999_999).optional() });

export default defineCollector({
  name: 'orders',
  scope: 'network',
  title: 'orders collector (`GET /api/v2/order/{id}` for listed ids; every 60 s)',
  families: M,
  config: z
    .strictObject({ enabled: z.boolean().optional(), ...timing('60s'), ids: z.array(z.union([orderRefString, orderRefObject])).default([]) })
    .prefault({}),
  ...watchesListedIds<{ enabled?: boolean | undefined; ids: unknown[] }>('orders', 'ids', (c) => c.ids.length),
  create: (c, { shared: directory }: CollectorDeps<Directory>) => new OrdersCollector(c.ids, directory),
});
