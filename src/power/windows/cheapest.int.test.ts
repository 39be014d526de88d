import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { chargesWithTaxGap, refreshCharges, storeDay } from '../../../test/support/costs.js';
import { danishDayBounds, danishDaySteps } from '../../shared/danish-time.js';
import type { Cheapest } from '../costs/schemas.js';
import { deriveElprices, insertPrices } from '../prices/repository.js';
import type { CheapestWindow } from './schemas.js';

let fake: FakeEnergiDataService;
let app: TestApp;

/** DK1 spot by wall-clock hour, DKK/MWh: cheap at 14-16, cheaper still at 17-19, when the peak tariff applies. */
const SPOT = [
  900, 900, 900, 900, 900, 900, 800, 800, 800, 800, 800, 800, 800, 800, 200, 200, 200, 0, 0, 0, 800, 800, 800,
  800,
];
/** Radius' winter tariffs (00-06 low, 17-21 peak, else high) and Energinet's three, DKK/kWh excl. VAT. */
const LOW = 0.0976;
const HIGH = 0.2929;
const ENERGINET = 0.043 + 0.072 + 0.008;

/** A Danish day's prices (DKK/MWh) of both areas by the period's start, quarter hours or (`minutes` 60) hours. */
async function storePeriods(date: string, minutes: 15 | 60, price: (t: Date) => string) {
  const rows = danishDaySteps(date, minutes).flatMap((t) =>
    (['DK1', 'DK2'] as const).map((area) => ({
      timeUtc: t,
      area,
      minutes,
      priceDkk: price(t),
      priceEur: null,
    })),
  );
  await insertPrices(app.ctx.database.db, rows);
  const { start, end } = danishDayBounds(date);
  await deriveElprices(app.ctx.database.db, start, end);
}

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.charges = chargesWithTaxGap('2026-05-05', '2026-05-06');
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url },
    now: '2026-01-15T09:00:00Z',
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
  // 2026-01-15: SPOT, but the last half hour at −300; 2026-01-16: 500, the first half hour at −300
  // and 04:30-05:15 at −100
  await storeDay(app, '2026-01-15', (h, q) => (h === 23 && q >= 2 ? '-300' : String(SPOT[h])));
  await storeDay(app, '2026-01-16', (h, q) =>
    h === 0 && q < 2 ? '-300' : (h === 4 && q >= 2) || (h === 5 && q === 0) ? '-100' : '500',
  );
  await storeDay(app, '2026-05-05', (h) => String(SPOT[h]));
  await storeDay(app, '2026-02-10', () => '900');
  // the autumn change: the second 02:00 hour (01:00Z) is the cheap one
  const repeated = [Date.parse('2026-10-25T01:00:00Z'), Date.parse('2026-10-25T02:00:00Z')];
  await storePeriods('2026-10-25', 15, (t) =>
    t.getTime() >= repeated[0]! && t.getTime() < repeated[1]! ? '-200' : '800',
  );
  // before 2025-10-01 prices were hourly: 03:00 at 100 and 04:00 at 50
  const hourly = (t: Date) => ({ '02': '100', '03': '50' })[t.toISOString().slice(11, 13)] ?? '600';
  await storePeriods('2025-03-15', 60, hourly);
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const get = async <T = CheapestWindow>(query: string) => {
  const res = await app.call('GET', `/api/cheapest?${query}`);
  expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
  return res.json<T>();
};
const total = (spot: number, tariff: number) => (spot + tariff + ENERGINET) * 1.25;

describe('GET /api/cheapest?minutes=', () => {
  it('finds the same window as the whole-hour form where the window is whole hours', async () => {
    const hours = await get<Cheapest>('hours=3&date=2026-01-15&area=DK1');
    const minutes = await get('minutes=180&after=2026-01-15T00:00&before=2026-01-16T00:00&area=DK1');
    expect(minutes).toEqual({ ...hours, hours: undefined, minutes: 180 });
    expect(minutes).toMatchObject({
      start_dk: '2026-01-15T14:00:00+01:00',
      average_dkk_kwh: 0.769875,
      basis: 'total',
    });
  });

  it('ranks quarter hours on their own prices, and gives the earliest of equal windows', async () => {
    const day = 'after=2026-01-16T01:00&before=2026-01-17T00:00&area=DK1';
    expect(await get(`minutes=45&${day}`)).toEqual({
      area: 'DK1',
      minutes: 45,
      start_dk: '2026-01-16T04:30:00+01:00',
      end_dk: '2026-01-16T05:15:00+01:00',
      average_dkk_kwh: total(-0.1, LOW),
      basis: 'total',
    });
    // 04:15-05:15 and 04:30-05:30 both hold three quarters at −100 and one at 500: the earlier wins
    expect(await get(`minutes=60&${day}`)).toMatchObject({
      start_dk: '2026-01-16T04:15:00+01:00',
      end_dk: '2026-01-16T05:15:00+01:00',
      average_dkk_kwh: total(0.05, LOW),
    });
  });

  it('searches from the next quarter hour after now to the last published one, across midnight', async () => {
    app.clock.set('2026-01-15T21:20:00Z'); // 22:20 in Denmark; tomorrow is stored
    const w = await get('minutes=60&area=DK1');
    expect(w).toMatchObject({
      start_dk: '2026-01-15T23:30:00+01:00',
      end_dk: '2026-01-16T00:30:00+01:00',
      basis: 'total',
    });
    // two quarters of the high tariff before midnight and two of the low one after
    expect(w.average_dkk_kwh).toBeCloseTo(total(-0.3, (2 * HIGH + 2 * LOW) / 4), 12);
    // now 23:31: the window may not start before 23:45, so the 23:30 quarter is out of reach
    app.clock.set('2026-01-15T22:31:00Z');
    expect(await get('minutes=60&area=DK1')).toMatchObject({
      start_dk: '2026-01-15T23:45:00+01:00',
      end_dk: '2026-01-16T00:45:00+01:00',
    });
    app.clock.set('2026-01-15T09:00:00Z');
  });

  it('searches today alone while tomorrow is unpublished, and tomorrow once it is', async () => {
    fake.publication.set('2026-02-11', 'none');
    app.clock.set('2026-02-10T12:01:00Z');
    const today = await get('minutes=30&area=DK1');
    expect(today.start_dk).toBe('2026-02-10T13:15:00+01:00');
    fake.publication.set('2026-02-11', 'full');
    app.clock.set('2026-02-10T12:03:00Z'); // a minute later tomorrow is asked for again
    const both = await get('minutes=30&area=DK1');
    expect(both.start_dk.slice(0, 10)).toBe('2026-02-11');
    app.clock.set('2026-01-15T09:00:00Z');
  });

  it('ranks on the spot price when a charge is missing, and says so in basis', async () => {
    expect(await get('minutes=180&after=2026-05-05T00:00&before=2026-05-06T00:00')).toMatchObject({
      start_dk: '2026-05-05T17:00:00+02:00',
      end_dk: '2026-05-05T20:00:00+02:00',
      average_dkk_kwh: 0,
      basis: 'spot',
    });
  });

  it('makes each hour of an hourly-priced day four quarters at its price', async () => {
    const day = 'after=2025-03-15T00:00&before=2025-03-16T00:00&area=DK1';
    expect(await get(`minutes=30&${day}`)).toMatchObject({
      start_dk: '2025-03-15T04:00:00+01:00',
      end_dk: '2025-03-15T04:30:00+01:00',
      average_dkk_kwh: 0.05,
    });
    // two quarters of 03:00's 100 and four of 04:00's 50
    expect(await get(`minutes=90&${day}`)).toMatchObject({
      start_dk: '2025-03-15T03:30:00+01:00',
      end_dk: '2025-03-15T05:00:00+01:00',
    });
    expect((await get(`minutes=90&${day}`)).average_dkk_kwh).toBeCloseTo(0.4 / 6, 15);
  });

  it('reads Danish times on the days of the clock changes: the earlier of a repeated time', async () => {
    const w = await get('minutes=60&after=2026-10-25T00:00&before=2026-10-26T00:00&area=DK2');
    expect(w).toMatchObject({ start_dk: '2026-10-25T02:00:00+01:00', end_dk: '2026-10-25T03:00:00+01:00' });
    // 02:30 without an offset is the first 02:30 (+02:00): the whole repeated hour still follows it
    expect(await get('minutes=60&after=2026-10-25T02:30&before=2026-10-25T03:00&area=DK2')).toMatchObject({
      start_dk: '2026-10-25T02:00:00+01:00',
    });
    const late = await app.call(
      'GET',
      '/api/cheapest?minutes=60&after=2026-10-25T02:30%2B01:00&before=2026-10-25T03:00',
    );
    expect(late.statusCode).toBe(400);
    expect(late.json<{ detail: string }>().detail).toMatch(
      /^querystring\.minutes: 60 minutes do not fit between after and before \(30 minutes/,
    );
  });

  it('says plainly that no window fits: 404', async () => {
    const res = await app.call(
      'GET',
      '/api/cheapest?minutes=720&after=2026-02-13T00:00&before=2026-02-14T00:00',
    );
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json<{ detail: string }>().detail).toBe(
      'no 720 minutes of consecutive published quarter hours for DK1 from 2026-02-13T00:00:00+01:00 to 2026-02-14T00:00:00+01:00 (0 quarter hours stored)',
    );
    const after = await app.call('GET', '/api/cheapest?minutes=60&after=2026-01-20T00:00');
    expect(after.statusCode).toBe(404);
    expect(after.json<{ detail: string }>().detail).toMatch(
      /after 2026-01-20T00:00:00\+01:00: nothing is published that late/,
    );
  });

  it('refuses hostile input with a 400 naming the parameter, and keeps the whole-hour form as it was', async () => {
    const cases: [string, string][] = [
      ['minutes=0', 'querystring.minutes'],
      ['minutes=721', 'querystring.minutes'],
      ['minutes=735', 'querystring.minutes'],
      ['minutes=20', 'querystring.minutes'],
      ['minutes=15.0', 'querystring.minutes'],
      ['minutes=Infinity', 'querystring.minutes'],
      ['minutes=NaN', 'querystring.minutes'],
      ['minutes=1e2', 'querystring.minutes'],
      ['minutes=-15', 'querystring.minutes'],
      ['minutes=', 'querystring.minutes'],
      ['minutes=60&after=tomorrow', 'querystring.after'],
      ['minutes=60&after=2026-01-15T20:00&before=2026-01-15T19:00', 'querystring.before'],
      ['minutes=60&after=2026-01-15T20:00&before=2026-01-15T20:00', 'querystring.before'],
      ['minutes=60&after=0000-01-01T00:00', 'querystring.after'],
      ['minutes=60&before=9999-12-31T23:59', 'querystring.before'],
      ['minutes=60&after=2026-01-15T20:00%2B25:00', 'querystring.after'],
      ['minutes=60&after=2026-01-15T20:00-14:01', 'querystring.after'],
      ['minutes=60&after=2026-03-29T02:15', 'querystring.after'],
      ['minutes=60&after=2026-01-01T00:00&before=2026-01-09T00:00', 'querystring.before'],
      ['minutes=60&after=2026-01-01T00:00', 'querystring.after'],
      ['minutes=60&hours=1', 'querystring.hours'],
      ['minutes=60&date=2026-01-15', 'querystring.date'],
      ['hours=3&after=2026-01-15T00:00', 'querystring.after'],
      ['', 'querystring.minutes'],
      ['minutes=60&area=SE3', 'querystring.area'],
      [`minutes=60&after=${'2'.repeat(41)}`, 'querystring.after'],
    ];
    for (const [query, field] of cases) {
      const res = await app.call('GET', `/api/cheapest?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type'], query).toContain('application/problem+json');
      expect(res.json<{ detail: string }>().detail, query).toMatch(
        new RegExp(`^${field.replace('.', '\\.')}`),
      );
    }
    for (const q of ['hours=0', 'hours=13', 'hours=2.5', 'hours=3&area=SE3', 'hours=3&date=2026-13-01'])
      expect((await app.call('GET', `/api/cheapest?${q}`)).statusCode, q).toBe(400);
  });
});
