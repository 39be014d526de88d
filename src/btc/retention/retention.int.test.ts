import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRates } from '../../../test/fakes/market-rates.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { btcOnly } from '../../../test/support/services.js';
import { switchable } from '../../../test/support/leadership.js';
import { btcService } from '../index.js';
import { premiumOf } from '../market/premium.js';
import * as market from '../market/repository.js';
import type { RetentionService } from './service.js';

const NOW = '2026-07-20T12:34:00Z';
const HOUR = 3_600_000;
const ticker = (eur: number) => [{ amount: String(eur), sourceCurrency: 'BTC', targetCurrency: 'EUR' }];

let t: TestApp;
let retention: RetentionService;
const leadership = switchable(false);

/** Quotes every 20 minutes over the 10 days before NOW, their sats and premium varying. */
const quotes: { at: Date; quote_sats: number; spot: string | null; eur: number }[] = [];

beforeAll(async () => {
  t = await startTestApp({
    now: NOW,
    leadership: { btcPollers: leadership },
    services: btcOnly((ctx) => {
      const made = btcService(ctx, {
        rates: new MemoryRates(null),
        only: ['market', 'retention'],
        retention: { rowsPerBatch: 100, pauseMs: 0, firstRunDelayMs: 0 },
      });
      retention = made.services.retention!;
      return made;
    }),
  });
  const { db } = t.db.database;
  const end = new Date(NOW).getTime();
  const start = Math.floor((end - 10 * 24 * HOUR) / HOUR) * HOUR;
  for (let at = start, i = 0; at < end; at += 20 * 60_000, i++) {
    const eur = 60_000 + (i % 7) * 10;
    const q = {
      at: new Date(at),
      total_eur: '55',
      fee_eur: '0.55',
      pre_fee_eur: '54.45',
      quote_sats: 90_000 + ((i * 37) % 500),
    };
    const spot = i % 5 === 0 ? null : String(59_000 + (i % 11) * 25);
    quotes.push({ at: q.at, quote_sats: q.quote_sats, spot, eur });
    await market.insertQuote(db, { ...q, rates: ticker(eur), ...premiumOf(q, spot) });
  }
  const candle = (time: Date) => ({
    pair: 'BTC/USD',
    time,
    open: '1',
    high: '2',
    low: '0.5',
    close: '1.5',
    vwap: '1.2',
    volume: '3',
    trades: 4,
  });
  const minutes = [];
  for (let at = end - 40 * 24 * HOUR; at < end; at += 30 * 60_000) minutes.push(candle(new Date(at)));
  await db.insertInto('btc.candles_minute').values(minutes).execute();
  await db
    .insertInto('btc.candles_hour')
    .values([candle(new Date(end - 100 * 24 * HOUR))])
    .execute();
  await db
    .insertInto('btc.idempotency_keys')
    .values(
      [30, 25, 23, 1].map((h) => ({
        key: `k${h}`,
        request_hash: 'x',
        status: 201,
        body: '{}',
        created_at: new Date(end - h * HOUR),
      })),
    )
    .execute();
  await t.startFeeds();
});
afterAll(() => t.close());

const premium = async (q: string) => (await t.call('GET', `/api/quote/premium?${q}`)).json();
const count = async (
  table:
    'btc.quotes' | 'btc.quotes_hour' | 'btc.candles_minute' | 'btc.candles_hour' | 'btc.idempotency_keys',
) =>
  Number(
    (
      await t.db.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('retention', () => {
  let before: { hour: unknown; day: unknown };

  it('does nothing while this process is not the leader', async () => {
    before = {
      hour: await premium('from=2026-07-10&to=2026-07-20&resolution=hour'),
      day: await premium('from=2026-07-10&to=2026-07-20&resolution=day'),
    };
    expect((before.hour as { items: unknown[] }).items.length).toBeGreaterThan(200);
    await new Promise((r) => setImmediate(r));
    expect(await count('btc.quotes')).toBe(quotes.length);
    expect(await count('btc.quotes_hour')).toBe(0);
  });

  it('runs once the process leads: quotes older than 7 days (whole hours) are folded into hourly rows', async () => {
    leadership.set(true);
    const cutoff = new Date('2026-07-13T12:00:00Z'); // 7 days before NOW, down to the hour
    const old = quotes.filter((q) => q.at < cutoff);
    await waitFor(async () => (await count('btc.quotes')) === quotes.length - old.length, 10_000, 'the fold');
    const hours = await t.db.database.db.selectFrom('btc.quotes_hour').selectAll().orderBy('time').execute();
    expect(hours).toHaveLength(old.length / 3);
    const first = old.slice(0, 3);
    const sats = first.map((q) => q.quote_sats);
    expect(hours[0]).toMatchObject({
      time: old[0]!.at,
      total_eur: '55',
      quotes: 3,
      quote_sats_min: Math.min(...sats),
      quote_sats_max: Math.max(...sats),
      quote_sats_sum: String(sats.reduce((a, b) => a + b, 0)),
      last_at: first[2]!.at,
      last_rates: ticker(first[2]!.eur),
      premium_quotes: first.filter((q) => q.spot !== null).length,
    });
    expect(Number(hours[0]!.quote_sats_avg)).toBeCloseTo(sats.reduce((a, b) => a + b, 0) / 3, 2);
    expect(hours.at(-1)!.time.getTime()).toBe(cutoff.getTime() - HOUR);
  });

  it('keeps GET /api/quote/premium the same over the folded hours, by hour and by day', async () => {
    expect(await premium('from=2026-07-10&to=2026-07-20&resolution=hour')).toEqual(before.hour);
    expect(await premium('from=2026-07-10&to=2026-07-20&resolution=day')).toEqual(before.day);
  });

  it('deletes 1-minute candles older than 30 days in batches, keeps hourly ones', async () => {
    const kept = 30 * 48;
    await waitFor(async () => (await count('btc.candles_minute')) === kept, 10_000, 'the candle prune');
    expect(await count('btc.candles_hour')).toBe(1);
  });

  it('deletes idempotency keys older than 24 hours', async () => {
    await waitFor(async () => (await count('btc.idempotency_keys')) === 2, 10_000, 'the key prune');
    const keys = await t.db.database.db
      .selectFrom('btc.idempotency_keys')
      .select('key')
      .orderBy('key')
      .execute();
    expect(keys.map((k) => k.key)).toEqual(['k1', 'k23']);
  });

  it('a second run finds nothing; a day later it folds the next day, in small batches', async () => {
    expect(await retention.run()).toMatchObject({
      quotesFolded: 0,
      minuteCandlesDeleted: 0,
      idempotencyKeysDeleted: 0,
    });
    t.clock.advance(24 * HOUR);
    const r = await retention.run();
    expect(r.quotesFolded).toBe(72);
    expect(r.minuteCandlesDeleted).toBe(48);
    expect(r.batches).toBeGreaterThanOrEqual(24 + 2);
    expect(await premium('from=2026-07-10&to=2026-07-20&resolution=day')).toEqual(before.day);
  });

  it('a late quote in a folded hour is added to its row: count, min, sums, and the last ticker', async () => {
    const { db } = t.db.database;
    const time = new Date('2026-07-11T05:00:00Z');
    const row = () =>
      db.selectFrom('btc.quotes_hour').selectAll().where('time', '=', time).executeTakeFirstOrThrow();
    const was = await row();
    const q = {
      at: new Date('2026-07-11T05:59:59Z'),
      total_eur: '55',
      fee_eur: '0.55',
      pre_fee_eur: '54.45',
      quote_sats: 1_000,
    };
    await market.insertQuote(db, { ...q, rates: ticker(1), ...premiumOf(q, '60000') });
    expect((await retention.run()).quotesFolded).toBe(1);
    const now = await row();
    expect(now).toMatchObject({
      quotes: was.quotes + 1,
      quote_sats_min: 1_000,
      quote_sats_max: was.quote_sats_max,
      quote_sats_sum: String(Number(was.quote_sats_sum) + 1_000),
      last_at: q.at,
      last_rates: ticker(1),
      premium_quotes: was.premium_quotes + 1,
    });
    expect(Number(now.quote_sats_avg)).toBeCloseTo(
      (Number(was.quote_sats_sum) + 1_000) / (was.quotes + 1),
      2,
    );
    expect(Number(now.spread_pct_max)).toBeGreaterThan(Number(was.spread_pct_max));
  });
});
