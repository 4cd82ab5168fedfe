import { defineConfig } from 'vitest/config';

// End-to-end tests against a real Prometheus (Debian's prometheus package): `npm run test:e2e`.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
