import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end run against a real Prometheus is `npm run test:e2e` (vitest.e2e.config.ts); the
    // image and the package are built and run by `npm run test:image`; the timed attack tests and the
    // soak (memory over hundreds of polls) run alone by `npm run test:attacks`.
    exclude: [...configDefaults.exclude, 'test/e2e/**', 'test/image/**', 'test/hardening/attacks*.test.ts', 'test/hardening/soak.test.ts'],
    // Integration tests start real HTTP servers; keep them from starving each other on 2 cores.
    maxWorkers: 2,
    // Hang guards, not time limits: on a busy machine a test is slow, not wrong.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
