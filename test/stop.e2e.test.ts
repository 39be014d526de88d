import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { freshDatabase, TEST_DATABASE_URL } from './support/db.js';
import { startAllFakes } from './fakes/all.js';
import { generateEvents } from './support/ledger-events.js';
import { ensureBuilt } from './support/process.js';
import { API_TOKEN, lockTaken, startEverything, STOP_LIMIT_MS, until, type Running } from './support/stop.js';

/**
 * SIGTERM (and SIGINT) of the compiled service with every feed on against the fakes ends it with
 * exit code 0 within STOP_LIMIT_MS, whatever it is doing at that moment.
 */
const auth = { authorization: `Bearer ${API_TOKEN}` };
const times: [string, number][] = [];
let running: Running | null = null;

async function expectQuickStop(state: string, r: Running, signal: NodeJS.Signals = 'SIGTERM') {
  const { code, ms } = await r.stop(signal);
  times.push([state, Math.round(ms)]);
  expect(code, r.proc.output().slice(-4000)).toBe(0);
  expect(ms, r.proc.output().slice(-4000)).toBeLessThan(STOP_LIMIT_MS);
  if (process.env.SHOW_STOP)
    console.log(
      r.proc
        .output()
        .split('\n')
        .filter((l) => /stop|shutting|request|responseTime/.test(l))
        .join('\n'),
    );
  return r.proc.output();
}

/** Starts a job route and returns once its stream has begun (the work is running). */
async function startJob(r: Running, path: string): Promise<{ body: Promise<string> }> {
  const res = await fetch(r.base + path, { method: 'POST', headers: auth });
  expect(res.status).toBe(200);
  return { body: res.text().catch((e: unknown) => `(connection ended: ${String(e)})`) };
}

describe('stopping the service, every feed on', { timeout: 60_000 }, () => {
  beforeAll(() => ensureBuilt({ quiet: true }), 180_000);
  afterEach(async () => {
    await running?.cleanup();
    running = null;
  });
  afterAll(() => {
    console.log(times.map(([s, ms]) => `stop ${String(ms).padStart(5)} ms  ${s}`).join('\n'));
  });

  it('while the database opens', async () => {
    running = await startEverything({ ready: false });
    const r = running;
    await until(r, 'the data folder lock', () => lockTaken(r.dataDir));
    await expectQuickStop('while the database opens', r);
    expect(lockTaken(r.dataDir)).toBe(false);
  });

  it('while the feeds start, on SIGINT', async () => {
    running = await startEverything({ ready: false });
    const r = running;
    await until(r, 'listening', () => r.proc.output().includes('listening on'));
    await expectQuickStop('while the feeds start (SIGINT)', r, 'SIGINT');
  });

  it('during the candle backfill, with Kraken answering slowly', async () => {
    running = await startEverything({ ready: false });
    const r = running;
    r.fakes.krakenOhlc.server.failAlways({ kind: 'delay', ms: 60_000 });
    await until(r, 'an OHLC call', () => r.fakes.krakenOhlc.server.requests.length > 0);
    await expectQuickStop('during the candle backfill', r);
  });

  it('during a metering sync job, with Eloverblik answering slowly', async () => {
    running = await startEverything();
    const r = running;
    r.fakes.eloverblik.server.failAlways({ kind: 'delay', ms: 60_000 });
    const calls = r.fakes.eloverblik.server.requests.length;
    const { body } = await startJob(r, '/api/jobs/sync-month?month=2025-01');
    await until(r, 'an Eloverblik call', () => r.fakes.eloverblik.server.requests.length > calls);
    await expectQuickStop('during a metering sync job', r);
    // the job heard the stop and said how it ended
    expect(await body).toMatch(/"exit":1}\n$/);
  });

  it('during a price backfill job, with Energi Data Service answering slowly', async () => {
    running = await startEverything();
    const r = running;
    r.fakes.eds.server.failAlways({ kind: 'delay', ms: 60_000 });
    const calls = r.fakes.eds.server.requests.length;
    const { body } = await startJob(r, '/api/jobs/backfill-prices?from=2025-01-01&to=2025-03-31');
    await until(r, 'an Energi Data Service call', () => r.fakes.eds.server.requests.length > calls);
    await expectQuickStop('during a price backfill job', r);
    // the job heard the stop and said how it ended
    expect(await body).toMatch(/"exit":1}\n$/);
  });

  it('while every provider hangs, a client request waiting on one answered 503', async () => {
    running = await startEverything({ ready: false });
    const r = running;
    for (const s of r.fakes.http) s.failAlways({ kind: 'timeout' });
    r.fakes.krakenWs.silent = true;
    r.fakes.ha.silent = true;
    await until(
      r,
      'ready',
      () =>
        fetch(`${r.base}/health`).then(
          (x) => x.ok,
          () => false,
        ),
      30_000,
    );
    await until(r, 'a held call to each provider', () => r.fakes.http.every((s) => s.held > 0));
    const waiting = fetch(`${r.base}/api/elprice?date=2024-02-03`).then((x) => x.status);
    await new Promise((res) => setTimeout(res, 200));
    await expectQuickStop('while every provider hangs', r);
    expect(await waiting).toBe(503);
  });

  it('while Home Assistant takes the statistics’ connection and never answers', async () => {
    const fakes = await startAllFakes({ now: new Date(), feeds: true });
    fakes.ha.silent = true;
    running = await startEverything({ fakes });
    const r = running;
    await until(r, 'a connection to Home Assistant', () => r.fakes.ha.connections > 0);
    await expectQuickStop('while Home Assistant hangs', r);
  });

  it('while every provider’s call budget is paused by a long Retry-After', async () => {
    running = await startEverything({ ready: false });
    const r = running;
    for (const s of r.fakes.http) s.failAlways({ kind: 'rate-limit', retryAfterSeconds: 55 });
    await until(
      r,
      'ready',
      () =>
        fetch(`${r.base}/health`).then(
          (x) => x.ok,
          () => false,
        ),
      30_000,
    );
    await until(r, 'a refused call to each provider', () => r.fakes.http.every((s) => s.requests.length > 0));
    // the feeds' next calls now wait in their budgets
    await new Promise((res) => setTimeout(res, 500));
    await expectQuickStop('while the call budgets wait out a Retry-After', r);
  });

  it('with 1,000 streams open (WebSocket and SSE)', async () => {
    running = await startEverything({ env: { STREAM_MAX_CLIENTS: '1000', STREAM_MAX_PER_ADDRESS: '1000' } });
    const r = running;
    const sockets: WebSocket[] = [];
    const sse: AbortController[] = [];
    const closed: Promise<unknown>[] = [];
    await Promise.all(
      Array.from({ length: 500 }, async () => {
        const ws = new WebSocket(`${r.base.replace('http', 'ws')}/api/stream/price`);
        sockets.push(ws);
        closed.push(new Promise((res) => ws.once('close', res)));
        await new Promise((res, rej) => {
          ws.once('open', res);
          ws.once('error', rej);
        });
      }),
    );
    await Promise.all(
      Array.from({ length: 500 }, async () => {
        const abort = new AbortController();
        sse.push(abort);
        const res = await fetch(`${r.base}/api/stream/price/sse`, { signal: abort.signal });
        expect(res.status).toBe(200);
        closed.push(res.text().catch(() => null));
      }),
    );
    await expectQuickStop('with 1,000 streams open', r);
    // every stream was ended by the service
    await Promise.all(closed);
  });

  it('while the embedded database runs long statements (a ledger rebuild of 200,000 events)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'satwatt-stop-'));
    const database = await openDatabase({ server: null, dataDir, fsync: false });
    await migrate(database);
    await generateEvents(database, 200_000);
    await database.close();
    running = await startEverything({ dataDir });
    const r = running;
    const { body } = await startJob(r, '/api/jobs/ledger-rebuild?times=1000');
    await new Promise((res) => setTimeout(res, 500));
    await expectQuickStop('during a ledger rebuild on the embedded database', r);
    await body;
    // the data folder opens again: what was cut short was undone, not left half done
    const again = await openDatabase({ server: null, dataDir });
    await again.close();
  });

  it.runIf(TEST_DATABASE_URL)('while the server’s statements wait on a lock', async () => {
    const server = await freshDatabase({ migrated: true });
    await server.database.close();
    const holder = new pg.Client({ connectionString: server.url! });
    await holder.connect();
    try {
      running = await startEverything({ env: { DATABASE_URL: server.url! } });
      const r = running;
      await holder.query('begin');
      await holder.query('lock table btc.deposits, btc.events in access exclusive mode');
      const waiting = fetch(`${r.base}/api/events`, { headers: auth }).then(
        (x) => x.status,
        () => 0,
      );
      const { body } = await startJob(r, '/api/jobs/ledger-rebuild');
      await new Promise((res) => setTimeout(res, 300));
      await expectQuickStop('while the server’s statements wait on a lock', r);
      await body;
      expect([0, 503]).toContain(await waiting);
    } finally {
      await holder.end();
      await server.close();
    }
  });
});
