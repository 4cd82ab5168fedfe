import { defineConfig } from 'vitest/config';

// The attack tests measure latency and resident memory under load they generate themselves, and the
// soak memory over hundreds of polls: they run one file at a time, with nothing else on the
// machine's two cores (`npm run test:attacks`).
export default defineConfig({
  test: {
    include: ['test/hardening/attacks*.test.ts', 'test/hardening/soak.test.ts'],
    // The exporter compiled once for every attack file (they run its build, not tsx).
    globalSetup: ['test/helpers/build-once.ts'],
    // The soak reads the heap after a collection: gc() exposed at launch, as `npm run soak` does.
    execArgv: ['--expose-gc'],
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
