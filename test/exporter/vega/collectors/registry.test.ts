/**
 * Adding a collector is one module and one entry in the list: a throwaway collector, registered
 * only here, is configured, scheduled, rendered and documented with no other edit.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCollector } from '../../../../src/exporter/engine/define.js';
import { COLLECTORS } from '../../../../src/exporter/vega/collectors/index.js';
import { buildConfigSchema } from '../../../../src/exporter/config/schema.js';
import { timing } from '../../../../src/exporter/engine/fields.js';
import { defineMetric } from '../../../../src/exporter/engine/metric.js';
import { Exporter } from '../../../../src/exporter/exporter.js';
import { createLogger } from '../../../../src/exporter/logger.js';
import { renderMetricDoc } from '../../../../scripts/metric-doc.js';
import { waitFor } from '../../../helpers/exporter.js';
import { ManualClock, withSim } from '../../../helpers/sim.js';

const greeting = defineMetric(
  'throwaway',
  'vega_throwaway_block_height',
  ['target', 'greeting'],
  'blocks',
  'GET /statistics statistics.blockHeight',
  'A collector that exists only in this test.',
);

const throwaway = defineCollector({
  name: 'throwaway',
  scope: 'node',
  title: 'throwaway collector (a test of the registry)',
  config: z.strictObject({ enabled: z.boolean().default(true), ...timing('1s'), greeting: z.string().default('hello') }).prefault({}),
  families: { greeting },
  create: (settings) => ({
    async collect({ target, client, signal }) {
      const res = await client.get('/statistics', [], 'statistics', signal);
      const height = Number((res.json as { statistics: { blockHeight: string } }).statistics.blockHeight);
      return { samples: [{ metric: greeting, values: [target, settings.greeting], value: height }] };
    },
  }),
});

const collectors = [...COLLECTORS, throwaway];
const schema = buildConfigSchema(collectors);
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('a collector registered in one place', () => {
  it('is configured: its settings parse with their defaults, and a bad one names its field', () => {
    const cfg = schema.parse({ targets: [{ name: 'n1', url: 'http://127.0.0.1:1' }], collectors: { throwaway: { greeting: 'hi' } } });
    expect(cfg.collectors.throwaway).toEqual({ enabled: true, interval: 1000, greeting: 'hi' });
    const bad = schema.safeParse({ targets: [{ name: 'n1', url: 'http://127.0.0.1:1' }], collectors: { throwaway: { interval: '7s', colour: 'red' } } });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('collectors.throwaway');
    expect(bad.error!.issues.find((i) => i.path.join('.') === 'collectors.throwaway')!.message).toMatch(/colour/);
    // The registry's own schema does not know it.
    expect(schema.safeParse({ targets: [{ name: 'n1', url: 'http://127.0.0.1:1' }] }).success).toBe(true);
    expect(buildConfigSchema(COLLECTORS).safeParse({ targets: [{ name: 'n1', url: 'http://127.0.0.1:1' }], collectors: { throwaway: {} } }).success).toBe(
      false,
    );
  });

  it('is scheduled and rendered, with the bookkeeping every collector gets', async () => {
    // A still clock: the height the polls read is the one the test reads.
    const sim = await withSim({ seed: 5, now: new ManualClock().now });
    cleanup.push(() => sim.close());
    const cfg = schema.parse({ targets: [{ name: 'n1', url: sim.url }], log: { level: 'silent' }, collectors: { throwaway: { greeting: 'hi "there"' } } });
    const exporter = new Exporter(cfg, createLogger('silent'), undefined, collectors);
    cleanup.push(() => exporter.stop());
    const url = await exporter.start('127.0.0.1:0');
    const runner = exporter.runners.find((r) => r.collector.name === 'throwaway');
    expect(runner?.scopeValue).toBe('n1');
    expect(runner?.settings.intervalMs).toBe(1000);
    // The first poll runs at start, the schedule adds one a second.
    await waitFor(() => runner!.state.runs >= 3);
    const text = await (await fetch(`${url}/metrics`)).text();
    const height = sim.net.height;
    expect(text).toContain('# TYPE vega_throwaway_block_height gauge\n');
    expect(text).toMatch(new RegExp(`^vega_throwaway_block_height\\{target="n1",greeting="hi \\\\"there\\\\""\\} (\\d+)$`, 'm'));
    const value = Number(/^vega_throwaway_block_height\{[^}]*\} (\d+)$/m.exec(text)![1]);
    expect(value).toBe(height);
    expect(text).toContain('datanode_exporter_collector_success{target="n1",collector="throwaway"} 1\n');
  });

  it('is documented', () => {
    const doc = renderMetricDoc(collectors);
    expect(doc).toContain('## throwaway collector (a test of the registry)');
    expect(doc).toMatch(/\| `vega_throwaway_block_height` \| gauge \| `target`, `greeting` \| blocks \|/);
    expect(renderMetricDoc()).not.toContain('throwaway');
  });
});
