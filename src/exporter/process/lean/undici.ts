/**
 * The parts of undici this exporter uses (Pool, request(), error classes), loaded from their own
 * modules. The package's entry point also loads fetch, WebSocket, EventSource, cache stores, mocks
 * and interceptors (and, through them, Node's own bundled copy of undici): resident memory never
 * used here (docs/performance.md, "Choices"). test/exporter/lean-deps.test.ts checks these are the
 * very objects the entry point exports, so an upgrade that moves a file fails the tests rather
 * than the daemon.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const undiciErrors = load('undici/lib/core/errors.js') as typeof Undici.errors;
/** The entry point copies this onto Dispatcher.prototype; we call it on the pool instead. */
export const undiciRequest = load('undici/lib/api/api-request.js') as (
  this: Undici.Dispatcher,
  options: Undici.Dispatcher.RequestOptions,
) => Promise<Undici.Dispatcher.ResponseData>;
