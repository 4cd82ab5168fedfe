/** Render samples or a store through the exporter's prom-client registry, as /metrics does. */
import { CATALOGUE } from '../../src/exporter/fleet/metrics.js';
import type { Sample } from '../../src/exporter/engine/labels.js';
import { FamilyRegistry, storeSource, type Format } from '../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../src/exporter/engine/store.js';

export { CATALOGUE };

/** The exporter's own build, as a test writes it (not the running one). */
export const TEST_BUILD = { version: 'test', revision: 'r1', branch: 'b1', nodejs_version: 'v0' };

export function renderStore(store: SeriesStore, format: Format = 'text', limit = Infinity): Promise<string> {
  return new FamilyRegistry(format, CATALOGUE, storeSource(store)).render(limit).then((b) => b.toString('utf8'));
}

export function renderSamples(samples: readonly Sample[], format: Format = 'text'): Promise<string> {
  const store = new SeriesStore();
  store.set({ scope: 'target', id: 'x', source: 'test' }, samples, 0, Infinity);
  return renderStore(store, format);
}
