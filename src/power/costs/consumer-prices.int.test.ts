import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import type { ConsumerPrices } from './schemas.js';
import { chargesWithTaxGap, refreshCharges, storeDay } from '../../../test/support/costs.js';

let fake: FakeEnergiDataService;
let app: TestApp;

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.charges = chargesWithTaxGap('2026-05-05', '2026-05-06');
  app = await startTestApp({
    env: {
      GRID_COMPANY_GLN: RADIUS_GLN,
      PRICE_FEED_URL: fake.url,
      SUPPLIER_MARKUP_DKK_KWH: '0.05',
      PRICE_AREA: 'DK2',
    },
    now: '2026-05-04T10:00:00Z',
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const get = async (query: string) => {
  const res = await app.call('GET', `/api/consumer-prices?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ConsumerPrices>();
};

describe('GET /api/consumer-prices', () => {
  it('prices an hour to the last decimal, computed by hand', async () => {
    // 2026-01-15, Radius winter 2025/26 (seeded): lavlast 00-06 9.76 øre, spidslast 17-21 87.88 øre.
    // 17:00 DK1 quarters 1000, 1100, 1200, 1300 DKK/MWh: spot 1.15 DKK/kWh.
    await storeDay(app, '2026-01-15', (h, q, area) =>
      h === 17 && area === 'DK1' ? String(1000 + q * 100) : area === 'DK1' ? '500' : '612.345678',
    );
    const day = await get('date=2026-01-15&area=DK1');
    expect(day).toMatchObject({ date: '2026-01-15', area: 'DK1', complete: true });
    expect(day.items).toHaveLength(24);
    // 1.15 + 0.8788 + 0.043 + 0.072 + 0.008 + 0.05 = 2.2018; VAT 0.55045; total 2.75225
    expect(day.items[17]).toEqual({
      time_dk: '2026-01-15T17:00:00+01:00',
      spot: 1.15,
      grid_tariff: 0.8788,
      transmission_tariff: 0.043,
      system_tariff: 0.072,
      electricity_tax: 0.008,
      other_tariffs: 0,
      supplier_markup: 0.05,
      vat: 0.55045,
      total: 2.75225,
    });
    // 03:00: 0.5 + 0.0976 + 0.043 + 0.072 + 0.008 + 0.05 = 0.7706; VAT 0.19265; total 0.96325
    expect(day.items[3]).toMatchObject({ spot: 0.5, grid_tariff: 0.0976, vat: 0.19265, total: 0.96325 });
    // DK2 (the configured area, the default): spot 0.612345678 at 06:00 (høj 29.29 øre):
    // 0.612345678 + 0.2929 + 0.043 + 0.072 + 0.008 + 0.05 = 1.078245678; VAT 0.2695614195
    const dk2 = await get('date=2026-01-15');
    expect(dk2.area).toBe('DK2');
    expect(await get('date=2026-01-15&area=dk2')).toEqual(dk2);
    expect(dk2.items[6]).toMatchObject({ spot: 0.612345678, grid_tariff: 0.2929, vat: 0.2695614195 });
    expect(dk2.items[6]!.total).toBe(1.3478070975);
  });

  it.each([
    ['2026-03-29', 23],
    ['2026-10-25', 25],
  ])('%s has %i hours in both areas, fetched as /api/elprice fetches them', async (date, hours) => {
    app.clock.set(`${date}T10:00:00Z`);
    const before = fake.priceRequests().length;
    for (const area of ['DK1', 'DK2']) {
      const day = await get(`date=${date}&area=${area}`);
      expect(day.complete).toBe(true);
      expect(day.items).toHaveLength(hours);
      expect(new Set(day.items.map((i) => Date.parse(i.time_dk))).size).toBe(hours);
      expect(day.items.every((i) => i.total !== null && i.transmission_tariff === 0.043)).toBe(true);
    }
    expect(fake.priceRequests().length).toBe(before + 1);
  });

  it('leaves the totals of a day without an electricity tax period null, never guessed', async () => {
    app.clock.set('2026-05-05T10:00:00Z');
    const day = await get('date=2026-05-05&area=DK1');
    expect(day.complete).toBe(false);
    expect(day.items).toHaveLength(24);
    for (const i of day.items) {
      expect(i.electricity_tax).toBeNull();
      expect(i.vat).toBeNull();
      expect(i.total).toBeNull();
      expect(i.spot).not.toBeNull();
      expect(i.system_tariff).toBe(0.072);
    }
    const next = await get('date=2026-05-06&area=DK1');
    expect(next.complete).toBe(true);
    expect(next.items.every((i) => i.electricity_tax === 0.008)).toBe(true);
  });

  it('answers format=csv with a header of the JSON field names, one row per hour', async () => {
    const res = await app.call('GET', '/api/consumer-prices?date=2026-01-15&area=DK1&format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const rows: string[][] = parse(res.body, {});
    expect(rows[0]).toEqual([
      'time_dk',
      'spot',
      'grid_tariff',
      'transmission_tariff',
      'system_tariff',
      'electricity_tax',
      'other_tariffs',
      'supplier_markup',
      'vat',
      'total',
    ]);
    expect(rows).toHaveLength(25);
    expect(rows[18]).toEqual([
      '2026-01-15T17:00:00+01:00',
      '1.15',
      '0.8788',
      '0.043',
      '0.072',
      '0.008',
      '0',
      '0.05',
      '0.55045',
      '2.75225',
    ]);
  });

  it("resolution=quarter gives 92, 96 or 100 quarters, each at its own spot with its hour's tariffs", async () => {
    const price = (h: number, q: number) => String(400 + q * 40 + h);
    for (const [date, n] of [
      ['2027-03-28', 92],
      ['2025-10-26', 100],
      ['2026-03-30', 96],
    ] as const) {
      await storeDay(app, date, price);
      const day = await get(`date=${date}&area=DK1&resolution=quarter`);
      // Energinet's charges of the fixtures begin in 2026: a day before has no totals.
      expect(day).toMatchObject({ resolution: 'quarter', complete: date > '2026' });
      expect(day.items, date).toHaveLength(n);
    }
    const autumn = await get('date=2025-10-26&area=DK1&resolution=quarter');
    // The second 02:00 hour (+01:00): quarters 402 to 522 DKK/MWh; Radius winter 2025/26 lavlast 9.76 øre.
    const second = autumn.items.filter(
      (i) => i.time_dk.startsWith('2025-10-26T02:') && i.time_dk.endsWith('+01:00'),
    );
    expect(second.map((i) => [i.time_dk.slice(11, 16), i.spot, i.grid_tariff])).toEqual([
      ['02:00', 0.402, 0.0976],
      ['02:15', 0.442, 0.0976],
      ['02:30', 0.482, 0.0976],
      ['02:45', 0.522, 0.0976],
    ]);
    const hourly = await get('date=2025-10-26&area=DK1');
    expect(hourly).toMatchObject({ resolution: 'hour' });
    expect(hourly.items).toHaveLength(25);
    expect(hourly.items[3]!.spot).toBe(0.462);
    const bad = await app.call('GET', '/api/consumer-prices?date=2025-10-26&resolution=minute');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('resolution');
  });

  it('refuses a bad area or date with a 400 naming it', async () => {
    for (const q of ['area=DK3', 'date=2026-02-30', 'date=2026-1-1', 'format=xml']) {
      const res = await app.call('GET', `/api/consumer-prices?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
  });
});
