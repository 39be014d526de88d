import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/*
 * Two groups, one after the other. The unit and database tiers (*.test.ts, *.int.test.ts) run in
 * processes in-process, as many files at once as there are cores (Vitest's default leaves one
 * idle; these files spend much of their time waiting on sockets and timers). The process tier
 * (*.e2e.test.ts) starts satwatt's own processes, Chromium and Mosquitto and measures their
 * stops: one file at a time, so its timings are its own. TEST_WORKERS narrows the first group.
 */
const workers = Number(process.env.TEST_WORKERS) || Math.max(1, availableParallelism());

export default defineConfig({
  test: {
    setupFiles: ['test/support/setup.ts'],
    // the migrated template that every fresh test database copies, made once per run
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // UTC unless the caller names a zone: CI also runs the suite under UTC+14 and UTC−8/−7, so
    // that a day shifted by the machine's zone fails somewhere.
    env: { TZ: process.env.TZ || 'UTC' },
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          // every *.test.ts but the e2e ones (a pattern, not `exclude`, so that --exclude still applies)
          include: ['src/**/!(*.e2e).test.ts', 'test/**/!(*.e2e).test.ts'],
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['src/**/*.e2e.test.ts', 'test/**/*.e2e.test.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
