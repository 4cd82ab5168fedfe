/**
 * The fleet reads a node's facts by key, through the collector registry: whichever collector
 * declares a fact is the one it reads, whatever its name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfigSchema } from '../../../src/exporter/config/schema.js';
import { defineCollector } from '../../../src/exporter/engine/define.js';
import { Facts } from '../../../src/exporter/engine/facts.js';
import { simpleCollectorConfig } from '../../../src/exporter/engine/fields.js';
import { Exporter } from '../../../src/exporter/exporter.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { COLLECTORS } from '../../../src/exporter/vega/collectors/index.js';
import { APP_VERSION, CHAIN_ID, HEIGHT } from '../../../src/exporter/vega/facts.js';
import { waitFor } from '../../helpers/exporter.js';

/** Stands in for statistics: publishes the core's facts without asking any node. */
const coreStub = defineCollector({
  name: 'core_stub',
  scope: 'node',
  title: 'core facts without HTTP (a test of fact lookup)',
  config: simpleCollectorConfig('24h', true),
  families: {},
  facts: [CHAIN_ID, APP_VERSION, HEIGHT],
  create: () => ({
    collect: () => Promise.resolve({ samples: [], facts: new Facts().with(CHAIN_ID, 'stub-chain').with(APP_VERSION, 'v9').with(HEIGHT, 7n) }),
  }),
});

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

describe('facts by key', () => {
  it('a collector not named statistics that declares the core facts makes the node healthy and names its network', async () => {
    const collectors = [...COLLECTORS.filter((c) => c.scope === 'node' && c.name !== 'statistics'), coreStub];
    const off = Object.fromEntries(collectors.filter((c) => c !== coreStub).map((c) => [c.name, { enabled: false }]));
    const config = buildConfigSchema(collectors).parse({ targets: [{ name: 'n', url: 'http://127.0.0.1:1' }], log: { level: 'silent' }, collectors: off });
    const ex = new Exporter(config, createLogger('silent'), undefined, collectors);
    stops.push(() => ex.stop());
    await ex.startCore();
    const target = ex.targets.get('n')!;
    await waitFor(() => target.runner('core_stub')!.state.runs > 0);
    const view = target.view();
    expect(view.healthy).toBe(true);
    expect(view.facts).toEqual({ chainId: 'stub-chain', height: 7n });
    expect([...ex.networks.keys()]).toEqual(['stub-chain']);
  });
});
