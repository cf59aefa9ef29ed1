import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machines are shared and have 2 cores: keep workers few so timing-sensitive
    // fault tests (latency, rate limits) are not starved.
    maxWorkers: 2,
  },
});
