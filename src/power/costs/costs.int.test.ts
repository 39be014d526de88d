import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { insertEnergy, lastMeteredDay } from '../metering/repository.js';
import { insertSolar } from '../solar/repository.js';
import { danishDayBounds, danishDaySteps } from '../../shared/danish-time.js';
import type { Costs } from './schemas.js';
import { chargesWithTaxGap, refreshCharges, storeDay } from '../../../test/support/costs.js';

const API_TOKEN = 'costs-test-token-0123456';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const POINT = '571313100000012345';
let fake: FakeEnergiDataService;
let app: TestApp;

const at = (iso: string) => new Date(iso);
const energy = (iso: string, kwh: string) => ({
  metering_point_id: POINT,
  start_at: at(iso),
  quantity_kwh: kwh,
  quality: 'A04',
});

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.charges = chargesWithTaxGap('2026-05-05', '2026-05-06');
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url, API_TOKEN },
    now: '2026-11-01T10:00:00Z',
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
  // DK1: 500 DKK/MWh all day but 17:00, whose quarters are 1000, 1100, 1200, 1300 (spot 1.15)
  const price = (h: number, q: number) => (h === 17 ? String(1000 + q * 100) : '500');
  await storeDay(app, '2026-01-15', price);
  await storeDay(app, '2026-10-25', price);
  await storeDay(app, '2026-05-05', price);
  const db = app.ctx.database.db;
  await insertEnergy(db, 'power.consumption', [
    energy('2026-01-15T02:00:00Z', '1.5'), // 03:00 Danish time
    energy('2026-01-15T16:00:00Z', '2.25'), // 17:00
    energy('2026-01-15T19:00:00Z', '0.333'), // 20:00
    energy('2026-10-25T00:00:00Z', '1'), // 02:00+02:00
    energy('2026-10-25T01:00:00Z', '1'), // 02:00+01:00
    energy('2026-05-05T08:00:00Z', '2'), // 10:00, no electricity tax period
    energy('2026-05-05T09:00:00Z', '1'),
  ]);
  await insertEnergy(db, 'power.production', [energy('2026-01-15T11:00:00Z', '3.1')]); // 12:00
  await insertSolar(db, [
    {
      start_at: at('2026-01-15T11:00:00Z'),
      energy_kwh: '4.000',
      power_w: '4000',
      voltage_v: '230.0',
      current_a: '17.39',
      frequency_hz: '50.00',
      temperature_c: '35.0',
      total_yield_kwh: '1234.5',
    },
  ]);
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const costs = async (query: string) => {
  const res = await app.call('GET', `/api/costs?${query}`, undefined, auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Costs>();
};

describe('GET /api/costs against hand-computed fixtures', () => {
  it('costs each hour at its own total, sells at spot, values solar self-consumption, to the øre', async () => {
    const body = await costs('from=2026-01-15&to=2026-01-16');
    expect(body).toMatchObject({ from: '2026-01-15', to: '2026-01-16', area: 'DK1' });
    // Radius winter 2025/26: lav 0.0976, høj 0.2929, spids 0.8788; Energinet 0.043 + 0.072 + 0.008; VAT 25 %
    // 03:00 (0.5 + 0.0976 + 0.123) × 1.25 = 0.90075 × 1.5 kWh   = 1.351125
    // 17:00 (1.15 + 0.8788 + 0.123) × 1.25 = 2.68975 × 2.25 kWh = 6.0519375
    // 20:00 (0.5 + 0.8788 + 0.123) × 1.25 = 1.87725 × 0.333 kWh = 0.62512425
    //                                               sum 8.02818675 → 8.03
    // sold 12:00: 3.1 kWh × 0.5 = 1.55; solar 4.0 − 3.1 = 0.9 kWh self-consumed
    // × (0.5 + 0.2929 + 0.123) × 1.25 = 1.144875 → 1.0303875 → 1.03
    // four metered hours of a 24-hour day: figures of what is there, and said to be incomplete
    expect(body.days[0]).toEqual({
      date: '2026-01-15',
      complete: false,
      consumption_kwh: 4.083,
      cost_dkk: 8.03,
      production_kwh: 3.1,
      sold_value_dkk: 1.55,
      hours: 4,
      hours_priced: 4,
      self_consumed_kwh: 0.9,
      self_consumption_value_dkk: 1.03,
    });
    // a day without readings cost nothing known, not 0
    expect(body.days[1]).toEqual({
      date: '2026-01-16',
      complete: false,
      consumption_kwh: null,
      cost_dkk: null,
      production_kwh: null,
      sold_value_dkk: null,
      hours: 0,
      hours_priced: 0,
      self_consumed_kwh: null,
      self_consumption_value_dkk: null,
    });
    expect(body.total).toEqual({
      complete: false,
      missing_days: ['2026-01-15', '2026-01-16'],
      consumption_kwh: 4.083,
      cost_dkk: 8.03,
      production_kwh: 3.1,
      sold_value_dkk: 1.55,
      hours: 4,
      hours_priced: 4,
      self_consumed_kwh: 0.9,
      self_consumption_value_dkk: 1.03,
    });
  });

  it('costs both 02:00 hours of the 25-hour day', async () => {
    // Radius winter 2026/27 lav 0.1062: (0.5 + 0.1062 + 0.123) × 1.25 = 0.9115 × 2 kWh = 1.823 → 1.82
    const [day] = (await costs('from=2026-10-25&to=2026-10-25')).days;
    expect(day).toMatchObject({ consumption_kwh: 2, cost_dkk: 1.82, hours: 2, hours_priced: 2 });
  });

  it('counts hours without a price and costs them at nothing known rather than a guess', async () => {
    const body = await costs('from=2026-05-04&to=2026-05-06');
    expect(body.days.map((d) => [d.date, d.hours, d.hours_priced, d.cost_dkk, d.consumption_kwh])).toEqual([
      ['2026-05-04', 0, 0, null, null],
      ['2026-05-05', 2, 0, null, 3],
      ['2026-05-06', 0, 0, null, null],
    ]);
    expect(body.total).toMatchObject({
      hours: 2,
      hours_priced: 0,
      complete: false,
      missing_days: ['2026-05-04', '2026-05-05', '2026-05-06'],
    });
  });

  it('fetches the prices of a metered day never fetched, as /api/elprice does, instead of costing it at 0', async () => {
    const db = app.ctx.database.db;
    await insertEnergy(db, 'power.consumption', [
      energy('2026-06-10T10:00:00Z', '1'),
      energy('2026-06-11T10:00:00Z', '1'),
    ]);
    const before = fake.priceRequests().length;
    const fetched = await costs('from=2026-06-10&to=2026-06-10');
    expect(fake.priceRequests().length).toBe(before + 1);
    expect(fetched.days[0]).toMatchObject({ hours: 1, hours_priced: 1 });
    expect(fetched.days[0]!.cost_dkk).toBeGreaterThan(0);
    // The provider down: the day is counted as not priced, and the answer is still 200.
    fake.server.failAlways({ kind: 'status', status: 500 });
    try {
      const down = await costs('from=2026-06-11&to=2026-06-11');
      expect(down.days[0]).toMatchObject({ hours: 1, hours_priced: 0, cost_dkk: null, complete: false });
    } finally {
      fake.server.heal();
    }
  });

  it('resolution=hour lists each metered hour with exact, unrounded amounts', async () => {
    const body = await costs('from=2026-01-15&to=2026-01-15&resolution=hour');
    const items = body.days[0]!.items!;
    expect(items.map((i) => i.time_dk)).toEqual([
      '2026-01-15T03:00:00+01:00',
      '2026-01-15T12:00:00+01:00',
      '2026-01-15T17:00:00+01:00',
      '2026-01-15T20:00:00+01:00',
    ]);
    expect(items[2]).toEqual({
      time_dk: '2026-01-15T17:00:00+01:00',
      resolution_minutes: 60,
      consumption_kwh: 2.25,
      production_kwh: null,
      solar_kwh: null,
      spot: 1.15,
      total: 2.68975,
      cost_dkk: 6.0519375,
      sold_value_dkk: null,
      self_consumed_kwh: null,
    });
    expect(items[1]).toMatchObject({
      production_kwh: 3.1,
      solar_kwh: 4,
      self_consumed_kwh: 0.9,
      sold_value_dkk: 1.55,
    });
  });

  it('answers format=csv: days, or hours with resolution=hour', async () => {
    const res = await app.call('GET', '/api/costs?from=2026-01-15&to=2026-01-16&format=csv', undefined, auth);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const rows: string[][] = parse(res.body, {});
    expect(rows[0]).toEqual([
      'date',
      'complete',
      'consumption_kwh',
      'cost_dkk',
      'production_kwh',
      'sold_value_dkk',
      'hours',
      'hours_priced',
      'self_consumed_kwh',
      'self_consumption_value_dkk',
    ]);
    expect(rows.slice(1)).toEqual([
      ['2026-01-15', 'false', '4.083', '8.03', '3.1', '1.55', '4', '4', '0.9', '1.03'],
      ['2026-01-16', 'false', '', '', '', '', '0', '0', '', ''],
    ]);
    const hours = await app.call(
      'GET',
      '/api/costs?from=2026-01-15&to=2026-01-15&resolution=hour&format=csv',
      undefined,
      auth,
    );
    const hourRows: string[][] = parse(hours.body, {});
    expect(hourRows).toHaveLength(5);
    expect(hourRows[3]).toEqual([
      '2026-01-15T17:00:00+01:00',
      '60',
      '2.25',
      '',
      '',
      '1.15',
      '2.68975',
      '6.0519375',
      '',
      '',
    ]);
  });

  it('is private, and refuses reversed or longer than 366-day ranges with a 400', async () => {
    expect((await app.call('GET', '/api/costs?from=2026-01-15&to=2026-01-15')).statusCode).toBe(401);
    expect((await costs('from=2026-01-01&to=2027-01-01')).days).toHaveLength(366);
    for (const q of [
      'from=2026-01-02&to=2026-01-01',
      'from=2026-01-01&to=2027-01-02',
      'from=2026-01-01',
      'from=2026-01-01&to=2026-01-02&resolution=week',
    ]) {
      const res = await app.call('GET', `/api/costs?${q}`, undefined, auth);
      expect(res.statusCode, q).toBe(400);
      expect(res.json<{ detail: string }>().detail).toBeTruthy();
    }
  });
});

describe('days whose metering has not arrived (it comes a day or more late)', () => {
  beforeAll(async () => {
    await storeDay(app, '2026-03-29', () => '500');
    const start = danishDayBounds('2026-03-29').start.getTime();
    // every hour of the 23-hour day, and one hour of the next
    await insertEnergy(app.ctx.database.db, 'power.consumption', [
      ...Array.from({ length: 23 }, (_, h) => energy(new Date(start + h * 3_600_000).toISOString(), '0.5')),
      energy('2026-03-30T06:00:00Z', '1'),
    ]);
  });

  it('calls a day complete only when every interval of it is metered and priced, and lists the others', async () => {
    const body = await costs('from=2026-03-29&to=2026-03-31');
    expect(body.days.map((d) => [d.date, d.complete, d.hours, d.consumption_kwh === null])).toEqual([
      ['2026-03-29', true, 23, false],
      ['2026-03-30', false, 1, false],
      ['2026-03-31', false, 0, true],
    ]);
    // (0.5 + 0.0976|0.2929|0.8788 + 0.123) × 1.25 over 23 × 0.5 kWh: a whole day has a cost
    expect(body.days[0]!.cost_dkk).toBeGreaterThan(0);
    expect(body.days[2]!.cost_dkk).toBeNull();
    expect(body.total).toMatchObject({ complete: false, missing_days: ['2026-03-30', '2026-03-31'] });
  });

  it('sums the range to null, never 0, where no day is metered or no interval priced', async () => {
    const none = await costs('from=2026-03-31&to=2026-04-02');
    expect(none.total).toMatchObject({
      hours: 0,
      consumption_kwh: null,
      cost_dkk: null,
      production_kwh: null,
      sold_value_dkk: null,
    });
    // metered, but the electricity tax is missing on 2026-05-05: nothing is priced yet
    const unpriced = await costs('from=2026-05-05&to=2026-05-05');
    expect(unpriced.total).toMatchObject({ hours: 2, hours_priced: 0, consumption_kwh: 3, cost_dkk: null });
  });

  it('finds the last day metered whole: a 23-hour day, and a 25-hour day of quarter hours only with all 100', async () => {
    const db = app.ctx.database.db;
    const lastIn = (from: string, to: string) =>
      lastMeteredDay(db, danishDayBounds(from).start, danishDayBounds(to).start);
    expect(await lastIn('2026-03-01', '2026-04-01')).toBe('2026-03-29');
    const quarters = danishDaySteps('2025-10-26', 15).map((t) => ({
      ...energy(t.toISOString(), '0.1'),
      resolution_minutes: 15,
    }));
    expect(quarters).toHaveLength(100);
    await insertEnergy(db, 'power.consumption', quarters.slice(0, 99));
    expect(await lastIn('2025-10-20', '2025-11-01')).toBeNull();
    await insertEnergy(db, 'power.consumption', quarters.slice(99));
    expect(await lastIn('2025-10-20', '2025-11-01')).toBe('2025-10-26');
  });
});
