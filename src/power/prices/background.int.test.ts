import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEnergiDataService } from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { backfillPricesCommand as backfillPrices } from './command.js';
import { createElectricityPriceService } from './index.js';
import { insertPrices } from './repository.js';
import { JobRunner } from '../../jobs/job.js';
import { priceJob } from './scheduler.js';

let fake: FakeEnergiDataService;
let app: TestApp;

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  app = await startTestApp({ env: { PRICE_FEED_URL: fake.url }, now: '2026-07-03T10:00:00Z' });
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(async () => {
  vi.restoreAllMocks();
  await app.close();
  await fake.close();
});
beforeEach(() => {
  fake.server.heal();
  fake.publication.clear();
  fake.server.requests.length = 0;
});

const count = async (table: 'power.prices' | 'power.elprices', from: string, to: string) => {
  const r = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)}
    where time_dk >= ${from}::timestamptz and time_dk < ${to}::timestamptz`.execute(app.ctx.database.db);
  return Number(r.rows[0]!.n);
};

describe('backfill-prices FROM TO', () => {
  it('stores a range across the 15-minute switch in one request per dataset and month, and is safe to rerun', async () => {
    app.clock.set('2026-07-03T10:00:00Z');
    const code = await backfillPrices.run(['2025-09-20', '2025-10-27'], app.ctx);
    expect(code).toBe(0);
    // Elspotprices 09-20..09-30 (one request), DayAheadPrices 10-01..10-27 (one request): 38 days in 2 chunks.
    const paths = fake.priceRequests().map((r) => `${r.path} ${r.query.get('start')}..${r.query.get('end')}`);
    expect(paths).toEqual([
      '/dataset/Elspotprices 2025-09-20..2025-10-01',
      '/dataset/DayAheadPrices 2025-10-01..2025-10-21',
      '/dataset/DayAheadPrices 2025-10-21..2025-10-28',
    ]);
    // 11 hourly days + 26 quarter days + the 25-hour 2025-10-26 (100 quarters) + 2025-10-27, two areas
    expect(await count('power.prices', '2025-09-19T22:00Z', '2025-10-27T23:00Z')).toBe(
      2 * (11 * 24 + 25 * 96 + 100 + 96),
    );
    expect(await count('power.elprices', '2025-09-19T22:00Z', '2025-10-27T23:00Z')).toBe(2 * (37 * 24 + 25));

    fake.variant = 5;
    expect(await backfillPrices.run(['2025-09-20', '2025-10-27'], app.ctx)).toBe(0);
    expect(await count('power.prices', '2025-09-19T22:00Z', '2025-10-27T23:00Z')).toBe(
      2 * (11 * 24 + 25 * 96 + 100 + 96),
    );
    // Existing pairs stay untouched even though the provider now says something else.
    const day = (await app.call('GET', '/api/prices?date=2025-10-27&area=DK1')).json<{
      items: { price_dkk: number }[];
    }>();
    const { generatedPrice } = await import('../../../test/fakes/energidataservice.js');
    expect(day.items[0]!.price_dkk).toBe(generatedPrice(new Date('2025-10-26T23:00:00Z'), 'DK1', 0));
    fake.variant = 0;
  });

  it('refuses bad arguments without asking the provider', async () => {
    expect(await backfillPrices.run(['2025-01-01'], app.ctx)).toBe(2);
    expect(await backfillPrices.run(['2025-02-30', '2025-03-01'], app.ctx)).toBe(2);
    expect(await backfillPrices.run(['2025-03-01', '2025-02-01'], app.ctx)).toBe(2);
    expect(fake.server.requests).toHaveLength(0);
  });

  it('exits 1 when the provider is down, keeping what it stored', async () => {
    fake.server.failAlways({ kind: 'status', status: 400, json: { message: 'bad' } });
    expect(await backfillPrices.run(['2024-01-01', '2024-01-02'], app.ctx)).toBe(1);
  });
});

describe('prices table', () => {
  it('an existing (time_dk, price_area) pair is left untouched', async () => {
    const t = new Date('2030-01-01T00:00:00Z');
    const db = app.ctx.database.db;
    expect(
      await insertPrices(db, [{ timeUtc: t, area: 'DK1', minutes: 15, priceDkk: '1.5', priceEur: null }]),
    ).toBe(1);
    expect(
      await insertPrices(db, [{ timeUtc: t, area: 'DK1', minutes: 15, priceDkk: '9.9', priceEur: '1' }]),
    ).toBe(0);
    const row = await db
      .selectFrom('power.prices')
      .selectAll()
      .where('time_dk', '=', t)
      .executeTakeFirstOrThrow();
    expect(row.price_dkk).toBe('1.5');
  });
});

describe('scheduler', () => {
  it('ensures today at start, fetches tomorrow from 13:00 Danish time, and retries until it is complete', async () => {
    const health = app.ctx.health.feed('prices');
    const scheduler = new JobRunner(
      priceJob(createElectricityPriceService(app.ctx), { ...app.ctx, health }),
      app.ctx,
    );
    app.clock.set('2026-08-10T10:00:00Z'); // 12:00 in Denmark
    await scheduler.runNow();
    expect(fake.priceRequests().map((r) => r.query.get('start'))).toEqual(['2026-08-10']);
    // the household's charges have their own schedule: the price rounds never ask for them
    expect(fake.server.countOf('GET', '/dataset/DatahubPricelist')).toBe(0);

    fake.publication.set('2026-08-11', 'none');
    app.clock.set('2026-08-10T11:05:00Z'); // 13:05
    await scheduler.runNow();
    expect(fake.priceRequests().map((r) => r.query.get('start'))).toEqual(['2026-08-10', '2026-08-11']);
    expect(health.detail).toBe('waiting for 2026-08-11');

    fake.publication.set('2026-08-11', 'half');
    app.clock.set('2026-08-10T11:10:00Z');
    await scheduler.runNow();
    expect(health.detail).toBe('waiting for 2026-08-11');

    fake.publication.delete('2026-08-11');
    app.clock.set('2026-08-10T11:15:00Z');
    await scheduler.runNow();
    expect(health.detail).toBe('complete through 2026-08-11');
    const before = fake.priceRequests().length;
    await scheduler.runNow();
    expect(fake.priceRequests().length).toBe(before);
    const res = await app.call('GET', '/health');
    expect(res.json<{ feeds: Record<string, unknown> }>().feeds.prices).toMatchObject({ ok: true });
    await scheduler.stop();
  });

  it('a provider failure in a round never throws and shows in the health detail', async () => {
    const health = app.ctx.health.feed('prices');
    const job = priceJob(createElectricityPriceService(app.ctx), { ...app.ctx, health });
    fake.server.failAlways({ kind: 'status', status: 404, json: { message: 'gone' } });
    app.clock.set('2026-09-01T10:00:00Z');
    await expect(job.round(app.ctx.shutdown)).resolves.toBeUndefined();
    expect(health.detail).toMatch(/^retrying: energidataservice/);
  });
});

describe('the feature with PRICE_FEED_ENABLED', () => {
  it('ensures today at start and stops its schedule on shutdown', async () => {
    const own = await FakeEnergiDataService.start();
    const running = await startTestApp({
      env: { PRICE_FEED_URL: own.url, PRICE_FEED_ENABLED: 'true' },
      now: '2026-02-10T08:00:00Z',
    });
    try {
      await running.startFeeds();
      await expect
        .poll(() => own.priceRequests().map((r) => r.query.get('start')), { timeout: 10_000 })
        .toEqual(['2026-02-10']);
      await expect
        .poll(() => running.ctx.health.feed('prices').detail, { timeout: 10_000 })
        .toBe('complete through 2026-02-10');
    } finally {
      await running.close();
      await own.close();
    }
  });

  it('is off when PRICE_FEED_ENABLED=false and says so in /health', async () => {
    await app.startFeeds();
    const res = await app.call('GET', '/health');
    expect(res.json<{ feeds: Record<string, unknown> }>().feeds.prices).toMatchObject({ enabled: false });
  });
});
