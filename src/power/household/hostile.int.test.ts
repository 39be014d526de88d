import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEloverblik,
  HOUSEHOLD,
  meterSubscription,
  meterTariff,
  type ChargeList,
} from '../../../test/fakes/eloverblik.js';
import {
  ENERGINET_GLN,
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
  tariffRecord,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { storeDay } from '../../../test/support/costs.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { householdServices } from '../../../test/support/household.js';
import { RefusedCharges } from '../../providers/eloverblik.js';
import { insertCharge, insertChargePrices, insertEnergy } from '../metering/repository.js';
import type { HouseholdService } from './service.js';
import type { Bill } from '../bill/schemas.js';

/**
 * A meter (or DatahubPricelist) that answers hostile charges: refused whole, nothing stored
 * replaced, the day's metering sync still done; what a spreadsheet would run comes out as text.
 */
const API_TOKEN = 'hostile-charges-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const E17 = HOUSEHOLD[0]!.id;
const D07 = HOUSEHOLD[0]!.children.find((c) => c.type === 'D07')!.id;
const FROM = '2025-12-31T23:00:00.000Z';
const DAY = '2026-10-20';

let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
let db: TestDatabase;
let app: TestApp;
let household: HouseholdService;

const energinet = (name: string, price: number, validFrom = FROM) =>
  meterTariff({ name, owner: ENERGINET_GLN, validFrom, prices: [price] });
const list = (
  o: { grid?: number; subscription?: number; extra?: ChargeList['tariffs'] } = {},
): ChargeList => ({
  subscriptions: [
    meterSubscription({
      name: 'Netabo C forbrug',
      owner: RADIUS_GLN,
      validFrom: FROM,
      price: o.subscription ?? 45.5,
    }),
  ],
  fees: [],
  tariffs: [
    meterTariff({ name: 'Nettarif C time', owner: RADIUS_GLN, validFrom: FROM, prices: [o.grid ?? 0.3] }),
    energinet('Transmissions nettarif', 0.043),
    energinet('Systemtarif', 0.072),
    energinet('Elafgift', 0.008),
    ...(o.extra ?? []),
  ],
});

const start = () =>
  startTestApp({
    db,
    now: '2026-11-03T10:00:00Z',
    env: {
      PRICE_FEED_URL: eds.url,
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
      API_TOKEN,
    },
    services: householdServices((h) => (household = h)),
  });
const get = async <T>(url: string) => {
  const res = await app.call('GET', url, undefined, auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
};
/** What the household's charges make of a day and a month: kept unchanged by a refused answer. */
const figures = async () => ({
  bill: await get<Bill>('/api/bill?month=2026-10'),
  charges: await get<unknown>(`/api/charges?date=${DAY}`),
  elprice: await get<unknown>(`/api/elprice?date=${DAY}&area=DK1`),
});
const lowestStoredPrice = async () =>
  (
    await sql<{ min: string }>`select min(price_dkk)::text as min from power.charge_prices`.execute(
      app.ctx.database.db,
    )
  ).rows[0]!.min;

let before: Awaited<ReturnType<typeof figures>>;

beforeAll(async () => {
  [eds, meter, db] = await Promise.all([
    FakeEnergiDataService.start(),
    FakeEloverblik.start(),
    freshDatabase(),
  ]);
  eds.tariffs = [
    ...radiusTariffRecords(),
    tariffRecord({
      chargeType: 'D01',
      code: 'ABO',
      note: 'Netabo C forbrug',
      resolution: 'P1M',
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      hourly: [45.5, ...Array<null>(23).fill(null)],
    }),
  ];
  meter.chargeLists.set(E17, list());
  app = await start();
  await household.refresh();
  await storeDay(app, DAY, () => '500');
  const dayStart = new Date('2026-10-19T22:00:00Z').getTime();
  await insertEnergy(
    app.ctx.database.db,
    'power.consumption',
    Array.from({ length: 24 }, (_, h) => ({
      metering_point_id: D07,
      start_at: new Date(dayStart + h * 3_600_000),
      quantity_kwh: '0.5',
      quality: 'A04',
    })),
  );
  before = await figures();
  expect(before.bill.total_dkk).toBeGreaterThan(0);
});
afterAll(async () => {
  await app.close();
  await Promise.all([eds.close(), meter.close()]);
  await db.close();
});

describe('hostile charges', () => {
  it('from the meter (a tariff of −1,000 DKK/kWh, a subscription of −99,999 DKK): refused whole, nothing stored changes', async () => {
    meter.chargeLists.set(E17, list({ grid: -1_000, subscription: -99_999 }));
    await expect(household.refresh()).rejects.toBeInstanceOf(RefusedCharges);
    expect(await figures()).toEqual(before);
    expect(Number(await lowestStoredPrice())).toBeGreaterThanOrEqual(-1);
    const health = await get<{
      feeds: Record<string, { ok: boolean; rejected: number; last_rejected: string }>;
    }>('/health');
    expect(health.feeds.metering).toMatchObject({ ok: false, rejected: 2 });
    expect(health.feeds.metering!.last_rejected).toMatch(/subscription "Netabo C forbrug": -99999/);
  });

  it('do not fail the metering sync of a day: its readings are stored, the charges left out', async () => {
    meter.chargeLists.set(E17, list({ grid: -1_000, subscription: -99_999 }));
    const res = await app.call('POST', '/metering/sync?date=2026-09-28', undefined, auth);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'synced', consumption: 24 });
    expect(Number(await lowestStoredPrice())).toBeGreaterThanOrEqual(-1);
    expect(await figures()).toEqual(before);
  });

  it('from DatahubPricelist: refused whole, nothing stored changes', async () => {
    meter.chargeLists.set(E17, list());
    const normal = eds.tariffs;
    eds.tariffs = [
      tariffRecord({
        validFrom: '2026-10-01T00:00:00',
        validTo: null,
        hourly: Array<number>(24).fill(-1_000),
      }),
      ...normal,
    ];
    await expect(household.refresh()).rejects.toThrow(/implausible DatahubPricelist answer refused/);
    expect(await figures()).toEqual(before);
    eds.tariffs = normal;
  });

  it('stored by an earlier version, are left out at the next refresh and after a restart', async () => {
    const id = await insertCharge(app.ctx.database.db, {
      metering_point_id: E17,
      kind: 'tariff',
      name: 'Balancetarif for forbrug',
      description: null,
      owner_gln: ENERGINET_GLN,
      period_type: 'P1D',
      quantity: null,
      valid_from: new Date(FROM),
      valid_to: null,
    });
    await insertChargePrices(app.ctx.database.db, [{ charge_id: id!, position: 1, price_dkk: '-1000' }]);
    await household.refresh();
    expect(await figures()).toEqual(before);
    await app.close();
    app = await start();
    await household.refresh();
    expect(await figures()).toEqual(before);
  });

  it("come out of every CSV as text when named as a spreadsheet's formula", async () => {
    meter.chargeLists.set(
      E17,
      list({
        extra: [
          meterTariff({
            name: '=HYPERLINK("http://x.example","klik")',
            owner: RADIUS_GLN,
            validFrom: FROM,
            prices: [0.01],
          }),
          meterTariff({ name: "=cmd|' /C calc'!A0", owner: RADIUS_GLN, validFrom: FROM, prices: [0.02] }),
        ],
      }),
    );
    await household.refresh();
    const csv = await app.call('GET', '/api/bill?month=2026-10&format=csv', undefined, auth);
    const names = parse<Record<string, string>>(csv.body, { columns: true }).map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([`'=HYPERLINK("http://x.example","klik")`, `'=cmd|' /C calc'!A0`]),
    );
    expect(names.filter((n) => /^[=+\-@\t\r]/.test(n!))).toEqual([]);
    const json = await get<Bill>('/api/bill?month=2026-10');
    expect(json.lines.map((l) => l.name)).toContain("=cmd|' /C calc'!A0");
    // charges DatahubPricelist lacks are named by their owner's name, as every other line
    expect(json.lines.find((l) => l.name.startsWith('=cmd'))!.owner).toBe('Radius Elnet A/S');
    expect(json.lines.filter((l) => /^\d{13}$/.test(l.owner ?? ''))).toEqual([]);
  });
});
