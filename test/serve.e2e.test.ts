import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FEEDS_OFF, freePort, runSatwatt, waitForHttp } from './support/process.js';

// The compiled start, as `npm start` runs it: dist/ through scripts/start.mjs.
const compiled = { compiled: true };

describe('satwatt serve, as a process (compiled, as npm start runs it)', () => {
  beforeAll(() => ensureBuilt({ quiet: true }), 180_000);

  it(
    'starts on the embedded database, refuses a second process on it, stops cleanly and restarts on the same data',
    { timeout: 120_000 },
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'satwatt-e2e-'));
      const port = await freePort();
      const env = { ...FEEDS_OFF, PORT: String(port), DATA_DIR: dataDir };
      const first = runSatwatt(['serve'], env, compiled);
      try {
        const health = await (await waitForHttp(`http://127.0.0.1:${port}/health`)).json();
        expect(health).toMatchObject({ status: 'ok', database: { kind: 'pglite', ok: true } });
        expect(first.output()).toContain('migrations applied');

        const second = runSatwatt(['serve'], { ...env, PORT: String(await freePort()) }, compiled);
        expect(await second.exited).toBe(1);
        expect(second.output()).toMatch(/is in use by process \d+/);
      } finally {
        first.child.kill('SIGTERM');
      }
      expect(await first.exited).toBe(0);

      const again = runSatwatt(['serve'], env, compiled);
      try {
        await waitForHttp(`http://127.0.0.1:${port}/health`);
        expect(again.output()).not.toContain('migrations applied');
      } finally {
        again.child.kill('SIGINT');
      }
      expect(await again.exited).toBe(0);
    },
  );

  it('stops at start with one line per bad variable', async () => {
    const proc = runSatwatt(
      ['serve'],
      { PORT: 'x', HOST: '0.0.0.0', OHLC_FEED_ENABLED: 'perhaps' },
      compiled,
    );
    expect(await proc.exited).toBe(2);
    const lines = proc.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^config error: API_TOKEN: required when HOST/),
      expect.stringMatching(/^config error: PORT: /),
      expect.stringMatching(/^config error: OHLC_FEED_ENABLED: /),
    ]);
  });
});
