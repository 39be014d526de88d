import { Big } from 'big.js';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEnergiDataService, generatedCo2 } from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { danishDaySteps } from '../../shared/danish-time.js';
import { createCo2Service } from './index.js';
import { JobRunner } from '../../jobs/job.js';
import { soleLeaderships } from '../../jobs/leadership.js';
import { co2Job } from './scheduler.js';
import type { Co2Day } from './schemas.js';

let fake: FakeEnergiDataService;
let app: TestApp;
let scheduler: JobRunner;
let leader = true;

const NOW = '2026-11-03T10:07:00Z'; // 11:07 in Denmark

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  app = await startTestApp({ env: { PRICE_FEED_URL: fake.url }, now: NOW });
  fake.co2.now = () => app.clock.now();
  // The app's own schedule stays off (CO2_FEED_ENABLED=false); this test runs its rounds, so the feed reports.
  app.ctx.health.feed('co2').enabled = true;
  const log = pino({ level: 'silent' });
  const job = co2Job(createCo2Service(app.ctx, { retries: 1, initialDelayMs: 5 }), {
    clock: app.clock,
    log,
    health: app.ctx.health.feed('co2'),
    shutdown: app.ctx.shutdown,
  });
  scheduler = new JobRunner(job, {
    clock: app.clock,
    log,
    shutdown: app.ctx.shutdown,
    leadership: soleLeaderships({
      meteringSync: { isLeader: () => leader, watch: (l) => (l(leader), () => {}) },
    }),
  });
});
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => {
  fake.server.heal();
  fake.server.requests.length = 0;
  leader = true;
});

const db = () => app.ctx.database.db;
const co2 = async (query: string) => {
  const res = await app.call('GET', `/api/co2?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Co2Day>();
};
const health = async () =>
  (await app.call('GET', '/health')).json<{
    feeds: Record<string, { ok: boolean; detail: string; rejected: number }>;
  }>().feeds.co2!;

/** The expected mean of the 5-minute values from `start`, each taken from `value`, to 2 decimals half up. */
const mean = (start: string, count: number, value: (t: Date) => number) => {
  let sum = new Big(0);
  for (let i = 0; i < count; i++) sum = sum.plus(value(new Date(Date.parse(start) + i * 300_000)));
  return Number(sum.div(count).round(2, Big.roundHalfUp).toString());
};
const realized = (t: Date) => generatedCo2(t);
const forecast = (issue: number) => (t: Date) => generatedCo2(t) + 7 + issue;

describe('the CO₂ feed', () => {
  it('answers plainly before anything is stored: no intervals; no window and no rates yet, 503 with Retry-After', async () => {
    expect(await co2('date=2026-11-03')).toMatchObject({ complete: false, items: [] });
    for (const url of ['/api/greenest?minutes=60', '/api/evcc/co2']) {
      const r = await app.call('GET', url);
      expect(r.statusCode, url).toBe(503);
      expect(r.headers['retry-after']).toBe('60');
      expect(r.json<{ detail: string }>().detail).toMatch(/no CO₂ value from now on is stored yet/);
    }
    // a span where nothing can be published yet is still a window that does not fit
    const late = await app.call('GET', '/api/greenest?minutes=60&after=2026-11-20T00:00');
    expect(late.statusCode).toBe(404);
  });

  it('stores the realized values since yesterday and the prognosis as issued, and says so in /health', async () => {
    fake.co2.issue = 0;
    await scheduler.runNow();
    const counts = await sql<{ realized: number; forecast: number }>`
      select (select count(*)::int from power.co2_realized) as realized,
             (select count(*)::int from power.co2_forecasts) as forecast`.execute(db());
    // realized: from yesterday 00:00 Danish time (2026-11-01T23:00Z) up to 10:05Z, both areas
    const realizedCount = (Date.parse('2026-11-03T10:05:00Z') - Date.parse('2026-11-01T23:00:00Z')) / 300_000;
    expect(counts.rows[0]!.realized).toBe(2 * realizedCount);
    // the prognosis: from the current quarter hour (10:00Z) to the fake's horizon, 30 hours on
    expect(counts.rows[0]!.forecast).toBe(
      2 * ((Date.parse('2026-11-04T16:10:00Z') - Date.parse('2026-11-03T10:00:00Z')) / 300_000),
    );
    const feed = await health();
    expect(feed.ok).toBe(true);
    expect(feed.detail).toBe(
      'realized through 2026-11-03T10:05:00.000Z, forecast through 2026-11-04T16:10:00.000Z',
    );
  });

  it('keeps every issue of the prognosis, adding only the values that changed', async () => {
    app.clock.set('2026-11-03T10:22:00Z');
    fake.co2.issue = 5;
    await scheduler.runNow();
    app.clock.set('2026-11-03T10:37:00Z');
    await scheduler.runNow(); // the same issue again: nothing new
    const issues = await sql<{ issued_at: Date; g_kwh: string }>`
      select issued_at, g_kwh::text from power.co2_forecasts
       where price_area = 'DK1' and time_utc = '2026-11-03T15:00:00Z' order by issued_at`.execute(db());
    const t = new Date('2026-11-03T15:00:00Z');
    expect(issues.rows).toEqual([
      { issued_at: new Date(NOW), g_kwh: String(forecast(0)(t)) },
      { issued_at: new Date('2026-11-03T10:22:00Z'), g_kwh: String(forecast(5)(t)) },
    ]);
    // the prognosis as it stood before the second issue can still be read
    const asIssued = await sql<{ g_kwh: string }>`
      select distinct on (time_utc) g_kwh::text from power.co2_forecasts
       where price_area = 'DK1' and time_utc = '2026-11-03T15:00:00Z' and issued_at <= '2026-11-03T10:10:00Z'
       order by time_utc, issued_at desc`.execute(db());
    expect(asIssued.rows).toEqual([{ g_kwh: String(forecast(0)(t)) }]);
  });

  it('answers each quarter hour of today with its mean, realized where every value is, else the latest issue', async () => {
    app.clock.set('2026-11-03T10:37:00Z');
    await scheduler.runNow();
    const day = await co2('date=2026-11-03&area=DK1');
    expect(day).toMatchObject({ date: '2026-11-03', area: 'DK1', resolution: 'quarter', complete: true });
    expect(day.items).toHaveLength(96);
    const at = (time: string) => day.items.find((i) => i.time_dk === time);
    // 09:15Z: realized
    expect(at('2026-11-03T10:15:00+01:00')).toEqual({
      time_dk: '2026-11-03T10:15:00+01:00',
      g_kwh: mean('2026-11-03T09:15:00Z', 3, realized),
      kind: 'realized',
    });
    // 10:30Z: the quarter of the present, two values realized (10:30, 10:35 end at 10:40 > now: only 10:30) and the rest forecast
    expect(at('2026-11-03T11:30:00+01:00')).toEqual({
      time_dk: '2026-11-03T11:30:00+01:00',
      g_kwh: mean('2026-11-03T10:30:00Z', 3, (t) =>
        t.getTime() < Date.parse('2026-11-03T10:35:00Z') ? realized(t) : forecast(5)(t),
      ),
      kind: 'forecast',
    });
    expect(at('2026-11-03T23:45:00+01:00')).toMatchObject({
      g_kwh: mean('2026-11-03T22:45:00Z', 3, forecast(5)),
      kind: 'forecast',
    });
    const hours = await co2('date=2026-11-03&area=dk1&resolution=hour');
    expect(hours.items).toHaveLength(24);
    expect(hours.items[9]).toEqual({
      time_dk: '2026-11-03T09:00:00+01:00',
      g_kwh: mean('2026-11-03T08:00:00Z', 12, realized),
      kind: 'realized',
    });
    // tomorrow: the prognosis issued at 10:37Z reaches 16:35Z; the last quarter hour with all three values starts at 16:15Z
    const tomorrow = await co2('date=2026-11-04');
    expect(tomorrow.complete).toBe(false);
    expect(tomorrow.items.at(-1)).toMatchObject({ time_dk: '2026-11-04T17:15:00+01:00', kind: 'forecast' });
    expect(tomorrow.items.every((i) => i.kind === 'forecast')).toBe(true);
  });

  it('fetches a past day when asked: 100 quarter hours on the autumn day, 92 in spring, 25 and 23 hours', async () => {
    for (const [date, quarters, hours] of [
      ['2026-10-25', 100, 25],
      ['2026-03-29', 92, 23],
    ] as const) {
      const day = await co2(`date=${date}&area=DK2`);
      expect(day.items.map((i) => Date.parse(i.time_dk))).toEqual(
        danishDaySteps(date, 15).map((t) => t.getTime()),
      );
      expect(day.items).toHaveLength(quarters);
      expect(day.complete).toBe(true);
      expect(day.items.every((i) => i.kind === 'realized')).toBe(true);
      expect((await co2(`date=${date}&area=DK2&resolution=hour`)).items).toHaveLength(hours);
    }
    const autumn = await co2('date=2026-10-25&area=DK2&resolution=hour');
    expect(autumn.items.slice(2, 4).map((i) => i.time_dk)).toEqual([
      '2026-10-25T02:00:00+02:00',
      '2026-10-25T02:00:00+01:00',
    ]);
    expect(autumn.items[3]!.g_kwh).toBe(mean('2026-10-25T01:00:00Z', 12, realized));
    // once stored, asking again fetches nothing
    fake.server.requests.length = 0;
    await co2('date=2026-10-25&area=DK2');
    expect(fake.co2Requests()).toHaveLength(0);
    // two asking at once for a day not stored share one request
    const [a, b] = await Promise.all([co2('date=2026-09-15'), co2('date=2026-09-15&resolution=hour')]);
    expect([a.items.length, b.items.length]).toEqual([96, 24]);
    expect(fake.co2Requests('CO2Emis')).toHaveLength(1);
  });

  it('keeps what it has while the provider is down, says so, and recovers at the next round', async () => {
    fake.server.failAlways({ kind: 'status', status: 503 });
    app.clock.set('2026-11-03T10:52:00Z');
    await scheduler.runNow();
    let feed = await health();
    expect(feed.ok).toBe(false);
    expect(feed.detail).toMatch(/^retrying at the next quarter hour: energidataservice: HTTP 503/);
    // a past day never stored cannot be fetched: 503 naming the provider; today is served from the store
    const res = await app.call('GET', '/api/co2?date=2026-09-01');
    expect(res.statusCode).toBe(503);
    expect(res.json<{ detail: string }>().detail).toMatch(/energidataservice/);
    expect((await co2('date=2026-11-03')).items).toHaveLength(96);

    fake.server.heal();
    app.clock.set('2026-11-03T11:07:00Z');
    await scheduler.runNow();
    feed = await health();
    expect(feed.ok).toBe(true);
    expect(feed.detail).toMatch(/^realized through 2026-11-03T11:05:00.000Z/);
  });

  it('stores nothing implausible and counts what it refused', async () => {
    fake.co2.extra = [
      {
        Minutes5UTC: '2026-11-03T11:30:00',
        Minutes5DK: '2026-11-03T12:30:00',
        PriceArea: 'DK1',
        CO2Emission: 2001,
      },
    ];
    const before = (await health()).rejected;
    app.clock.set('2026-11-03T11:22:00Z');
    await scheduler.runNow();
    fake.co2.extra = [];
    expect((await health()).rejected).toBeGreaterThan(before);
    const high = await sql<{ n: number }>`
      select count(*)::int as n from power.co2_forecasts where g_kwh > 2000
      union all select count(*)::int from power.co2_realized where g_kwh > 2000`.execute(db());
    expect(high.rows.map((r) => r.n)).toEqual([0, 0]);
  });

  it('leaves the fetching to the leader', async () => {
    leader = false;
    app.clock.set('2026-11-03T11:37:00Z');
    await scheduler.runNow();
    expect(fake.co2Requests()).toHaveLength(0);
    expect((await health()).detail).toBe('another process fetches the CO₂ values');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['date=2016-12-31', 'querystring.date'],
      ['date=2026-02-30', 'querystring.date'],
      ['area=SE3', 'querystring.area'],
      ['resolution=minute', 'querystring.resolution'],
      ['when=today', 'querystring'],
    ]) {
      const res = await app.call('GET', `/api/co2?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ detail: string }>().detail, query).toContain(field);
    }
  });
});
