import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, quantityOf } from '../../../test/fakes/eloverblik.js';
import { powerOnly } from '../../../test/support/services.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { danishDayBounds } from '../../shared/danish-time.js';
import { createMeteringFeature } from './index.js';

const API_TOKEN = 'metering-test-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const D06 = HOUSEHOLD[0]!.children.find((c) => c.type === 'D06')!.id;
const D07 = HOUSEHOLD[0]!.children.find((c) => c.type === 'D07')!.id;

let fake: FakeEloverblik;
let t: TestApp;
const waits: number[] = [];

const sync = (date?: string) =>
  t.call('POST', `/metering/sync${date === undefined ? '' : `?date=${date}`}`, undefined, auth);

async function count(table: string, date: string): Promise<number> {
  const { start, end } = danishDayBounds(date);
  const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
    where start_at >= ${start} and start_at < ${end}`.execute(t.ctx.database.db);
  return r.rows[0]!.n;
}

beforeAll(async () => {
  fake = await FakeEloverblik.start();
  t = await startTestApp({
    now: '2026-07-03T10:00:00Z',
    env: { METERING_FEED_URL: fake.url, METERING_TOKEN: fake.refreshToken, API_TOKEN },
    services: powerOnly((ctx) => [
      createMeteringFeature(ctx, {
        sleep: async (ms) => {
          waits.push(ms);
          t.clock.skip(ms);
        },
      }),
    ]),
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  // A pause the provider asked for in an earlier test (429, 503) is over.
  t.clock.skip(3_600_000);
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.chargesError = null;
});

describe('POST /metering/sync', () => {
  it('answers "no data to fetch" for yesterday, today (the default) and later, fetching nothing', async () => {
    for (const [date, expected] of [
      ['2026-07-02', '2026-07-02'],
      [undefined, '2026-07-03'],
      ['2027-01-01', '2027-01-01'],
    ] as const) {
      const res = await sync(date);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        date: expected,
        status: 'no data to fetch',
        production: 0,
        consumption: 0,
      });
    }
    expect(fake.server.requests).toHaveLength(0);
  });

  it('takes "today" from the Danish calendar', async () => {
    t.clock.set('2026-07-02T22:30:00Z'); // 00:30 on 3 July in Denmark
    expect((await sync()).json().date).toBe('2026-07-03');
    t.clock.set('2026-07-03T10:00:00Z');
  });

  it('answers 400 without a call for a day before what Eloverblik keeps (5 years and the current one)', async () => {
    const res = await sync('2020-12-31');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^querystring\.date: 2020-12-31 is before 2021-01-01/);
    expect(fake.server.requests).toHaveLength(0);
    expect((await sync('2021-01-01')).statusCode).toBe(200);
  });

  it('answers 400 naming the date when it is malformed, and needs the bearer token', async () => {
    for (const bad of ['2026-6-1', '2026-02-30', 'yesterday']) {
      const res = await sync(bad);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toMatch(/^querystring\.date: /);
    }
    expect((await t.call('POST', '/metering/sync?date=2026-06-01')).statusCode).toBe(401);
    expect(fake.server.requests).toHaveLength(0);
  });

  it('syncs a past day: points, readings, charges, production (D06) and consumption (D07)', async () => {
    const res = await sync('2026-06-10');
    expect(res.json()).toEqual({ date: '2026-06-10', status: 'synced', production: 24, consumption: 24 });
    const series = fake.server.requests.find((r) => r.path.includes('/gettimeseries/'))!;
    expect(series.path).toBe('/customerapi/api/meterdata/gettimeseries/2026-06-10/2026-06-11/Hour');
    const db = t.ctx.database.db;
    const points = await db
      .selectFrom('power.metering_points')
      .selectAll()
      .orderBy('metering_point_id')
      .execute();
    expect(points.map((p) => [p.type_of_mp, p.parent_id])).toEqual([
      ['E17', null],
      ['D06', HOUSEHOLD[0]!.id],
      ['D07', HOUSEHOLD[0]!.id],
      ['D14', HOUSEHOLD[0]!.id],
    ]);
    expect(await count('power.meter_readings', '2026-06-10')).toBe(4 * 24);
    const charges = await db.selectFrom('power.charges').select(['kind', 'name']).orderBy('name').execute();
    expect(charges).toEqual([
      { kind: 'subscription', name: 'Netabonnement' },
      { kind: 'tariff', name: 'Nettarif C time' },
      { kind: 'tariff', name: 'Systemtarif' },
    ]);
    const prices = await db.selectFrom('power.charge_prices').select(['price_dkk']).execute();
    expect(prices).toHaveLength(24 + 1 + 1);
    expect(prices.map((p) => p.price_dkk)).toContain('0.788500');

    const consumption = (await t.call('GET', '/api/consumption?date=2026-06-10', undefined, auth)).json();
    expect(consumption).toHaveLength(24);
    expect(consumption[0]).toEqual({
      metering_point_id: D07,
      time_dk: '2026-06-10T00:00:00+02:00',
      resolution_minutes: 60,
      quantity_kwh: Number(quantityOf(D07, 1)),
      quality: 'A03',
    });
    const csv = await t.call('GET', '/api/consumption?date=2026-06-10&format=csv', undefined, auth);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toBe('metering_point_id,time_dk,resolution_minutes,quantity_kwh,quality');
    expect(lines[1]).toBe(`${D07},2026-06-10T00:00:00+02:00,60,${Number(quantityOf(D07, 1))},A03`);
    expect(lines).toHaveLength(24 + 2); // header, 24 rows, and the empty rest after the last CRLF
    const prodCsv = await t.call('GET', '/api/production?date=2026-06-10&format=csv', undefined, auth);
    expect(prodCsv.body.split('\r\n')[0]).toBe(
      'metering_point_id,time_dk,resolution_minutes,quantity_kwh,quality',
    );
    const production = (await t.call('GET', '/api/production?date=2026-06-10', undefined, auth)).json();
    expect(production.map((r: { metering_point_id: string }) => r.metering_point_id)).toEqual(
      Array(24).fill(D06),
    );
    expect(production[23].time_dk).toBe('2026-06-10T23:00:00+02:00');
  });

  it('answers "already synced" for a stored day without fetching, and a repeat inserts nothing', async () => {
    const before = await count('power.meter_readings', '2026-06-10');
    const res = await sync('2026-06-10');
    expect(res.json()).toEqual({
      date: '2026-06-10',
      status: 'already synced',
      production: 0,
      consumption: 0,
    });
    expect(fake.server.requests).toHaveLength(0);
    expect(await count('power.meter_readings', '2026-06-10')).toBe(before);
  });

  it('keeps existing rows: a sync after consumption was removed inserts only what is missing', async () => {
    const { start, end } = danishDayBounds('2026-06-10');
    await t.ctx.database.db
      .deleteFrom('power.consumption')
      .where('start_at', '>=', start)
      .where('start_at', '<', end)
      .execute();
    const res = await sync('2026-06-10');
    expect(res.json()).toEqual({ date: '2026-06-10', status: 'synced', production: 0, consumption: 24 });
    expect(await count('power.meter_readings', '2026-06-10')).toBe(4 * 24);
    expect(await count('power.production', '2026-06-10')).toBe(24);
    const charges = await t.ctx.database.db.selectFrom('power.charges').select('charge_id').execute();
    expect(charges).toHaveLength(3);
  });

  it.each([
    ['2026-03-29', 23, '2026-03-29T03:00:00+02:00'],
    ['2025-10-26', 25, '2025-10-26T02:00:00+01:00'],
  ])('stores the change day %s as %i hours with Danish offsets', async (date, hours, fourth) => {
    expect((await sync(date)).json()).toEqual({
      date,
      status: 'synced',
      production: hours,
      consumption: hours,
    });
    const rows = (await t.call('GET', `/api/consumption?date=${date}`, undefined, auth)).json();
    expect(rows).toHaveLength(hours);
    expect(rows[0].time_dk).toBe(`${date}T00:00:00+0${date.endsWith('29') ? 1 : 2}:00`);
    expect(rows[date.endsWith('29') ? 2 : 3].time_dk).toBe(fourth);
    expect(new Set(rows.map((r: { time_dk: string }) => r.time_dk)).size).toBe(hours);
  });

  it('fetches and stores a day once when three syncs of it run at once: the others are answered from the first', async () => {
    const series = () => fake.server.countOf('POST', /\/gettimeseries\/2026-06-11\//i);
    const results = await Promise.all([sync('2026-06-11'), sync('2026-06-11'), sync('2026-06-11')]);
    const bodies = results.map((r) => r.json());
    for (const b of bodies)
      expect(b).toEqual({ date: '2026-06-11', status: 'synced', production: 24, consumption: 24 });
    expect(series()).toBe(1);
    expect(await count('power.consumption', '2026-06-11')).toBe(24);
    expect(await count('power.production', '2026-06-11')).toBe(24);
    expect(await count('power.meter_readings', '2026-06-11')).toBe(4 * 24);
  });

  it('waits out a 429 as the provider asks and then syncs', async () => {
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 60 });
    waits.length = 0;
    const res = await sync('2026-06-09');
    expect(res.json()).toEqual({ date: '2026-06-09', status: 'synced', production: 24, consumption: 24 });
    expect(waits).toEqual([60_000]);
  });

  it('answers 503 naming eloverblik when the provider is down, writing nothing', async () => {
    fake.server.failAlways({ kind: 'status', status: 503, json: 'DataHub unavailable' });
    const res = await sync('2026-06-12');
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/eloverblik provider is unavailable/);
    expect(await count('power.meter_readings', '2026-06-12')).toBe(0);
  });

  it('answers 502 with the error code when a late call fails, leaving nothing half-written', async () => {
    fake.chargesError = { code: 20011, text: 'UnknownError' };
    const res = await sync('2026-06-12');
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toContain('error 20011 UnknownError');
    expect(fake.seriesCalls).toBe(1);
    expect(await count('power.meter_readings', '2026-06-12')).toBe(0);
    expect(await count('power.consumption', '2026-06-12')).toBe(0);
  });

  it('says clearly when no refresh token is configured', async () => {
    const bare = await startTestApp({
      db: t.db,
      now: '2026-07-03T10:00:00Z',
      env: { METERING_FEED_URL: fake.url },
      services: powerOnly((ctx) => [createMeteringFeature(ctx)]),
    });
    try {
      const res = await bare.call('POST', '/metering/sync?date=2026-06-13');
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toContain('no refresh token: set METERING_TOKEN or write the token to');
      expect(fake.server.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});

describe('GET /api/production and /api/consumption', () => {
  it('are described in the OpenAPI document with the sync', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/metering/sync', '/api/production', '/api/consumption']),
    );
    expect(Object.keys(doc.paths['/metering/sync'].post.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '502', '503']),
    );
  });

  it('answer an empty list for a day without rows and 400 for a bad date', async () => {
    expect((await t.call('GET', '/api/production?date=2025-01-01')).statusCode).toBe(401);
    expect((await t.call('GET', '/api/production?date=2025-01-01', undefined, auth)).json()).toEqual([]);
    const bad = await t.call('GET', '/api/consumption?date=01-01-2025', undefined, auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^querystring\.date/);
  });
});
