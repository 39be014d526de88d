import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEsplora } from '../../../test/fakes/esplora.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { TOKEN, TREZOR, TR_DESCRIPTOR, ZPUB, auth, chainServices } from '../../../test/support/chain.js';
import type { Leadership } from '../../jobs/leadership.js';

/** Scans as the service runs them: incremental, under faults, two at once, at shutdown, on the leader's hour. */
let esplora: FakeEsplora;
let app: TestApp;
let db: TestDatabase;
let lines: string[];

beforeAll(async () => {
  [esplora, db] = await Promise.all([FakeEsplora.start(), freshDatabase()]);
  for (let i = 0; i < 30; i++)
    esplora.pay({ to: [{ address: TREZOR.address(0, 0), value: 1_000 }], block: 823_000 + i });
  esplora.pay({ to: [{ address: TREZOR.address(1, 2), value: 5_000 }], block: 823_100 });
});
afterAll(async () => {
  await esplora?.close();
  await db?.close();
});
beforeEach(async () => {
  esplora.heal();
  // one database for the file: each test starts from no watch key (its addresses and transactions go with it)
  await db.database.db.deleteFrom('btc.chain_watch').execute();
  lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  app = await startTestApp({
    env: { API_TOKEN: TOKEN, ESPLORA_URL: esplora.url, CHAIN_GAP_LIMIT: '3', PROVIDER_TIMEOUT_MS: '500' },
    services: chainServices(),
    log: pino({ level: 'debug' }, sink),
    db,
  });
  expect((await app.call('PATCH', '/api/wallets/4', { watch: ZPUB }, auth)).statusCode).toBe(200);
  esplora.server.requests.length = 0;
});
afterEach(() => app?.close());

const scan = () => app.call('POST', '/api/wallets/4/chain/scan', undefined, auth);
const paths = () => esplora.server.requests.map((r) => r.path.replace(/\/address\/[^/]+/, '/address/A'));
const service = () => app.services.btc!.chain!;
const scannedAt = async () =>
  (await app.call('GET', '/api/wallets/4/chain', undefined, auth)).json().scanned_at;

describe('incremental scans', () => {
  it('read the history once, in pages of 25; a later scan asks each address once, then only what is new', async () => {
    expect((await scan()).statusCode).toBe(200);
    const first = paths();
    expect(first.filter((p) => p.endsWith('/txs'))).toHaveLength(2);
    expect(first.filter((p) => p.includes('/txs/chain/'))).toHaveLength(1);
    esplora.server.requests.length = 0;
    expect((await scan()).statusCode).toBe(200);
    // receive 0..3 and change 0..5, each asked once; no history
    expect(paths()).toEqual(Array(4 + 6).fill('/api/address/A'));
    esplora.server.requests.length = 0;
    esplora.pay({ to: [{ address: TREZOR.address(0, 0), value: 2_000 }], block: 823_200 });
    const c = (await scan()).json();
    expect(paths().filter((p) => p !== '/api/address/A')).toEqual(['/api/address/A/txs']);
    expect(c).toMatchObject({ chain_sats: 30_000 + 5_000 + 2_000, addresses_used: 2 });
    expect(c.transactions).toHaveLength(32);
  });

  it('two scans asked at once are one scan', async () => {
    const [a, b] = await Promise.all([scan(), scan()]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(paths().filter((p) => p === '/api/address/A')).toHaveLength(4 + 6);
  });
});

describe('a failing Esplora', () => {
  it('429 with Retry-After is waited out and the scan completes', async () => {
    esplora.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    expect((await scan()).statusCode).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('asked to stay away longer than a retry waits: 503 with its Retry-After at once, the next scan too, nothing asked', async () => {
    esplora.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 3_600 });
    const first = await scan();
    expect(first.statusCode).toBe(503);
    expect(Number(first.headers['retry-after'])).toBeGreaterThan(3_500);
    const asked = esplora.server.requests.length;
    const started = Date.now();
    const again = await scan();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(again.statusCode, again.body).toBe(503);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(3_500);
    expect(esplora.server.requests.length).toBe(asked);
  });

  it('a body cut off once is asked again', async () => {
    esplora.truncateNext(1);
    expect((await scan()).statusCode).toBe(200);
  });

  it('one that keeps failing: 502 naming the provider and no address, /health down, nothing written', async () => {
    esplora.server.failAlways({ kind: 'status', status: 500, text: 'electrs: db error' });
    const r = await scan();
    expect(r.statusCode).toBe(502);
    expect(r.json().detail).toBe('the esplora provider is unavailable (HTTP 500 from GET /api/address/…)');
    const feed = (await app.call('GET', '/health', undefined, auth)).json().feeds.chain;
    expect(feed).toMatchObject({
      ok: false,
      failures: 1,
      last_error: 'esplora: HTTP 500 from GET /api/address/…',
    });
    expect(await scannedAt()).toBeNull();
  });

  it('a slow one is given up per attempt (PROVIDER_TIMEOUT_MS) and retried', async () => {
    esplora.server.failNext({ kind: 'delay', ms: 1_500 });
    expect((await scan()).statusCode).toBe(200);
    const [first, second] = esplora.server.requests;
    expect(second!.path).toBe(first!.path);
    expect(await scannedAt()).not.toBeNull();
  });
});

describe('a scan and what happens meanwhile', () => {
  it('stops promptly at shutdown and writes nothing', async () => {
    esplora.server.failAlways({ kind: 'delay', ms: 400 });
    const scanning = service()
      .scan(4)
      .then(
        () => 'done',
        () => 'stopped',
      );
    await waitFor(() => esplora.server.requests.length > 0);
    const started = Date.now();
    await app.close();
    expect(await scanning).toBe('stopped');
    expect(Date.now() - started).toBeLessThan(1_500);
    const row = await db.database.db
      .selectFrom('btc.chain_watch')
      .select('scanned_at')
      .executeTakeFirstOrThrow();
    expect(row.scanned_at).toBeNull();
  });

  it('a key changed during a scan: the scan’s findings are dropped', async () => {
    esplora.server.failAlways({ kind: 'delay', ms: 50 });
    const scanning = service().scan(4);
    await waitFor(() => esplora.server.requests.length > 0);
    expect((await app.call('PATCH', '/api/wallets/4', { watch: TR_DESCRIPTOR }, auth)).statusCode).toBe(200);
    expect((await scanning).stale).toBe(true);
    expect(await scannedAt()).toBeNull();
  });

  it('the key, the addresses and the Esplora’s answers never reach the log', async () => {
    esplora.server.failNext({ kind: 'status', status: 500, text: TREZOR.address(0, 0) });
    await scan();
    await scan();
    const log = lines.join('');
    expect(log).toMatch(/chain: scanned/);
    for (const secret of [ZPUB.slice(4, 60), TREZOR.address(0, 0), TREZOR.address(1, 2)])
      expect(log).not.toContain(secret);
  });
});

describe('the hourly scan', () => {
  /** The same database under a process whose hourly job starts 10 ms after it leads. */
  const run = async (leadership: Leadership) => {
    await app.close();
    app = await startTestApp({
      env: { API_TOKEN: TOKEN, ESPLORA_URL: esplora.url },
      db,
      leadership: { btcPollers: leadership },
      services: chainServices({ firstRunDelayMs: 10 }),
    });
    await app.startFeeds();
  };

  it('runs on the leader soon after it leads', async () => {
    await run({ isLeader: () => true, watch: (l) => (l(true), () => {}) });
    await waitFor(async () => (await scannedAt()) !== null, 10_000);
    expect((await app.call('GET', '/health', undefined, auth)).json().feeds.chain.ok).toBe(true);
  });

  it('a round that fails shows in /health until a round succeeds', async () => {
    esplora.server.failAlways({ kind: 'status', status: 503, text: 'warming up' });
    expect(await service().scanAll()).toEqual([]);
    const feed = async () => (await app.call('GET', '/health', undefined, auth)).json().feeds.chain;
    expect(await feed()).toMatchObject({
      ok: false,
      failures: 1,
      detail: expect.stringMatching(/1 watched wallet\(s\); .*: 0 scanned/),
    });
    esplora.heal();
    expect(await service().scanAll()).toHaveLength(1);
    expect(await feed()).toMatchObject({ ok: true, failures: 1, detail: expect.stringMatching(/1 scanned/) });
  });

  it('does not run on a follower, which says so', async () => {
    await run({ isLeader: () => false, watch: (l) => (l(false), () => {}) });
    await new Promise((r) => setTimeout(r, 300));
    expect(esplora.server.requests).toHaveLength(0);
    const feed = (await app.call('GET', '/health', undefined, auth)).json().feeds.chain;
    expect(feed.detail).toMatch(/^standby/);
  });
});

describe('without ESPLORA_URL', () => {
  it('nothing is asked of anyone: a scan is a 503 saying so, /health shows the feed off', async () => {
    const off = await startTestApp({
      env: { API_TOKEN: TOKEN },
      services: chainServices({ firstRunDelayMs: 0 }),
      db,
    });
    try {
      const before = esplora.server.requests.length;
      await off.startFeeds();
      expect((await off.call('PATCH', '/api/wallets/4', { watch: ZPUB }, auth)).statusCode).toBe(200);
      const r = await off.call('POST', '/api/wallets/4/chain/scan', undefined, auth);
      expect(r.statusCode).toBe(503);
      expect(r.json().detail).toBe('chain scans are off: ESPLORA_URL is not set');
      const health = (await off.call('GET', '/health', undefined, auth)).json();
      expect(health.feeds.chain).toMatchObject({ enabled: false, detail: 'off: ESPLORA_URL is not set' });
      expect(esplora.server.requests.length).toBe(before);
    } finally {
      await off.close();
    }
  });
});
