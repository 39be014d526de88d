import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeKrakenOhlc, MAX_ROWS, type OhlcWireRow } from '../../../test/fakes/kraken-ohlc.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { KrakenOhlcClient } from '../../providers/kraken-ohlc.js';
import { systemClock } from '../../shared/clock.js';
import { btcOnly } from '../../../test/support/services.js';
import { ALWAYS_LEADER, type Leadership } from '../../jobs/leadership.js';
import { createCandlesFeature } from './index.js';
import type { CandleRow } from './repository.js';
import { CandleService, KINDS, PAIRS, type CandleKind } from './service.js';
import { ROOMY, testDeps } from '../../../test/support/providers.js';
import { switchable } from '../../../test/support/leadership.js';

const START = 1_790_000_130; // 2026-09-21T13:35:30Z, inside minute 13:35 and hour 13:00
const USD = PAIRS[0];
let fake: FakeKrakenOhlc;
let db: TestDatabase;
let candles: CandleService;

beforeAll(async () => {
  fake = await FakeKrakenOhlc.start(START);
  db = await freshDatabase();
  // Generous timeouts: a retry after a timeout on a loaded machine would be a request the assertions do not expect.
  const client = new KrakenOhlcClient({
    ...testDeps('kraken'),
    baseUrl: fake.url,
    timeoutMs: 5_000,
    retries: 1,
    initialDelayMs: 5,
  });
  candles = new CandleService({ db: db.database.db, client, clock: systemClock });
});
afterAll(async () => {
  await fake.server.close();
  await db.close();
});
beforeEach(async () => {
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.now = START;
  fake.salt = 0;
  fake.ignoreSince = false;
  for (const k of Object.values(KINDS)) await db.database.db.deleteFrom(k.table).execute();
});

async function stored(kind: CandleKind, pair = 'BTC/USD'): Promise<CandleRow[]> {
  return db.database.db
    .selectFrom(KINDS[kind].table)
    .select(['pair', 'time', 'open', 'high', 'low', 'close', 'vwap', 'volume', 'trades'])
    .where('pair', '=', pair)
    .orderBy('time')
    .execute();
}

/** A stored row as the wire row it came from; numeric compared as numbers (the server may pad). */
function asWire(r: CandleRow): OhlcWireRow {
  return [r.time.getTime() / 1000, r.open, r.high, r.low, r.close, r.vwap, r.volume, r.trades];
}
const normalize = (w: OhlcWireRow) => w.map((v) => Number(v));

function expectStored(rows: CandleRow[], want: OhlcWireRow[]) {
  expect(rows.map((r) => normalize(asWire(r)))).toEqual(want.map(normalize));
}

const sinceOf = (i: number) => fake.server.requests[i]?.query.get('since') ?? null;

describe('the 1-minute candles', () => {
  it('stores the window, then overwrites the forming candle as it changes and as it closes', async () => {
    await candles.poll('minute', USD);
    const forming = Math.floor(START / 60) * 60;
    let rows = await stored('minute');
    expect(rows).toHaveLength(MAX_ROWS);
    expectStored(rows.slice(-2), [fake.committed('XBTUSD', 1, forming - 60), fake.forming('XBTUSD', 1)]);

    fake.tick();
    await candles.poll('minute', USD);
    expect(sinceOf(1)).toBe(String(forming - 60));
    rows = await stored('minute');
    expect(rows).toHaveLength(MAX_ROWS);
    expectStored(rows.slice(-1), [fake.forming('XBTUSD', 1)]);

    fake.now += 60;
    fake.tick();
    await candles.poll('minute', USD);
    rows = await stored('minute');
    expect(rows).toHaveLength(MAX_ROWS + 1);
    // The candle that was forming now has its final values, and a new one forms.
    expectStored(rows.slice(-2), [fake.committed('XBTUSD', 1, forming), fake.forming('XBTUSD', 1)]);
  });

  it('fills a gap after downtime as far as the provider allows', async () => {
    await candles.poll('minute', USD);
    fake.now += 1000 * 60; // down for 1000 minutes, more than the 720 Kraken keeps
    await candles.poll('minute', USD);
    const rows = await stored('minute');
    const forming = Math.floor(fake.now / 60) * 60;
    const recent = rows.filter((r) => r.time.getTime() / 1000 > forming - MAX_ROWS * 60);
    expect(recent.map((r) => r.time.getTime() / 1000)).toEqual(
      Array.from({ length: MAX_ROWS }, (_, i) => forming - (MAX_ROWS - 1 - i) * 60),
    );
    expect(rows).toHaveLength(2 * MAX_ROWS);
  });
});

describe('the hourly and daily candles', () => {
  it.each([
    ['hour', 60],
    ['day', 1440],
  ] as const)('stores only closed %s candles, resuming from the last stored one', async (kind, interval) => {
    const step = interval * 60;
    await candles.poll(kind, USD);
    const last = Math.floor(START / step) * step - step;
    let rows = await stored(kind);
    expect(rows).toHaveLength(MAX_ROWS - 1);
    expect(rows.at(-1)!.time.getTime() / 1000).toBe(last);
    expectStored(rows.slice(-1), [fake.committed('XBTUSD', interval, last)]);

    fake.tick();
    await candles.poll(kind, USD);
    expect(sinceOf(1)).toBe(String(last));
    expect(await stored(kind)).toHaveLength(MAX_ROWS - 1);

    fake.now += 3 * step;
    await candles.poll(kind, USD);
    expect(sinceOf(2)).toBe(String(last));
    rows = await stored(kind);
    expect(rows).toHaveLength(MAX_ROWS + 2);
    expectStored(
      rows.slice(-3),
      [1, 2, 3].map((i) => fake.committed('XBTUSD', interval, last + i * step)),
    );
  });

  it('never overwrites a stored closed candle, while the 1-minute table does inside the range it asked for', async () => {
    await candles.poll('hour', USD);
    await candles.poll('minute', USD);
    const hourBefore = await stored('hour');
    const minuteBefore = await stored('minute');
    fake.salt = 1; // the provider now tells other values for the same candles
    fake.ignoreSince = true;
    expect(await candles.poll('hour', USD)).toBe(0);
    await candles.poll('minute', USD);
    expect(await stored('hour')).toEqual(hourBefore);
    const minuteAfter = await stored('minute');
    expect(minuteAfter.map((r) => r.time)).toEqual(minuteBefore.map((r) => r.time));
    // The poll asks from the last stored candle on; older rows in the answer are outside the
    // asked range, so untrusted: dropped, counted, never stored.
    expect(minuteAfter.at(-1)!.open).not.toBe(minuteBefore.at(-1)!.open);
    expect(minuteAfter.at(-5)!.open).toBe(minuteBefore.at(-5)!.open);
  });

  it('polls BTC/EUR beside BTC/USD under its canonical key', async () => {
    await candles.pollAll('day');
    expect(await stored('day', 'BTC/EUR')).toHaveLength(MAX_ROWS - 1);
    const last = Math.floor(START / 86_400) * 86_400 - 86_400;
    expectStored((await stored('day', 'BTC/EUR')).slice(-1), [fake.committed('XBTEUR', 1440, last)]);
  });
});

describe('spacing', () => {
  it('keeps the given gap between provider calls, across pairs and intervals', async () => {
    const client = new KrakenOhlcClient({ ...testDeps('kraken'), baseUrl: fake.url, timeoutMs: 5_000 });
    const spaced = new CandleService({ db: db.database.db, client, clock: systemClock, minGapMs: 100 });
    fake.answeredAt.length = 0;
    await Promise.all([spaced.pollAll('minute'), spaced.pollAll('hour'), spaced.pollAll('day')]);
    const times = [...fake.answeredAt].sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    // Five gaps of 100 ms between the six calls; answer latency may shift the ends a little.
    expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(450);
  });
});

describe('failures', () => {
  it('stores nothing for an error in a 200 answer and resumes on the next poll', async () => {
    fake.server.failNext({ kind: 'status', status: 200, json: { error: ['EService:Busy'], result: {} } });
    await expect(candles.poll('hour', USD)).rejects.toThrow(/EService:Busy/);
    expect(await stored('hour')).toHaveLength(0);
    await candles.poll('hour', USD);
    expect(await stored('hour')).toHaveLength(MAX_ROWS - 1);
  });

  it('stores nothing on a lasting 5xx', async () => {
    fake.server.failAlways({ kind: 'status', status: 503 });
    await expect(candles.poll('minute', USD)).rejects.toThrow(/kraken: HTTP 503/);
    expect(await stored('minute')).toHaveLength(0);
  });
});

describe('the feature', () => {
  let t: TestApp;
  const cadence = { minute: 40, hour: 60, day: 80 };

  async function app(env: Record<string, string>, leadership: Leadership = ALWAYS_LEADER) {
    t = await startTestApp({
      db,
      // the service's clock is the provider's: a candle may start at most one interval after it
      now: new Date(START * 1000).toISOString(),
      env: { OHLC_FEED_URL: fake.url, ...env },
      // The cadence is compressed to milliseconds; so is the provider's budget (1 call a second in production).
      budgetLimits: { krakenRest: ROOMY },
      leadership: { btcPollers: leadership },
      services: btcOnly((ctx) => [createCandlesFeature(ctx, { cadence, minGapMs: 5 })]),
    });
    return t;
  }
  afterAll(() => t.close());

  it('polls only while this process leads, and not at all when OHLC_FEED_ENABLED is false', async () => {
    const leadership = switchable(false);
    await app({ OHLC_FEED_ENABLED: 'true' }, leadership);
    await t.startFeeds();
    await new Promise((r) => setTimeout(r, 150));
    expect(fake.server.requests).toHaveLength(0);
    expect(t.ctx.health.feed('ohlc').detail).toBe('another process polls');

    leadership.set(true);
    await vi.waitFor(
      async () => {
        expect(fake.server.countOf('GET', '/0/public/OHLC')).toBeGreaterThanOrEqual(12);
        expect(await stored('day', 'BTC/EUR')).toHaveLength(MAX_ROWS - 1);
      },
      { timeout: 5000 },
    );
    const intervals = new Set(fake.server.requests.map((r) => r.query.get('interval')));
    expect(intervals).toEqual(new Set(['1', '60', '1440']));
    expect(t.ctx.health.feed('ohlc').ok).toBe(true);

    leadership.set(false);
    await new Promise((r) => setTimeout(r, 100));
    const count = fake.server.requests.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.server.requests.length).toBe(count);
    await t.close();

    await app({ OHLC_FEED_ENABLED: 'false' });
    await t.startFeeds();
    await new Promise((r) => setTimeout(r, 150));
    expect(fake.server.requests.length).toBe(count);
  });

  it('keeps polling through a failing provider and shows it in /health', async () => {
    await t.close();
    await app({ OHLC_FEED_ENABLED: 'true' });
    fake.server.failAlways({
      kind: 'status',
      status: 200,
      json: { error: ['EService:Unavailable'], result: {} },
    });
    await t.startFeeds();
    await vi.waitFor(
      async () => {
        const health = (await t.call('GET', '/health')).json();
        expect(health.feeds.ohlc).toMatchObject({
          ok: false,
          last_error: expect.stringMatching(/EService:Unavailable/),
        });
      },
      { timeout: 5000 },
    );
    fake.server.heal();
    await vi.waitFor(() => expect(t.ctx.health.feed('ohlc').ok).toBe(true), { timeout: 5000 });
  });
});

describe('GET /api/exch-hour and /api/exch-minute', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      db,
      services: btcOnly((ctx) => [createCandlesFeature(ctx)]),
    });
  });
  afterAll(() => t.close());

  it('answers at most 24 closed hourly candles, oldest first, as numbers', async () => {
    await candles.poll('hour', USD);
    const res = await t.call('GET', '/api/exch-hour');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ time: string; open: number; close: number; volume: number }[]>();
    expect(body).toHaveLength(24);
    const last = Math.floor(START / 3600) * 3600 - 3600;
    expect(body.at(-1)?.time).toBe(new Date(last * 1000).toISOString());
    expect(body[0]?.time).toBe(new Date((last - 23 * 3600) * 1000).toISOString());
    const [, open, high, low, close, , volume] = fake.committed('XBTUSD', 60, last);
    expect(body.at(-1)).toEqual({
      time: new Date(last * 1000).toISOString(),
      open: Number(open),
      high: Number(high),
      low: Number(low),
      close: Number(close),
      volume: Number(volume),
    });
  });

  it('answers fewer hourly candles when fewer are stored, and EUR on request', async () => {
    fake.now = START;
    await db.database.db.deleteFrom('btc.candles_hour').execute();
    const step = 3600;
    const formingStart = Math.floor(START / step) * step;
    fake.server.failNext({
      kind: 'status',
      status: 200,
      json: {
        error: [],
        result: {
          XXBTZEUR: [fake.committed('XBTEUR', 60, formingStart - step), fake.forming('XBTEUR', 60)],
          last: formingStart - step,
        },
      },
    });
    await candles.poll('hour', PAIRS[1]);
    expect((await t.call('GET', '/api/exch-hour?pair=BTC/EUR')).json()).toHaveLength(1);
    expect((await t.call('GET', '/api/exch-hour')).json()).toHaveLength(0);
  });

  it('answers the last 60 minute candles by default and ?limit= up to 1440', async () => {
    await candles.poll('minute', USD);
    const def = (await t.call('GET', '/api/exch-minute')).json<{ time: string }[]>();
    expect(def).toHaveLength(60);
    const forming = Math.floor(START / 60) * 60;
    expect(def.at(-1)?.time).toBe(new Date(forming * 1000).toISOString());
    expect(def.map((c) => c.time)).toEqual([...def.map((c) => c.time)].sort());
    expect((await t.call('GET', '/api/exch-minute?limit=5')).json()).toHaveLength(5);
    expect((await t.call('GET', '/api/exch-minute?limit=1440')).json()).toHaveLength(MAX_ROWS);
  });

  it.each(['0', '1441', '-3', 'abc', '2.5'])('refuses limit=%s with 400 naming limit', async (limit) => {
    const res = await t.call('GET', `/api/exch-minute?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/limit/);
  });

  it('refuses an unknown pair with 400 naming pair', async () => {
    const res = await t.call('GET', '/api/exch-hour?pair=BTC/JPY');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/pair/);
  });
});
