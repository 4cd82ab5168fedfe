import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Runs only the simulator contract module (its name does not match the default *.test.ts include, so
// `npm test` leaves it out):  npx vitest run --config test/contract/vitest.simulator.config.ts
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/contract/simulator.contract.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
