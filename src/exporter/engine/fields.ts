/**
 * Field types shared by the configuration schema and the collectors' own parts of it. Durations
 * are strings such as "15s" or "500ms"; the schema turns them into milliseconds.
 */
import { z } from 'zod';
import { isId } from '../../shared/ids.js';

const DURATION = /^(\d+)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export const duration = z
  .string({ error: 'expected a duration such as "15s", "500ms", "1m"' })
  .regex(DURATION, { error: 'expected a duration such as "15s", "500ms", "1m"' })
  .transform((s) => {
    const [, n, unit] = DURATION.exec(s)!;
    return Number(n) * UNIT_MS[unit!]!;
  })
  .refine((ms) => ms > 0, { error: 'expected a duration greater than zero' });

/**
 * An id (party, market, order, asset, resource): any non-empty string without control characters,
 * as the specification types ids (src/shared/ids.ts); "network" is a party id like any other.
 */
export const anyId = z.string().refine(isId, { error: 'expected an id: a non-empty string without control characters' });

/** Interval, deadline and series lifetime: every collector has these. */
export function timing(interval: string) {
  return {
    interval: duration.prefault(interval),
    timeout: duration.optional(),
    /** How long series outlive the last successful poll; default three intervals. */
    max_age: duration.optional(),
  };
}

/** The part of the configuration of a collector that watches a list of ids (off until some are listed). */
export function idListConfig<T extends z.ZodType<string>>(interval: string, id: T) {
  return z.strictObject({ enabled: z.boolean().optional(), ...timing(interval), ids: z.array(id).default([]) }).prefault({});
}

/** The part of the configuration of a collector with no settings of its own. */
export function simpleCollectorConfig(interval: string, enabled: boolean) {
  return z.strictObject({ enabled: z.boolean().default(enabled), ...timing(interval) }).prefault({});
}
