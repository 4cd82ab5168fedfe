import { describe, expect, it } from 'vitest';
import { Histogram, Registry, type RegistryContentType } from 'prom-client';
import { FamilyRegistry, storeSource } from '../../../src/exporter/engine/registry.js';
import { SeriesStore } from '../../../src/exporter/engine/store.js';
import { API_SLI_BUCKETS, API_SLI_HELP, API_SLI_NAME, ApiSli } from '../../../src/exporter/fleet/api-sli.js';
import { CATALOGUE, TEST_BUILD } from '../../helpers/render.js';

type Observation = [target: string, endpoint: string, failed: boolean, seconds: number];

/** prom-client on its own: one histogram, observed in the same order. */
async function plain(format: 'text' | 'openmetrics', observations: Observation[]): Promise<string> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(format === 'text' ? Registry.PROMETHEUS_CONTENT_TYPE : Registry.OPENMETRICS_CONTENT_TYPE);
  const h = new Histogram({
    name: API_SLI_NAME,
    help: API_SLI_HELP,
    labelNames: ['target', 'class', 'outcome'],
    buckets: [...API_SLI_BUCKETS],
    registers: [registry],
  });
  for (const [target, endpoint, failed, s] of observations)
    h.observe({ target, class: endpoint === 'statistics' ? 'single' : 'list', outcome: failed ? 'error' : 'success' }, s);
  return registry.metrics();
}

describe('the upstream request histogram, kept per target', () => {
  it.each(['text', 'openmetrics'] as const)('%s: the text prom-client renders for one histogram, as targets are asked and forgotten', async (format) => {
    const sli = new ApiSli();
    const reg = new FamilyRegistry(format, CATALOGUE, storeSource(new SeriesStore()), { build: TEST_BUILD, seriesCount: () => 0, parted: [sli] });
    const part = async (): Promise<string> => {
      const body = (await reg.render()).toString();
      return body.slice(body.indexOf(`# HELP ${API_SLI_NAME} `));
    };
    expect(await part()).toBe(await plain(format, []));
    // Observed target by target, so that one histogram lists the series in the same order.
    const seen: Observation[] = [
      ['a', 'statistics', false, 0.05],
      ['a', 'rotations', true, 0.3],
      ['b', 'statistics', false, 1.2],
    ];
    for (const o of seen) sli.observe(...o);
    expect(await part()).toBe(await plain(format, seen));
    // Only b asked since: a's lines are kept, b's rendered again.
    sli.observe('b', 'statistics', false, 7);
    expect(await part()).toBe(await plain(format, [...seen, ['b', 'statistics', false, 7]]));
    sli.forget('a');
    expect(await part()).toBe(
      await plain(format, [
        ['b', 'statistics', false, 1.2],
        ['b', 'statistics', false, 7],
      ]),
    );
  });
});
