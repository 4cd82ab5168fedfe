/**
 * Listed orders: GET /api/v2/order/{id} (and ?version=N when pinned). A 404 is "not found", not a
 * failure. Size and price are scaled by the market's decimals when the market is known.
 */
import { z } from 'zod';
import { M } from '../exposition/catalogue.js';
import { idListConfig } from '../config/fields.js';
import { amount, enumValue, id, obj, scaleExact, u64, unixNsSeconds } from '../upstream/convert.js';
import { UpstreamHttpError } from '../errors.js';
import type { Sample } from '../exposition/labels.js';
import { oneHot } from '../upstream/scale.js';
import { ORDER_STATUS } from '../../shared/enums.js';
import type { Directory, MarketFacts } from '../upstream/directory.js';
import { defineCollector, watchesListedIds } from './define.js';
import { RowSkips } from './rows.js';
import type { CollectContext, CollectResult, Collector } from './types.js';

export interface OrderRef {
  id: string;
  version?: number;
}

export function parseOrderRef(s: string): OrderRef {
  const [id, v] = s.split('@') as [string, string | undefined];
  return v === undefined ? { id } : { id, version: Number(v) };
}

/** Samples for one order version; `latestVersion` comes from the unpinned lookup. A FieldError skips the order. */
export function orderSamples(target: string, body: unknown, latestVersion: number, market: MarketFacts | undefined): Sample[] {
  const o = obj(obj(body, 'body').order, 'order');
  const t = [target, id(o.id, 'order.id')];
  const out: Sample[] = [{ metric: M.orderFound, values: t, value: 1 }];
  const marketId = id(o.marketId, 'order.marketId');
  out.push({ metric: M.orderInfo, values: [...t, marketId, id(o.partyId, 'order.partyId', true), enumValue(o.side, 'order.side'), enumValue(o.type, 'order.type'), enumValue(o.timeInForce, 'order.timeInForce')], value: 1 });
  for (const [s, v] of oneHot(ORDER_STATUS, enumValue(o.status, 'order.status'))) out.push({ metric: M.orderStatus, values: [...t, s], value: v });
  const size = u64(o.size, 'order.size');
  const remaining = u64(o.remaining, 'order.remaining');
  const price = amount(o.price, 'order.price'); // uint256 in core: any length
  if (market) {
    out.push({ metric: M.orderSize, values: t, value: scaleExact(size, market.positionDecimalPlaces) });
    out.push({ metric: M.orderRemaining, values: t, value: scaleExact(remaining, market.positionDecimalPlaces) });
    if (price !== undefined) out.push({ metric: M.orderPrice, values: t, value: scaleExact(price, market.decimalPlaces) });
  }
  out.push({ metric: M.orderVersion, values: t, value: latestVersion });
  for (const [ev, field] of [['created', 'createdAt'], ['updated', 'updatedAt'], ['expires', 'expiresAt']] as const) {
    const v = unixNsSeconds(o[field], `order.${field}`);
    if (v !== undefined) out.push({ metric: M.orderTimestamp, values: [...t, ev], value: v });
  }
  return out.filter((x) => Number.isFinite(x.value)); // beyond float64's range: absent
}

export class OrdersCollector implements Collector {
  private readonly refs: OrderRef[];

  constructor(ids: readonly string[], private readonly directory: Directory) {
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
    const path = `/api/v2/order/${ref.id}`;
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

/** An order id, optionally pinned to a version: "<id>" or "<id>@<version>". */
const orderRef = z.string().regex(/^[0-9a-f]{64}(@[1-9]\d{0,8})?$/, { error: 'expected a 64-character hex order id, optionally @<version> (1 or more)' });

export default defineCollector({
  name: 'orders',
  scope: 'network',
  title: 'orders collector (`GET /api/v2/order/{id}` for listed ids; every 60 s)',
  config: idListConfig('60s', orderRef),
  ...watchesListedIds<{ enabled?: boolean | undefined; ids: string[] }>('orders', 'ids', (c) => c.ids.length),
  create: (c, { directory }) => new OrdersCollector(c.ids, directory),
});
