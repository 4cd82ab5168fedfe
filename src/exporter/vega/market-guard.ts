/**
 * The market guard, shared by the collectors with per-market series (markets, market_data):
 * beyond max_markets their per-market series stop and an over-limit gauge says so; an allow-list of
 * market ids or codes (empty: all); counts only.
 */
import { z } from 'zod';
import { timing } from '../engine/fields.js';

/** The guard as a collector's part of the configuration schema. */
export function marketGuardConfig(interval: string) {
  return z
    .strictObject({
      enabled: z.boolean().default(true),
      ...timing(interval),
      max_markets: z.number().int().min(0).default(500),
      allow: z.array(z.string().min(1)).default([]),
      counts_only: z.boolean().default(false),
    })
    .prefault({});
}

export interface MarketOptions {
  maxMarkets: number;
  allow: readonly string[];
  countsOnly: boolean;
}
