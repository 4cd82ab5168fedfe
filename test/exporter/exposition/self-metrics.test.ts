import { describe, expect, it, vi } from 'vitest';
import { PerformanceObserver } from 'node:perf_hooks';
import * as promClient from 'prom-client';
import { createSelfRegistry } from '../../../src/exporter/exposition/self-metrics.js';

const names = async (r: promClient.Registry): Promise<string[]> => (await r.getMetricsAsJSON()).map((m) => m.name).sort();

describe('the self registry', () => {
  it("has prom-client's default metrics less the three _total gauges and the GC histogram, plus its own two", async () => {
    // The oracle: what prom-client's entry point registers by itself.
    const reference = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: reference });
    const left = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total', 'nodejs_gc_duration_seconds'];
    const expected = [...(await names(reference)).filter((n) => !left.includes(n)), 'vega_exporter_build_info', 'vega_exporter_series'].sort();
    expect(await names(createSelfRegistry('1.2.3', () => 42))).toEqual(expected);
    expect(await names(reference)).toContain('nodejs_gc_duration_seconds');
  });

  it('observes no garbage collection', () => {
    const observe = vi.spyOn(PerformanceObserver.prototype, 'observe');
    try {
      createSelfRegistry('1.2.3', () => 0);
      const types = observe.mock.calls.flatMap(([o]) => [...((o as { entryTypes?: string[] }).entryTypes ?? []), (o as { type?: string }).type]);
      expect(types).not.toContain('gc');
    } finally {
      observe.mockRestore();
    }
  });

  it('still serves the event-loop, heap and process figures', async () => {
    const text = await createSelfRegistry('1.2.3', () => 7).metrics();
    for (const n of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_version_info']) {
      expect(text).toMatch(new RegExp(`^${n}(\\{[^}]*\\})? `, 'm'));
    }
    expect(text).toMatch(/^vega_exporter_series 7$/m);
  });
});
