/** How the simulated network's data moves block by block: markets, positions, orders, signatures. */
import type { Rng } from './rng.js';
import { POSITION_STATUS } from '../../src/shared/enums.js';
import type { OrderVersion } from './model.js';
import type { SimNetwork } from './network.js';
import { orderPrice, pushSignature } from './generate.js';

export function moveMarkets(net: SimNetwork, rng: Rng): void {
  if (net.markets.length === 0 || !rng.chance(0.01)) return;
  const m = rng.pick(net.markets);
  if (m.state === 'STATE_ACTIVE') {
    m.tradingMode = m.tradingMode === 'TRADING_MODE_CONTINUOUS' ? 'TRADING_MODE_MONITORING_AUCTION' : 'TRADING_MODE_CONTINUOUS';
  } else if (m.state === 'STATE_SUSPENDED' && rng.chance(0.3)) {
    m.state = 'STATE_ACTIVE';
    m.tradingMode = 'TRADING_MODE_CONTINUOUS';
  } else if (m.state === 'STATE_PENDING' && rng.chance(0.3)) {
    m.state = 'STATE_ACTIVE';
    m.tradingMode = 'TRADING_MODE_CONTINUOUS';
    m.timestamps.open = net.blockTimeNs;
  }
}

export function movePositions(net: SimNetwork, rng: Rng): void {
  if (net.positions.length === 0) return;
  for (let k = 0; k < 2; k++) {
    const p = rng.pick(net.positions);
    p.openVolume += BigInt(rng.int(-100, 100));
    p.unrealisedPnl += BigInt(rng.int(-500_000, 500_000));
    if (rng.chance(0.2)) p.realisedPnl += BigInt(rng.int(-100_000, 100_000));
    p.status = rng.chance(0.01) ? rng.pick(POSITION_STATUS) : p.status;
    p.updatedAt = net.blockTimeNs;
  }
}

export function moveOrders(net: SimNetwork, rng: Rng): void {
  if (net.orders.length === 0 || !rng.chance(0.3)) return;
  const order = rng.pick(net.orders);
  const cur = order.versions[order.versions.length - 1]!;
  if (cur.status !== 'STATUS_ACTIVE' && cur.status !== 'STATUS_PARTIALLY_FILLED') return;
  const at = (net.blockTimeNs / 1000n) * 1000n;
  const roll = rng.int(1, 10);
  if (roll <= 5) {
    // Amend: a new version with a new price (of the same magnitude) and size.
    const size = cur.size + BigInt(rng.int(-Number(cur.size < 1000n ? cur.size - 1n : 1000n), 1000));
    const filled = cur.size - cur.remaining;
    order.versions.push({
      ...cur,
      version: cur.version + 1,
      price: orderPrice(rng, cur.price > 2n ** 64n),
      size,
      remaining: size - filled > 0n ? size - filled : size,
      updatedAt: at,
    });
    return;
  }
  // Fills and cancels change the order in place, as the data node's latest version does.
  const next: OrderVersion = { ...cur, updatedAt: at };
  if (roll <= 7) {
    next.remaining = cur.remaining / 2n;
    next.status = next.remaining === 0n ? 'STATUS_FILLED' : 'STATUS_PARTIALLY_FILLED';
  } else if (roll <= 9) {
    next.remaining = 0n;
    next.status = 'STATUS_FILLED';
  } else {
    next.status = 'STATUS_CANCELLED';
  }
  order.versions[order.versions.length - 1] = next;
}

export function addSignature(net: SimNetwork, rng: Rng): void {
  const ids = [...net.signatures.keys()];
  if (ids.length === 0) return;
  const id = rng.pick(ids);
  const list = net.signatures.get(id)!;
  if (list.length < net.opts.validators) pushSignature(net, id, rng, list[0]?.kind ?? 'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL');
}
