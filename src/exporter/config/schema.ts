/**
 * The configuration schema: one zod schema, the types derived from it. Durations are strings such
 * as "15s" or "500ms"; the schema turns them into milliseconds.
 */
import { z } from 'zod';

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

const listenAddress = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, { error: 'expected host:port, [ipv6]:port or :port' })
  .refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, { error: 'port must be at most 65535' });

const targetName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/, { error: 'expected 1-63 characters: letters, digits, _ . : -' });

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.search === '';
  } catch {
    return false;
  }
}, { error: 'expected an http(s) URL without credentials or query, e.g. http://127.0.0.1:3008' });

export const targetSchema = z.strictObject({
  name: targetName,
  url: httpUrl,
  /** Extra request headers (an API key for a gateway, say). Values are never logged. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, { error: 'expected a header name' }), z.string()).default({}),
  /** Put the target in a named network (default: grouped by the chain id it reports). */
  network: targetName.optional(),
});
export type TargetConfig = z.output<typeof targetSchema>;
export const targetListSchema = z.array(targetSchema);

const HEX64 = /^[0-9a-f]{64}$/;
const hex64 = z.string().regex(HEX64, { error: 'expected a 64-character lowercase hex id' });
const partyId = z.string().regex(/^([0-9a-f]{64}|network)$/, { error: 'expected a 64-character hex party id or "network"' });
/** An order id, optionally pinned to a version: "<id>" or "<id>@<version>". */
const orderRef = z.string().regex(/^[0-9a-f]{64}(@[1-9]\d{0,8})?$/, { error: 'expected a 64-character hex order id, optionally @<version> (1 or more)' });

function timing(interval: string) {
  return {
    interval: duration.prefault(interval),
    timeout: duration.optional(),
    /** How long series outlive the last successful poll; default three intervals. */
    max_age: duration.optional(),
  };
}

function collectorSchema(interval: string, enabled: boolean) {
  return z.strictObject({ enabled: z.boolean().default(enabled), ...timing(interval) }).prefault({});
}

export const configSchema = z
  .strictObject({
    targets: z.array(targetSchema, { error: 'expected a list of targets' }).default([]),
    web: z
      .strictObject({
        listen_address: listenAddress.default('127.0.0.1:19308'),
        max_connections: z.number().int().positive().default(256),
        /** exporter-toolkit web-config file: TLS, client certificates, basic auth. */
        config_file: z.string().min(1).optional(),
        /**
         * Poll and render in a worker thread, so that large polls never delay a scrape. auto: on when
         * the configuration can produce more than ~50,000 series (see expectedSeries), off otherwise
         * (one thread is about 9 MiB smaller).
         */
        polling_thread: z.enum(['auto', 'on', 'off']).default('auto'),
        /** A client must send its request headers within this time (slow clients are cut off). */
        read_header_timeout: duration.prefault('10s'),
        /** And its whole request within this one. */
        request_timeout: duration.prefault('30s'),
      })
      .prefault({}),
    log: z
      .strictObject({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info') })
      .prefault({}),
    http: z
      .strictObject({
        connect_timeout: duration.prefault('5s'),
        headers_timeout: duration.prefault('10s'),
        body_timeout: duration.prefault('10s'),
        request_timeout: duration.prefault('15s'),
        max_response_bytes: z.number().int().min(1024).default(32 * 1024 * 1024),
        requests_per_second: z.number().positive().max(1000).default(10),
        burst: z.number().int().min(1).default(40),
        retries: z.number().int().min(0).max(10).default(2),
        page_size: z.number().int().min(1).max(5000).default(5000),
        max_pages: z.number().int().min(1).default(100),
      })
      .prefault({}),
    /** Extra targets from YAML/JSON files, re-read when they change. */
    discovery: z
      .strictObject({ files: z.array(z.string().min(1)).default([]), refresh_interval: duration.prefault('30s') })
      .prefault({}),
    /** "i/n": keep only the targets whose name hashes to shard i of n (0-based). */
    shard: z
      .string()
      .regex(/^\d+\/\d+$/, { error: 'expected i/n, e.g. 0/3' })
      .refine((v) => {
        const [i, n] = v.split('/').map(Number) as [number, number];
        return n >= 1 && i < n;
      }, { error: 'expected 0 <= i < n' })
      .optional(),
    probe: z
      .strictObject({
        /** /probe polls again when the cached data are older than this. */
        max_age: duration.prefault('10s'),
        /** Upper bound on a probe's own deadline (Prometheus's scrape timeout header may shorten it). */
        timeout: duration.prefault('10s'),
        /** URL prefixes that /probe?target=<url> may reach besides the configured targets. */
        allowed_urls: z.array(z.string().url()).default([]),
      })
      .prefault({}),
    fleet: z
      .strictObject({
        /** Nodes whose data-node heights differ by more than this are not compared for data agreement. */
        agreement_tolerance_blocks: z.number().int().min(0).default(10),
      })
      .prefault({}),
    collectors: z
      .strictObject({
        statistics: collectorSchema('15s', true),
        network_history: collectorSchema('15s', true),
        key_rotations: collectorSchema('60s', true),
        consistency: collectorSchema('60s', true),
        markets: z
          .strictObject({
            enabled: z.boolean().default(true),
            ...timing('60s'),
            /** Beyond this many markets, per-market series stop and vega_markets_over_limit says so. */
            max_markets: z.number().int().min(0).default(500),
            /** Only these markets (ids or codes) get per-market series; empty means all. */
            allow: z.array(z.string().min(1)).default([]),
            /** Keep only the counts by state and trading mode. */
            counts_only: z.boolean().default(false),
          })
          .prefault({}),
        positions: z
          .strictObject({
            /** Off until parties or markets are listed. */
            enabled: z.boolean().optional(),
            ...timing('60s'),
            party_ids: z.array(partyId).default([]),
            market_ids: z.array(hex64).default([]),
            /** Settlement-asset decimals by asset id; others are read from GET /api/v2/asset/{id}. */
            asset_decimals: z.record(z.string().regex(HEX64, { error: 'expected a 64-character hex asset id' }), z.number().int().min(0).max(64)).default({}),
          })
          .prefault({}),
        parties: z
          .strictObject({ enabled: z.boolean().default(false), ...timing('10m'), party_ids: z.array(partyId).default([]) })
          .prefault({}),
        node_signatures: z.strictObject({ enabled: z.boolean().optional(), ...timing('60s'), ids: z.array(hex64).default([]) }).prefault({}),
        orders: z.strictObject({ enabled: z.boolean().optional(), ...timing('60s'), ids: z.array(orderRef).default([]) }).prefault({}),
      })
      .prefault({}),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.targets.length === 0 && cfg.discovery.files.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['targets'], message: 'expected at least one target (--datanode.url, targets: in the config file, or discovery.files)' });
    }
    const seen = new Set<string>();
    cfg.targets.forEach((t, i) => {
      if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: ['targets', i, 'name'], message: `duplicate target name "${t.name}"` });
      seen.add(t.name);
    });
    const lists: [string, string, number][] = [
      ['positions', 'party_ids', cfg.collectors.positions.party_ids.length + cfg.collectors.positions.market_ids.length],
      ['node_signatures', 'ids', cfg.collectors.node_signatures.ids.length],
      ['orders', 'ids', cfg.collectors.orders.ids.length],
    ];
    for (const [name, field, n] of lists) {
      if ((cfg.collectors as Record<string, { enabled?: boolean }>)[name]!.enabled === true && n === 0) {
        ctx.addIssue({ code: 'custom', path: ['collectors', name, field], message: `expected at least one id: the ${name} collector only watches listed ids` });
      }
    }
    for (const [name, c] of Object.entries(cfg.collectors)) {
      if (c.enabled === false) continue;
      if (!intervalToCron(c.interval)) {
        ctx.addIssue({ code: 'custom', path: ['collectors', name, 'interval'], message: 'expected an interval that divides a minute, an hour or a day (1s…30s, 1m…30m, 1h…12h, 24h)' });
      }
      if (c.timeout !== undefined && c.timeout > c.interval) {
        ctx.addIssue({ code: 'custom', path: ['collectors', name, 'timeout'], message: 'expected a timeout no longer than the interval' });
      }
    }
  });

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export { intervalToCron, isEnabled } from './settings.js';
import { intervalToCron } from './settings.js';
export type CollectorConfig = { enabled?: boolean; interval: number; timeout?: number | undefined; max_age?: number | undefined };
export type CollectorKey = keyof Config['collectors'];

