import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // UTC unless the caller names a zone: CI also runs the suite under UTC+14 and UTC−8/−7, so
    // that a day shifted by the machine's zone fails somewhere.
    env: { TZ: process.env.TZ || 'UTC' },
  },
});
