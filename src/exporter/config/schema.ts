/**
 * The configuration schema: one zod schema, the types derived from it. Each collector brings its
 * own part (`collectors.<name>`) from the registry; the rest is the exporter's. The schema is built
 * for each load (start, reload, a discovery file) and dropped after it: a running exporter holds
 * none of it.
 */
import { z } from 'zod';
import { COLLECTORS } from '../vega/collectors/index.js';
import type { AnyCollectorModule, CollectorSettings } from '../engine/define.js';
import { isSchedulable } from '../engine/cron.js';
import { duration } from '../engine/fields.js';
import { parseAllowRule } from '../http/allow.js';

const listenAddress = () =>
  z
    .string()
    // abort: a malformed address gets this one message, not a port complaint as well.
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, { error: 'expected host:port, [ipv6]:port or :port', abort: true })
    .refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, { error: 'port must be at most 65535' });

/** The routes the telemetry path must not shadow (web/server.ts). */
const OTHER_ROUTES = ['/', '/healthz', '/readyz', '/probe', '/-/reload', '/runbook'];

const targetName = () => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/, { error: 'expected 1-63 characters: letters, digits, _ . : -' });

const httpUrl = () =>
  z.string().refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.search === '';
      } catch {
        return false;
      }
    },
    { error: 'expected an http(s) URL without credentials or query, e.g. http://127.0.0.1:3008' },
  );

/** The longest header value taken (inline, from a file or from the environment): Node's own limit on a whole request head. */
export const MAX_HEADER_VALUE_BYTES = 16 * 1024;
const headerName = () => z.string().regex(/^[A-Za-z0-9-]+$/, { error: 'expected a header name' });
/** What a header value may hold; the messages never quote the value (it may be a secret). */
export function headerValueProblem(v: string): string | undefined {
  // A value undici refuses (CR, LF, NUL, other controls) would fail requests, or leave one hanging.
  if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(v)) return 'expected a header value without CR, LF, NUL or other control characters';
  if (Buffer.byteLength(v) > MAX_HEADER_VALUE_BYTES) return `expected a header value of at most ${MAX_HEADER_VALUE_BYTES / 1024} KiB`;
  return undefined;
}
const headerValue = () =>
  z.string().superRefine((v, ctx) => {
    const problem = headerValueProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const targetSchema = () =>
  z
    .strictObject({
      name: targetName(),
      url: httpUrl(),
      /** Extra request headers (an API key for a gateway, say). Values are never logged. */
      headers: z.record(headerName(), headerValue()).default({}),
      /** Header values read from files (Prometheus's `_file` convention), trimmed; re-read on reload. */
      headers_file: z.record(headerName(), z.string().min(1, { error: 'expected a file path' })).optional(),
      /** Header values from environment variables, by variable name; re-read on reload. */
      headers_env: z.record(headerName(), z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' })).optional(),
      /** Put the target in a named network (default: grouped by the chain id it reports). */
      network: targetName().optional(),
    })
    .superRefine((t, ctx) => {
      // One source per header: names are case-insensitive in HTTP, so X-Api-Key and x-api-key are one header.
      const seen = new Map<string, string>();
      for (const field of ['headers', 'headers_file', 'headers_env'] as const) {
        for (const name of Object.keys(t[field] ?? {})) {
          const other = seen.get(name.toLowerCase());
          if (other !== undefined)
            ctx.addIssue({ code: 'custom', path: [field, name], message: `header "${name}" is also set in ${other}; expected one source` });
          else seen.set(name.toLowerCase(), field);
        }
      }
    });
export type TargetConfig = z.output<ReturnType<typeof targetSchema>>;
export const targetListSchema = () => z.array(targetSchema());

const webSchema = () =>
  z
    .strictObject({
      listen_address: listenAddress().default('127.0.0.1:19308'),
      /** Where the metrics are served (--web.telemetry-path). */
      telemetry_path: z
        .string()
        .regex(/^\/[A-Za-z0-9._~/-]*$/, { error: 'expected a path such as /metrics' })
        .refine((p) => !OTHER_ROUTES.includes(p), { error: `expected a path other than ${OTHER_ROUTES.join(', ')}` })
        .default('/metrics'),
      /**
       * A listener of its own for /healthz and /readyz (plain HTTP, no auth): no client of the main
       * port can stand between the kubelet and them. Off unless given (the chart and the image set it).
       */
      health_listen_address: listenAddress().optional(),
      /** Connections at once; a newcomer beyond takes the place of the one idle longest (never refused for it). */
      max_connections: z.number().int().positive().default(1024),
      /** Requests computed at once, as node_exporter's --web.max-requests; more are answered 503. 0: no limit. */
      max_requests: z.number().int().min(0).default(40),
      /** Requests one connection may make before it is closed (the client reconnects). */
      max_requests_per_connection: z.number().int().min(1).default(1000),
      /** Requests one connection may have sent and not had answered yet (HTTP pipelining); more close it. */
      max_pipelined_requests: z.number().int().min(1).default(4),
      /** Answer bytes one connection may hold unread when it sends another request; more close it. */
      max_unsent_bytes_per_connection: z
        .number()
        .int()
        .positive()
        .default(64 * 1024 * 1024),
      /** Answer bytes all connections together may hold unread; beyond, those unread longest are closed. */
      max_unsent_bytes: z
        .number()
        .int()
        .positive()
        .default(128 * 1024 * 1024),
      /** exporter-toolkit web-config file: TLS, client certificates, basic auth. */
      config_file: z.string().min(1).optional(),
      /** A client must send its request headers within this time (slow clients are cut off). */
      read_header_timeout: duration.prefault('10s'),
      /** And its whole request within this one. */
      request_timeout: duration.prefault('30s'),
      /** An answer not handed over within this time of its request closes its connection (Go's WriteTimeout; above probe.timeout). */
      write_timeout: duration.prefault('30s'),
      /** A kept-alive connection waiting this long for its next request is closed (Go's IdleTimeout). */
      idle_timeout: duration.prefault('15s'),
      /** Basic auth under attack: bounded bcrypt work, and failures per client address limited. */
      auth: z
        .strictObject({
          /** bcrypt verifications at once (each in a worker thread, off the serving thread). */
          max_concurrent_checks: z.number().int().min(1).max(16).default(2),
          /**
           * Checks waiting for a worker, one per client address; more are answered 429 at once, unless
           * from an address that has not failed lately: it takes the place of one that has. Queued
           * checks of clients that left are dropped.
           */
          max_queued_checks: z.number().int().min(0).max(10_000).default(32),
          /** Failed logins per client address and user name, and window; then one check per window / this (429 with Retry-After meanwhile, without bcrypt). */
          max_failures_per_client: z.number().int().min(1).default(10),
          failure_window: duration.prefault('1m'),
        })
        .prefault({}),
      /** POST /-/reload answers only when this is on (--web.enable-lifecycle); SIGHUP always reloads. */
      enable_lifecycle: z.boolean().default(false),
    })
    .prefault({});

/** The levels log.level takes; --help lists the same. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const LOG_FORMATS = ['logfmt', 'json'] as const;
const oneOf = (values: readonly string[]): string => `expected one of: ${values.join(', ')}`;

const logSchema = () =>
  z
    .strictObject({
      level: z.enum(LOG_LEVELS, { error: oneOf(LOG_LEVELS) }).default('info'),
      format: z.enum(LOG_FORMATS, { error: oneOf(LOG_FORMATS) }).default('logfmt'),
    })
    .prefault({});

const httpSchema = () =>
  z
    .strictObject({
      connect_timeout: duration.prefault('5s'),
      headers_timeout: duration.prefault('10s'),
      body_timeout: duration.prefault('10s'),
      request_timeout: duration.prefault('15s'),
      max_response_bytes: z
        .number()
        .int()
        .min(1024)
        .default(32 * 1024 * 1024),
      /**
       * What one target's answers may cost while held at once, and every target's together (bytes,
       * decoded text and parsed objects: http/budget.ts); sized from the chart's memory limit
       * (docs/reliability.md, Limits).
       */
      max_held_bytes_per_target: z
        .number()
        .int()
        .min(1024 * 1024)
        .default(48 * 1024 * 1024),
      max_held_bytes: z
        .number()
        .int()
        .min(1024 * 1024)
        .default(64 * 1024 * 1024),
      requests_per_second: z.number().positive().max(1000).default(10),
      burst: z.number().int().min(1).default(40),
      retries: z.number().int().min(0).max(10).default(2),
      /** Longest back-off a node's RateLimit-Reset / Retry-After can impose; a reload lifts it. */
      max_backoff: duration.prefault('10m'),
      page_size: z.number().int().min(1).max(5000).default(5000),
      max_pages: z.number().int().min(1).default(100),
    })
    .prefault({});

/** Extra targets from YAML/JSON files, re-read when they change. */
const discoverySchema = () =>
  z
    .strictObject({
      files: z.array(z.string().min(1)).default([]),
      refresh_interval: duration.prefault('30s'),
      /** Targets one file may list; a file listing more is refused whole, its previous targets kept. */
      max_targets_per_file: z.number().int().min(1).default(150),
      /** Targets all discovery files may list together (each target costs memory: docs/performance.md). */
      max_targets: z.number().int().min(1).default(150),
    })
    .prefault({});

/** "i/n": keep only the targets whose name hashes to shard i of n (0-based). */
const shardSchema = () =>
  z
    .string()
    .regex(/^\d+\/\d+$/, { error: 'expected i/n, e.g. 0/3' })
    .refine(
      (v) => {
        const [i, n] = v.split('/').map(Number) as [number, number];
        return n >= 1 && i < n;
      },
      { error: 'expected 0 <= i < n' },
    );

const probeSchema = () =>
  z
    .strictObject({
      /** /probe polls again when the cached data are older than this. */
      max_age: duration.prefault('10s'),
      /** Upper bound on a probe's own deadline (Prometheus's scrape timeout header may shorten it). */
      timeout: duration.prefault('10s'),
      /** Probes answered at once; more are answered 503 with Retry-After. */
      max_concurrent: z.number().int().min(1).default(32),
      /** New allowed-URL targets per minute (each costs a connection pool and runners); more are answered 429. */
      new_url_targets_per_minute: z.number().int().min(1).default(60),
      /**
       * URLs that /probe?target=<url> may reach besides the configured targets: scheme, host, port
       * (`:*` or a bare `:` for any) and path prefix are compared after parsing; user-info is refused.
       */
      allowed_urls: z
        .array(
          z.string().refine((s) => parseAllowRule(s) !== undefined, {
            error: 'expected scheme://host[:port|:*][/path prefix], http or https, without user-info, query or fragment',
          }),
        )
        .default([]),
    })
    .prefault({});

/** Hard bounds on what a node's answers can make the exporter hold and serve (docs/reliability.md, Attacks). */
const limitsSchema = () =>
  z
    .strictObject({
      /** Longer label values are cut and suffixed with a hash of the whole value (never two values in one series). */
      label_value_bytes: z.number().int().min(32).max(65536).default(128),
      /**
       * Series one target's node-scoped collectors may write, shared among them by weight; beyond its
       * share a collector stops adding series (like sample_limit).
       */
      series_per_target: z.number().int().min(100).default(20_000),
      /** The same for one network's network-scoped collectors; a network at this limit fits the chart's memory limit. */
      series_per_network: z.number().int().min(100).default(50_000),
      /** The rendered /metrics body stops growing here; datanode_exporter_metrics_truncated says so. */
      metrics_body_bytes: z
        .number()
        .int()
        .min(65536)
        .default(48 * 1024 * 1024),
    })
    .prefault({});

interface CheckedConfig {
  targets: TargetConfig[];
  discovery: { files: string[] };
  collectors: object;
}

/** Rules across fields: targets exist and have unique names; each collector's own checks; schedulable intervals. */
function checkConfig(collectors: readonly AnyCollectorModule[], cfg: CheckedConfig, ctx: z.RefinementCtx): void {
  if (cfg.targets.length === 0 && cfg.discovery.files.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['targets'],
      message: 'expected at least one target (--datanode.url, targets: in the config file, or discovery.files)',
    });
  }
  const seen = new Set<string>();
  cfg.targets.forEach((t, i) => {
    if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: ['targets', i, 'name'], message: `duplicate target name "${t.name}"` });
    seen.add(t.name);
  });
  const settings = cfg.collectors as Record<string, CollectorSettings>;
  for (const c of collectors) {
    for (const issue of c.check?.(settings[c.name]!) ?? [])
      ctx.addIssue({ code: 'custom', path: ['collectors', c.name, ...issue.path], message: issue.message });
  }
  for (const [name, c] of Object.entries(settings)) {
    if (c.enabled === false) continue;
    if (!isSchedulable(c.interval)) {
      ctx.addIssue({ code: 'custom', path: ['collectors', name, 'interval'], message: 'expected an interval of whole seconds, from 1s to 24h' });
    }
    if (c.timeout !== undefined && c.timeout > c.interval) {
      ctx.addIssue({ code: 'custom', path: ['collectors', name, 'timeout'], message: 'expected a timeout no longer than the interval' });
    }
  }
}

type CollectorsShape<T extends readonly AnyCollectorModule[]> = { [K in T[number] as K['name']]: K['config'] };

/** The schema for a set of collectors (the registry's, or a test's own). */
export function buildConfigSchema<T extends readonly AnyCollectorModule[]>(collectors: T) {
  const shape = Object.fromEntries(collectors.map((c) => [c.name, c.config])) as CollectorsShape<T>;
  return z
    .strictObject({
      targets: z.array(targetSchema(), { error: 'expected a list of targets' }).default([]),
      web: webSchema(),
      log: logSchema(),
      http: httpSchema(),
      discovery: discoverySchema(),
      shard: shardSchema().optional(),
      probe: probeSchema(),
      limits: limitsSchema(),
      // Every collector's part has its own defaults, so an absent section is an empty one.
      collectors: z.strictObject(shape).prefault({} as never),
    })
    .superRefine((cfg, ctx) => checkConfig(collectors, cfg, ctx));
}

/** The registry's schema, built anew on each call. */
export const configSchema = () => buildConfigSchema(COLLECTORS);
export type Config = z.output<ReturnType<typeof configSchema>>;
export type ConfigInput = z.input<ReturnType<typeof configSchema>>;
