import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ensureBuilt, FEEDS_OFF, freePort, ROOT, runSatwatt, waitForHttp } from './support/process.js';

// The compiled start, as `npm start` runs it: dist/ through scripts/start.mjs.
const compiled = { compiled: true };

/** A new data folder and a free port, and the environment of a quiet service on them. */
async function newInstance() {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'satwatt-e2e-'));
  const port = await freePort();
  return { dataDir, port, env: { ...FEEDS_OFF, PORT: String(port), DATA_DIR: dataDir } };
}

describe('satwatt serve, as a process (compiled, as npm start runs it)', () => {
  beforeAll(() => ensureBuilt({ quiet: true }), 180_000);

  it(
    'starts on the embedded database, refuses a second process on it, stops cleanly and restarts on the same data',
    { timeout: 120_000 },
    async () => {
      const { port, env } = await newInstance();
      const first = runSatwatt(['serve'], env, compiled);
      try {
        const health = await (await waitForHttp(`http://127.0.0.1:${port}/health`)).json();
        expect(health).toMatchObject({ status: 'ok', database: { kind: 'pglite', ok: true } });
        expect(first.output()).toContain('migrations applied');

        const second = runSatwatt(['serve'], { ...env, PORT: String(await freePort()) }, compiled);
        expect(await second.exited, second.output()).toBe(1);
        expect(second.output()).toContain(
          `serve: the database in ${env.DATA_DIR} is held by the satwatt at http://127.0.0.1:${port} ` +
            `(process ${first.child.pid}); only one process may open it`,
        );
      } finally {
        first.child.kill('SIGTERM');
      }
      expect(await first.exited, first.output()).toBe(0);

      const again = runSatwatt(['serve'], env, compiled);
      try {
        await waitForHttp(`http://127.0.0.1:${port}/health`);
        expect(again.output()).not.toContain('migrations applied');
      } finally {
        again.child.kill('SIGINT');
      }
      expect(await again.exited, again.output()).toBe(0);
    },
  );

  it(
    'stops cleanly on a signal that comes while it is still starting, and starts again on that data',
    { timeout: 120_000 },
    async () => {
      const { dataDir, port, env } = await newInstance();
      const starting = runSatwatt(['serve'], env, compiled);
      // the lock is taken as the database starts opening, well before a fresh folder is migrated
      while (!existsSync(path.join(dataDir, 'satwatt.lock'))) {
        expect(starting.child.exitCode, starting.output()).toBeNull();
        await new Promise((r) => setTimeout(r, 2));
      }
      starting.child.kill('SIGTERM');
      expect(await starting.exited, starting.output()).toBe(0);
      expect(existsSync(path.join(dataDir, 'satwatt.lock'))).toBe(false);

      const again = runSatwatt(['serve'], env, compiled);
      try {
        const health = await (await waitForHttp(`http://127.0.0.1:${port}/health`)).json();
        expect(health).toMatchObject({ status: 'ok', database: { kind: 'pglite', ok: true } });
      } finally {
        again.child.kill('SIGTERM');
      }
      expect(await again.exited, again.output()).toBe(0);
    },
  );

  it(
    'serves from the bundle what it reads from files and loads on demand: page, API reference, streams, commands',
    { timeout: 120_000 },
    async () => {
      const { port, env } = await newInstance();
      const base = `http://127.0.0.1:${port}`;
      const help = runSatwatt(['--help'], env, compiled);
      expect(await help.exited).toBe(0);
      expect(help.output()).toContain('import-solar');
      const solar = runSatwatt(['import-solar', path.join(ROOT, 'examples/solar-sample.csv')], env, compiled);
      expect(await solar.exited).toBe(0);
      expect(solar.output()).toMatch(/\d+ rows, \d+ new/);

      const proc = runSatwatt(['serve'], env, compiled);
      try {
        await waitForHttp(`${base}/health`);
        const page = await fetch(`${base}/`);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain('<html');
        // every module the page links is served from dist/page/
        const modules = [...html.matchAll(/rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!);
        expect(modules.some((m) => m.endsWith('/main.js'))).toBe(true);
        for (const m of modules) expect((await fetch(base + m)).status, m).toBe(200);
        const docs = await fetch(`${base}/docs/static/swagger-ui.css`);
        expect(docs.status).toBe(200);
        const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: object };
        expect(Object.keys(openapi.paths)).toContain('/api/consumer-prices');
        expect(await (await fetch(`${base}/metrics`)).text()).toContain('process_cpu');
        const sse = await fetch(`${base}/api/stream/price/sse`);
        expect(sse.headers.get('content-type')).toContain('text/event-stream');
        await sse.body?.cancel();
        const ws = new WebSocket(`ws://127.0.0.1:${port}/api/stream/price`);
        await new Promise((resolve, reject) => {
          ws.once('open', resolve);
          ws.once('error', reject);
        });
        ws.close();
      } finally {
        proc.child.kill('SIGTERM');
      }
      expect(await proc.exited).toBe(0);
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
