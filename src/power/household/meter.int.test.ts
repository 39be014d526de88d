import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, meterSubscription, meterTariff } from '../../../test/fakes/eloverblik.js';
import {
  ENERGINET_GLN,
  FakeEnergiDataService,
  energinetChargeRecords,
  tariffRecord,
  touHours,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { storeDay } from '../../../test/support/costs.js';
import { householdServices } from '../../../test/support/household.js';
import { insertEnergy } from '../metering/repository.js';
import type { HouseholdService } from './service.js';
import type { Charges } from './schemas.js';

/** A grid company no public list names: its code is found only by the name the meter lists. */
const GRID_X = '5790000000005';
const DINEL = '5790000610099';
const API_TOKEN = 'household-test-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const E17 = HOUSEHOLD[0]!.id;
const D07 = HOUSEHOLD[0]!.children.find((c) => c.type === 'D07')!.id;

let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
let app: TestApp;
let household: HouseholdService;

const flat = (p: number) => [p, ...Array<null>(23).fill(null)];
const xRecords = () => [
  tariffRecord({
    gln: GRID_X,
    owner: 'Net X A/S',
    code: 'XC-TIME-7',
    validFrom: '2026-04-01T00:00:00',
    validTo: null,
    hourly: touHours(0.12, 0.2, 0.5),
  }),
  tariffRecord({
    gln: GRID_X,
    owner: 'Net X A/S',
    code: 'XC-TIME-7',
    validFrom: '2026-01-01T00:00:00',
    validTo: '2026-04-01T00:00:00',
    hourly: touHours(0.1, 0.3, 0.9),
  }),
  // The B-customer tariff of the same owner: another note, never the household's.
  tariffRecord({
    gln: GRID_X,
    owner: 'Net X A/S',
    code: 'XB-1',
    note: 'Nettarif B høj',
    validFrom: '2026-01-01T00:00:00',
    validTo: null,
    hourly: flat(0.05),
  }),
  tariffRecord({
    gln: GRID_X,
    owner: 'Net X A/S',
    code: 'XABO',
    chargeType: 'D01',
    note: 'Netabo C forbrug',
    resolution: 'P1M',
    validFrom: '2026-01-01T00:00:00',
    validTo: null,
    hourly: flat(45.5),
  }),
];

const energinet = (name: string, price: number, validFrom = '2025-12-31T23:00:00.000Z') =>
  meterTariff({ name, owner: ENERGINET_GLN, validFrom, prices: [price] });

const listOf = (gridGln: string, validFrom: string) => ({
  subscriptions: [meterSubscription({ name: 'Netabo C forbrug', owner: gridGln, validFrom, price: 45.5 })],
  fees: [],
  tariffs: [
    meterTariff({ name: 'Nettarif C time', owner: gridGln, validFrom, prices: touHours(0.12, 0.2, 0.5) }),
    energinet('Transmissions nettarif', 0.043),
    energinet('Systemtarif', 0.072),
    energinet('Elafgift', 0.008),
    // Listed by the meter, absent from DatahubPricelist: its own price from its validFromDate.
    energinet('Balancetarif for forbrug', 0.00229, '2014-12-31T23:00:00.000Z'),
  ],
});

const charges = async (date: string) =>
  (await app.call('GET', `/api/charges?date=${date}`, undefined, auth)).json<Charges>();

beforeAll(async () => {
  eds = await FakeEnergiDataService.start();
  meter = await FakeEloverblik.start();
  eds.tariffs = [...xRecords()];
  eds.charges = energinetChargeRecords();
  meter.chargeLists.set(E17, listOf(GRID_X, '2025-12-31T23:00:00.000Z'));
  app = await startTestApp({
    now: '2026-11-03T10:00:00Z',
    env: {
      PRICE_FEED_URL: eds.url,
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
      API_TOKEN,
      SUPPLIER_MARKUP_DKK_KWH: '0.05',
      SUPPLIER_SUBSCRIPTION_DKK_MONTH: '29',
    },
    services: householdServices((h) => (household = h)),
  });
  expect(await household.refresh()).toMatchObject({ source: 'meter' });
  // DK1 quarters 400, 440, 480, 520 DKK/MWh in every hour: an hour's spot is 460.
  const price = (_h: number, q: number) => String(400 + q * 40);
  for (const day of ['2026-03-29', '2026-03-31', '2026-04-01', '2026-10-25']) await storeDay(app, day, price);
});
afterAll(async () => {
  await app.close();
  await eds.close();
  await meter.close();
});

describe('charges from the meter', () => {
  it('takes every charge the meter lists with its history from DatahubPricelist, by owner, type and note', async () => {
    const body = await charges('2026-03-15');
    expect(body.configured).toBe(true);
    const byName = new Map(body.charges.map((c) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual([
      'Balancetarif for forbrug',
      'Elafgift',
      'Netabo C forbrug',
      'Nettarif C time',
      'Systemtarif',
      'Transmissions nettarif',
    ]);
    expect(byName.get('Nettarif C time')).toMatchObject({
      kind: 'tariff',
      role: 'grid',
      applies_to: 'consumption',
      owner_gln: GRID_X,
      owner: 'Net X A/S',
      code: 'XC-TIME-7',
      source: 'meter',
      valid_from: '2026-01-01T00:00:00',
      valid_to: '2026-04-01T00:00:00',
    });
    expect(byName.get('Nettarif C time')!.prices[17]).toBe(0.9);
    expect(byName.get('Transmissions nettarif')).toMatchObject({ role: 'transmission', code: '40000' });
    expect(byName.get('Elafgift')).toMatchObject({
      role: 'electricity_tax',
      code: 'EA-001',
      prices: Array(24).fill(0.008),
    });
    expect(byName.get('Balancetarif for forbrug')).toMatchObject({
      role: 'other',
      code: null,
      valid_from: '2015-01-01T00:00:00',
      valid_to: null,
      prices: Array(24).fill(0.00229),
    });
    expect(byName.get('Netabo C forbrug')).toMatchObject({
      kind: 'subscription',
      code: 'XABO',
      resolution: 'P1M',
      prices: [45.5],
    });
  });

  it('never takes the B-customer tariff of the same grid company', async () => {
    for (const date of ['2026-03-15', '2026-10-25'])
      expect((await charges(date)).charges.map((c) => c.code)).not.toContain('XB-1');
  });

  it('prices each hour at the tariff period in force at it, across a change at midnight', async () => {
    const day = async (date: string) =>
      (await app.call('GET', `/api/consumer-prices?date=${date}&area=DK1`)).json<{
        items: { time_dk: string; grid_tariff: number; other_tariffs: number; total: number }[];
        grid_company: { gln: string; source: string };
      }>();
    const before = await day('2026-03-31');
    const after = await day('2026-04-01');
    expect(before.items.at(-1)).toMatchObject({ time_dk: '2026-03-31T23:00:00+02:00', grid_tariff: 0.3 });
    expect(after.items[0]).toMatchObject({ time_dk: '2026-04-01T00:00:00+02:00', grid_tariff: 0.12 });
    expect(after.items[0]!.other_tariffs).toBe(0.00229);
    expect(after.grid_company).toMatchObject({ gln: GRID_X, source: 'meter' });
    // 0.46 + 0.12 + 0.043 + 0.072 + 0.008 + 0.00229 + markup 0.05 = 0.75529, and 25 % VAT
    expect(after.items[0]!.total).toBe(0.9441125);
  });

  it('answers /api/charges only with the token, and 400 naming a bad date', async () => {
    expect((await app.call('GET', '/api/charges?date=2026-03-15')).statusCode).toBe(401);
    const bad = await app.call('GET', '/api/charges?date=2026-02-30', undefined, auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('date');
  });
});

describe('the bill and the costs, computed by hand', () => {
  beforeAll(async () => {
    const reading = (iso: string, kwh: string, minutes: 15 | 60) => ({
      metering_point_id: D07,
      start_at: new Date(iso),
      quantity_kwh: kwh,
      quality: 'A04',
      resolution_minutes: minutes,
    });
    await insertEnergy(app.ctx.database.db, 'power.consumption', [
      // An hourly meter on the 23-hour day: 01:00+01:00, 03:00+02:00 (02:00 does not exist), 17:00+02:00.
      reading('2026-03-29T00:00:00Z', '1.000', 60),
      reading('2026-03-29T01:00:00Z', '2.000', 60),
      reading('2026-03-29T15:00:00Z', '0.500', 60),
      // A quarter-hour meter on the 25-hour day: quarters of both 02:00 hours, and 18:30+01:00.
      reading('2026-10-25T00:00:00Z', '0.250', 15),
      reading('2026-10-25T00:15:00Z', '0.250', 15),
      reading('2026-10-25T01:00:00Z', '0.500', 15),
      reading('2026-10-25T01:45:00Z', '0.100', 15),
      reading('2026-10-25T17:30:00Z', '1.000', 15),
    ]);
  });

  const bill = async (month: string) =>
    (await app.call('GET', `/api/bill?month=${month}`, undefined, auth)).json();

  it('bills March (hourly meter, 23-hour day): a line per charge, each rounded to øre, VAT on the subtotal', async () => {
    expect(await bill('2026-03')).toEqual({
      month: '2026-03',
      area: 'DK1',
      complete: false,
      // three hours of the 29th are metered: no day of the month is whole
      missing_days: Array.from({ length: 31 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`),
      consumption_kwh: 3.5,
      intervals: 3,
      intervals_priced: 3,
      lines: [
        { name: 'Spot price', kind: 'spot', owner: null, kwh: 3.5, amount_dkk: 1.61 },
        { name: 'Nettarif C time', kind: 'tariff', owner: 'Net X A/S', kwh: 3.5, amount_dkk: 0.75 },
        {
          name: 'Transmissions nettarif',
          kind: 'tariff',
          owner: 'Energinet Systemansvar A/S (SYO)',
          kwh: 3.5,
          amount_dkk: 0.15,
        },
        {
          name: 'Systemtarif',
          kind: 'tariff',
          owner: 'Energinet Systemansvar A/S (SYO)',
          kwh: 3.5,
          amount_dkk: 0.25,
        },
        {
          // DatahubPricelist lacks it: named as its owner's other charges name it, not by GLN
          name: 'Balancetarif for forbrug',
          kind: 'tariff',
          owner: 'Energinet Systemansvar A/S (SYO)',
          kwh: 3.5,
          amount_dkk: 0.01,
        },
        {
          name: 'Elafgift',
          kind: 'tariff',
          owner: 'Energinet Systemansvar A/S (SYO)',
          kwh: 3.5,
          amount_dkk: 0.03,
        },
        { name: 'Supplier markup', kind: 'markup', owner: null, kwh: 3.5, amount_dkk: 0.18 },
        { name: 'Netabo C forbrug', kind: 'subscription', owner: 'Net X A/S', kwh: null, amount_dkk: 45.5 },
        { name: 'Supplier subscription', kind: 'subscription', owner: null, kwh: null, amount_dkk: 29 },
      ],
      subtotal_dkk: 77.48,
      vat_dkk: 19.37,
      total_dkk: 96.85,
    });
  });

  it("bills October (quarter-hour meter, 25-hour day) at each quarter's own spot price", async () => {
    const b = await bill('2026-10');
    expect(b.lines.map((l: { amount_dkk: number }) => l.amount_dkk)).toEqual([
      0.94, 0.63, 0.09, 0.15, 0, 0.02, 0.11, 45.5, 29,
    ]);
    expect(b).toMatchObject({
      consumption_kwh: 2.1,
      intervals: 5,
      intervals_priced: 5,
      subtotal_dkk: 76.44,
      vat_dkk: 19.11,
      total_dkk: 95.55,
    });
  });

  it('costs the same days interval by interval, to the øre', async () => {
    const costs = async (date: string) =>
      (await app.call('GET', `/api/costs?from=${date}&to=${date}&resolution=hour`, undefined, auth)).json();
    const march = await costs('2026-03-29');
    // (1.0 × 0.73529 + 2.0 × 0.73529 + 0.5 × 1.53529) × 1.25 = 3.71689375
    expect(march.days[0]).toMatchObject({ consumption_kwh: 3.5, cost_dkk: 3.72, hours: 3, hours_priced: 3 });
    const october = await costs('2026-10-25');
    // (0.25 × 0.69529 + 0.25 × 0.73529 + 0.5 × 0.69529 + 0.1 × 0.81529 + 1 × 1.15529) × 1.25 = 2.42763625
    expect(october.days[0]).toMatchObject({
      consumption_kwh: 2.1,
      cost_dkk: 2.43,
      hours: 5,
      hours_priced: 5,
    });
    expect(
      october.days[0].items.map((i: { time_dk: string; resolution_minutes: number; spot: number }) => [
        i.time_dk,
        i.resolution_minutes,
        i.spot,
      ]),
    ).toEqual([
      ['2026-10-25T02:00:00+02:00', 15, 0.4],
      ['2026-10-25T02:15:00+02:00', 15, 0.44],
      ['2026-10-25T02:00:00+01:00', 15, 0.4],
      ['2026-10-25T02:45:00+01:00', 15, 0.52],
      ['2026-10-25T18:30:00+01:00', 15, 0.48],
    ]);
  });

  it('answers the bill as CSV, and 400 for a month before 2013 or after the current one', async () => {
    const csv = await app.call('GET', '/api/bill?month=2026-03&format=csv', undefined, auth);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.split('\r\n').at(-2)).toBe('total,total,,,96.85');
    for (const month of ['2012-12', '2026-12', '2026-13', '2026-1', '0000-01'])
      expect((await app.call('GET', `/api/bill?month=${month}`, undefined, auth)).statusCode, month).toBe(
        400,
      );
    expect((await app.call('GET', '/api/bill?month=2026-03')).statusCode).toBe(401);
  });
});

describe('a change of grid company', () => {
  it("keeps the old company's history until the new one's first day", async () => {
    eds.tariffs = [
      ...xRecords(),
      tariffRecord({
        gln: DINEL,
        owner: 'Dinel A/S',
        code: 'TCL>100_02',
        validFrom: '2026-01-01T00:00:00',
        validTo: null,
        hourly: touHours(0.2, 0.4, 1),
      }),
      tariffRecord({
        gln: DINEL,
        owner: 'Dinel A/S',
        code: 'TCL<100_52',
        validFrom: '2026-01-01T00:00:00',
        validTo: null,
        hourly: flat(-0.01),
      }),
    ];
    meter.chargeLists.set(E17, listOf(DINEL, '2026-08-31T22:00:00.000Z'));
    await household.refresh();
    const august = (await charges('2026-08-15')).charges.find((c) => c.role === 'grid')!;
    expect(august).toMatchObject({ owner_gln: GRID_X, code: 'XC-TIME-7', valid_to: '2026-09-01T00:00:00' });
    const september = (await charges('2026-09-15')).charges.filter((c) => c.role === 'grid');
    expect(september).toHaveLength(1);
    expect(september[0]).toMatchObject({
      owner_gln: DINEL,
      code: 'TCL>100_02+TCL<100_52',
      valid_from: '2026-09-01T00:00:00',
    });
    expect(september[0]!.prices[0]).toBe(0.19);
    // The bill of a month with the old company is unchanged.
    expect((await app.call('GET', '/api/bill?month=2026-03', undefined, auth)).json().total_dkk).toBe(96.85);
  });
});
