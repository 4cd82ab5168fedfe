import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end run against a real Prometheus is `npm run test:e2e` (vitest.e2e.config.ts).
    exclude: ['test/e2e/**', '**/node_modules/**'],
    // Integration tests start real HTTP servers; keep them from starving each other on 2 cores.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
