import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRatesFeature, createRatesService } from '../src/btc/rates/index.js';
import { createPricesFeature, createElectricityPriceService } from '../src/power/prices/index.js';
import { BUDGET_LIMITS } from '../src/providers/budget.js';
import { fixedClock } from '../src/shared/clock.js';
import { addDays } from '../src/shared/danish-time.js';
import { FakeEnergiDataService, dayAheadRecords } from './fakes/energidataservice.js';
import { startFakeFrankfurter } from './fakes/frankfurter.js';
import type { FakeHttpServer } from './fakes/http.js';
import { startTestApp, type TestApp } from './support/app.js';
import { freshDatabase, type TestDatabase } from './support/db.js';
import { btcOnly, powerOnly } from './support/services.js';

/**
 * Every call to a provider goes through its one budget, whoever asks; a
 * client's request beyond it is 503 with Retry-After and calls nothing. And
 * what a provider answers is checked before anything of it is stored.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.close());

const pastDays = (from: string, n: number) => Array.from({ length: n }, (_, i) => addDays(from, i));

describe('Energi Data Service budget (30 calls per 10 s, inside the published 40; 10 of them kept from readers)', () => {
  let fake: FakeEnergiDataService;
  let t: TestApp;
  // The budget's scale stands still while the burst runs, however slow the machine, so the
  // window cannot slide under the test; a test moves it on explicitly.
  let elapsed = 0;
  const clock = { ...fixedClock('2026-07-03T10:00:00Z'), monotonicMs: () => elapsed };
  beforeAll(async () => {
    fake = await FakeEnergiDataService.start();
    t = await startTestApp({
      db,
      clock,
      // A generous timeout: on a loaded machine a fake's answer may be slow, and a timed-out call's
      // retry would find the window spent and turn a fetched day into a 503.
      env: { PRICE_FEED_URL: fake.url, PROVIDER_TIMEOUT_MS: '30000' },
      services: powerOnly((ctx) => [createPricesFeature(ctx)]),
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('a burst of anonymous requests for 80 past days makes at most the budgeted calls; the rest get 503 and Retry-After', async () => {
    const days = pastDays('2025-01-01', 80);
    const answers = await Promise.all(
      days.flatMap((d) => [t.call('GET', `/api/elprice?date=${d}`), t.call('GET', `/api/prices?date=${d}`)]),
    );
    // anonymous readers get the budget but its reserve, which is kept for the household's work
    const budget = BUDGET_LIMITS.energidataservice.calls - BUDGET_LIMITS.energidataservice.reserve;
    expect(fake.priceRequests().length).toBe(budget);
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 503);
    expect(ok.length + refused.length).toBe(answers.length);
    // Both routes of a day share its one fetch, so the answered days are the fetched ones.
    expect(new Set(ok.map((r) => r.json<{ date: string }>().date)).size).toBe(budget);
    for (const r of refused) {
      const after = Number(r.headers['retry-after']);
      expect(after, r.body).toBeGreaterThanOrEqual(1);
      expect(after).toBeLessThanOrEqual(10);
      expect(r.headers['content-type']).toContain('application/problem+json');
      expect(r.json<{ detail: string }>().detail).toMatch(/energidataservice.*budget/);
    }
    const health = (await t.call('GET', '/health')).json<{
      feeds: Record<string, { ok: boolean; budget_refusals: number }>;
    }>();
    // One refusal per refused fetch; the two routes of a day may share one.
    expect(health.feeds.prices!.ok).toBe(true);
    expect(health.feeds.prices!.budget_refusals).toBeGreaterThanOrEqual(days.length - budget);
    expect(health.feeds.prices!.budget_refusals).toBeLessThanOrEqual(refused.length);
  });

  it('a day before the prices begin is a 400 without a call', async () => {
    const before = fake.server.requests.length;
    const res = await t.call('GET', '/api/elprice?date=1999-06-30');
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toMatch(/date/);
    expect(fake.server.requests.length).toBe(before);
  });

  it('a background fetch (the scheduler, a backfill) takes the reserve, then waits for the budget instead of failing', async () => {
    const service = createElectricityPriceService(t.ctx);
    // The burst above spent the readers' share; the reserve is the household's, at once.
    for (let i = 0; i < BUDGET_LIMITS.energidataservice.reserve; i++)
      expect(await service.ensureDay(addDays('2024-05-01', i))).toBe(true);
    // The window is spent now; this one waits for it, then fetches.
    const before = fake.priceRequests().length;
    let done = false;
    const ensured = service.ensureDay('2024-06-01').finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    expect(fake.priceRequests().length).toBe(before);
    elapsed += 10_000; // the window is over; the waiter sees it when its sleep ends
    expect(await ensured).toBe(true);
    expect(fake.priceRequests().length).toBe(before + 1);
  });
});

describe('Frankfurter budget', () => {
  let fake: FakeHttpServer;
  let t: TestApp;
  const limit = { calls: 5, perMs: 60_000, source: 'test' };
  beforeAll(async () => {
    fake = await startFakeFrankfurter({ latest: '2026-07-03' });
    t = await startTestApp({
      db,
      now: '2026-07-03T10:00:00Z',
      env: { RATES_FEED_URL: fake.url, PROVIDER_TIMEOUT_MS: '30000' },
      budgetLimits: { frankfurter: limit },
      services: btcOnly((ctx) => {
        const rates = createRatesService(ctx);
        return [createRatesFeature(ctx, { rates })];
      }),
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('anonymous /api/currencies for many past days: at most the budget reaches the provider, the rest 503 with Retry-After', async () => {
    const answers = await Promise.all(
      pastDays('2020-03-02', 20).map((d) => t.call('GET', `/api/currencies/${d}`)),
    );
    expect(fake.requests.length).toBe(limit.calls);
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(limit.calls);
    const refused = answers.filter((r) => r.statusCode === 503);
    expect(refused).toHaveLength(20 - limit.calls);
    for (const r of refused) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('untrusted answers: what is rejected is counted per feed and never stored', () => {
  let fake: FakeEnergiDataService;
  let t: TestApp;
  beforeAll(async () => {
    fake = await FakeEnergiDataService.start();
    t = await startTestApp({
      db,
      now: '2026-07-03T10:00:00Z',
      env: { PRICE_FEED_URL: fake.url },
      services: powerOnly((ctx) => [createPricesFeature(ctx)]),
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('a quarter-hour above the SDAC maximum and a day the answer was not asked for are not stored', async () => {
    const records = [...dayAheadRecords('2026-06-01'), ...dayAheadRecords('2026-06-02')];
    const bad = records.findIndex((r) => r.PriceArea === 'DK1' && String(r.TimeUTC).endsWith('10:00:00'));
    records[bad]!.DayAheadPriceEUR = 5_000;
    fake.server.failNext({ kind: 'status', status: 200, json: { records } });
    const res = await t.call('GET', '/api/prices?date=2026-06-01&area=DK1');
    expect(res.statusCode, res.body).toBe(200);
    const day = res.json<{ complete: boolean; items: { time_dk: string }[] }>();
    expect(day.complete).toBe(false);
    expect(day.items).toHaveLength(95);
    expect(day.items.map((i) => i.time_dk)).not.toContain('2026-06-01T12:00:00+02:00');
    const stored = await sql<{ n: number }>`select count(*)::int as n from power.prices
      where time_dk >= '2026-06-01T22:00:00Z'`.execute(t.ctx.database.db);
    expect(stored.rows[0]!.n).toBe(0);
    const health = (await t.call('GET', '/health')).json<{
      feeds: Record<string, Record<string, unknown>>;
    }>();
    expect(health.feeds.prices).toMatchObject({ rejected: 1 + 192 });
  });
});
