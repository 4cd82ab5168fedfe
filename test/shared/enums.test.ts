/**
 * src/shared/enums.ts is shared by the simulator and the exporter, so a wrong name there would be
 * wrong in both and no other test would notice: check it against the contract's lists, written from
 * the published v0.79 definitions.
 */
import { describe, expect, it } from 'vitest';
import * as shared from '../../src/shared/enums.js';
import { ENUMS } from '../contract/schema.js';

const SAME: [keyof typeof shared, keyof typeof ENUMS][] = [
  ['CHAIN_STATUS', 'ChainStatus'],
  ['MARKET_STATE', 'MarketState'],
  ['AUCTION_TRIGGER', 'AuctionTrigger'],
  ['TRADING_MODE', 'MarketTradingMode'],
  ['POSITION_STATUS', 'PositionStatus'],
  ['SIDE', 'Side'],
  ['TIME_IN_FORCE', 'OrderTimeInForce'],
  ['ORDER_TYPE', 'OrderType'],
  ['ORDER_STATUS', 'OrderStatus'],
  ['PEGGED_REFERENCE', 'PeggedReference'],
  ['NODE_SIGNATURE_KIND', 'NodeSignatureKind'],
];

describe('shared enum lists match the published v0.79 lists', () => {
  it.each(SAME)('%s = ENUMS.%s (same names, same order)', (ours, theirs) => {
    expect([...(shared[ours] as readonly string[])]).toEqual([...ENUMS[theirs]]);
  });

  it('ORDER_REJECT_REASONS are published OrderError names', () => {
    for (const r of shared.ORDER_REJECT_REASONS) expect(ENUMS.OrderError).toContain(r);
  });

  it('every exported list is checked here', () => {
    const lists = Object.entries(shared)
      .filter(([, v]) => Array.isArray(v))
      .map(([k]) => k)
      .sort();
    expect(lists).toEqual([...SAME.map(([k]) => k), 'ORDER_REJECT_REASONS'].sort());
  });
});
