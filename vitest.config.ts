import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds and runs the image and the package: `npm run test:image`.
    exclude: [...configDefaults.exclude, 'test/image/**'],
    // Integration tests start real HTTP servers; keep them from starving each other on 2 cores.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
