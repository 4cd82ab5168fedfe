/**
 * What a collector declares about itself. The registry (collectors/index.ts) lists these; the
 * configuration schema, enablement, series estimates, the node/network split, the runners and the
 * metric reference all read from it, so adding a collector is one file and one line there.
 */
import type { z } from 'zod';
import type { MetricDef } from './metric.js';
import type { Collector, CollectorIdentity } from './types.js';
import type { ListRowBound } from '../http/bounds.js';

/** The settings every collector has (`collectors.<name>` in the configuration). */
export interface CollectorSettings {
  enabled?: boolean | undefined;
  interval: number;
  timeout?: number | undefined;
  max_age?: number | undefined;
}

/**
 * What a collector may share with the others of its scope. `shared` is the domain's state, one per
 * scope, made by whoever builds the runners (for the Vega collectors: the directory of market and
 * asset decimals); the engine only passes it through.
 */
export interface CollectorDeps<Shared = unknown> {
  shared: Shared;
  /** The collector's share of its scope's series limit (engine/settings.ts): bounds state kept per label value. */
  seriesLimit?: number;
}

export interface SettingsIssue {
  /** Path below `collectors.<name>`. */
  path: (string | number)[];
  message: string;
}

/**
 * The lists a collector reads, by endpoint label: what one row of each can hold. The client refuses
 * a list's page beyond it; an endpoint no collector declares is answered with one message.
 */
export type ListEndpoints = Readonly<Record<string, ListRowBound>>;

/** A collector's families by the key its module names them with. */
export type Families = Readonly<Record<string, MetricDef>>;

export interface CollectorModule<
  N extends string = string,
  S extends z.ZodType<CollectorSettings, unknown> = z.ZodType<CollectorSettings, unknown>,
  Shared = unknown,
  F extends Families = Families,
> extends CollectorIdentity {
  readonly name: N;
  /** Heading of its section in docs/metrics.md. */
  readonly title: string;
  /** Its part of the configuration schema, defaults included. */
  readonly config: S;
  /** The families it writes, declared in its own module, in exposition order. */
  readonly families: F;
  /** The lists it reads (`get` under these endpoint labels), each with its row's bound. */
  readonly endpoints?: ListEndpoints;
  /** Its weight in sharing its scope's series limit with the other enabled collectors; default 1. */
  readonly seriesWeight?: number;
  /** Whether it runs; default: its `enabled` setting. */
  enabled?(settings: z.output<S>): boolean;
  /** Checks of its settings beyond the schema's. */
  check?(settings: z.output<S>): SettingsIssue[];
  create(settings: z.output<S>, deps: CollectorDeps<Shared>): Collector;
}

export type AnyCollectorModule = CollectorModule<string, z.ZodType<CollectorSettings, unknown>>;

/** A collector's declaration, typed by its settings' schema. */
export function defineCollector<N extends string, S extends z.ZodType<CollectorSettings, unknown>, Shared = unknown, F extends Families = Families>(
  module: CollectorModule<N, S, Shared, F>,
): CollectorModule<N, S, Shared, F> {
  return module;
}

/** A collector's families, in exposition order. */
export function familiesOf(module: { families: Families }): MetricDef[] {
  return Object.values(module.families);
}

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every family of the given collectors by its key (a key names one family across them all). */
export function familiesByKey<C extends readonly { families: Families }[]>(collectors: C): Intersection<C[number]['families']> {
  return Object.assign({}, ...collectors.map((c) => c.families)) as Intersection<C[number]['families']>;
}

/** The settings of one collector in a validated configuration. */
export function settingsOf(config: { collectors: object }, module: AnyCollectorModule): CollectorSettings {
  return (config.collectors as Record<string, CollectorSettings>)[module.name]!;
}

export function isEnabled(config: { collectors: object }, module: AnyCollectorModule): boolean {
  const s = settingsOf(config, module);
  return module.enabled ? module.enabled(s) : s.enabled !== false;
}

/**
 * Enablement for a collector that watches listed ids: on when some are listed, unless switched
 * off; switched on explicitly with none listed is a settings error naming `field`.
 */
export function watchesListedIds<S extends { enabled?: boolean | undefined }>(
  name: string,
  field: string,
  count: (settings: S) => number,
): { enabled(settings: S): boolean; check(settings: S): SettingsIssue[] } {
  return {
    enabled: (s) => s.enabled ?? count(s) > 0,
    check: (s) =>
      s.enabled === true && count(s) === 0 ? [{ path: [field], message: `expected at least one id: the ${name} collector only watches listed ids` }] : [],
  };
}
