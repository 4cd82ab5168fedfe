import { defineConfig } from 'vitest/config';

// The container image and the npm package, built and run: `npm run test:image` (root, docker.io,
// debootstrap; .ci/run installs them). One file at a time: image builds want both cores.
export default defineConfig({
  test: {
    include: ['test/image/**/*.image.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
