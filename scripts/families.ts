/** Every family by its key, for the docs generators and tests that name a few: each collector's own (from the collector list), the fleet's and the exporter's. */
import { familiesByKey } from '../src/exporter/engine/define.js';
import { SELF } from '../src/exporter/engine/self-metrics.js';
import { FLEET } from '../src/exporter/fleet/metrics.js';
import { COLLECTORS } from '../src/exporter/vega/collectors/index.js';

export const M = { ...familiesByKey(COLLECTORS), ...FLEET, ...SELF } as const;
