import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, meterSubscription, meterTariff } from '../../../test/fakes/eloverblik.js';
import { FakeEnergiDataService, energinetChargeRecords } from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { householdServices } from '../../../test/support/household.js';
import type { HouseholdService } from './service.js';

/**
 * LARGEST INPUT: a meter whose getcharges lists a tariff of 11,000 prices (33,000 parameters as
 * one INSERT, past what PGlite takes in a statement). Eloverblik's wire format puts no bound on
 * the list; both writers of it, the metering sync and the household's refresh, store every price,
 * and the bill and the prices answer afterwards. Generated, not checked in.
 */

const PRICES = 11_000;
const API_TOKEN = 'charge-prices-test-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const E17 = HOUSEHOLD[0]!.id;
const GRID = '5790000705689';

let eds: FakeEnergiDataService;
let meter: FakeEloverblik;
let app: TestApp;
let household: HouseholdService;

const storedPrices = async () =>
  (
    await sql<{ n: number }>`select count(*)::int as n from power.charge_prices p
      join power.charges c using (charge_id) where c.name = 'Nettarif lang'`.execute(app.ctx.database.db)
  ).rows[0]!.n;

beforeAll(async () => {
  eds = await FakeEnergiDataService.start();
  eds.charges = energinetChargeRecords();
  meter = await FakeEloverblik.start();
  const validFrom = '2025-12-31T23:00:00.000Z';
  meter.chargeLists.set(E17, {
    subscriptions: [meterSubscription({ name: 'Netabo C forbrug', owner: GRID, validFrom, price: 45.5 })],
    fees: [],
    tariffs: [
      meterTariff({
        name: 'Nettarif lang',
        owner: GRID,
        validFrom,
        prices: Array.from({ length: PRICES }, (_, i) => 0.1 + (i % 100) / 1000),
      }),
    ],
  });
  app = await startTestApp({
    now: '2026-07-03T10:00:00Z',
    env: {
      PRICE_FEED_URL: eds.url,
      METERING_FEED_URL: meter.url,
      METERING_TOKEN: meter.refreshToken,
      API_TOKEN,
    },
    services: householdServices((h) => (household = h)),
  });
}, 120_000);
afterAll(async () => {
  await app.close();
  await eds.close();
  await meter.close();
});

describe(`a meter tariff of ${PRICES} prices (largest input)`, () => {
  it('the metering sync stores every price, and syncs the next day', { timeout: 120_000 }, async () => {
    const first = await app.call('POST', '/metering/sync?date=2026-06-30', undefined, auth);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().status).toBe('synced');
    expect(await storedPrices()).toBe(PRICES);
    const next = await app.call('POST', '/metering/sync?date=2026-07-01', undefined, auth);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().status).toBe('synced');
  });

  it("the household's refresh stores every price again", { timeout: 120_000 }, async () => {
    await sql`delete from power.charges`.execute(app.ctx.database.db);
    expect(await storedPrices()).toBe(0);
    expect(await household.refresh()).toMatchObject({ source: 'meter' });
    expect(await storedPrices()).toBe(PRICES);
  });

  it('the prices and the bill answer afterwards, and /health is ok', { timeout: 120_000 }, async () => {
    const elprice = await app.call('GET', '/api/elprice?date=2026-06-30&area=DK1');
    expect(elprice.statusCode, elprice.body).toBe(200);
    expect(elprice.json().items.length).toBeGreaterThan(0);
    const bill = await app.call('GET', '/api/bill?month=2026-06', undefined, auth);
    expect(bill.statusCode, bill.body).toBe(200);
    expect(bill.json().consumption_kwh).toBeGreaterThan(0);
    expect((await app.call('GET', '/health')).statusCode).toBe(200);
  });
});
