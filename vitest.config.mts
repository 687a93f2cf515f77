import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts', 'tests/hardening/**/*.test.ts'],
    // Safety nets for a hung test, not speeds any test relies on: tests wait on events, and a
    // busy machine only makes them slower.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
