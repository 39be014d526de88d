import { FakeEnergiDataService, energinetChargeRecord } from '../fakes/energidataservice.js';
import type { TestApp } from './app.js';
import { providerDeps } from '../../src/providers/budget.js';
import { EnergiDataService, type DayAheadPrice } from '../../src/providers/energidataservice.js';
import { danishDayBounds, danishDaySteps, danishHour } from '../../src/shared/danish-time.js';
import * as prices from '../../src/power/prices/repository.js';
import { ElectricityPriceService } from '../../src/power/prices/service.js';
import { HouseholdService } from '../../src/power/household/service.js';

/**
 * Energinet's 2026 charges as the tests' fixtures use them (DKK/kWh): transmission 0.043, system
 * 0.072, electricity tax 0.008, except that no tax period covers `taxGap` (a Danish day).
 */
export function chargesWithTaxGap(taxGap: string, next: string) {
  return [
    energinetChargeRecord({ code: '40000', validFrom: '2026-01-01T00:00:00', validTo: null, price: 0.043 }),
    energinetChargeRecord({ code: '41000', validFrom: '2026-01-01T00:00:00', validTo: null, price: 0.072 }),
    energinetChargeRecord({ code: 'EA-001', validFrom: `${next}T00:00:00`, validTo: null, price: 0.008 }),
    energinetChargeRecord({
      code: 'EA-001',
      validFrom: '2026-01-01T00:00:00',
      validTo: `${taxGap}T00:00:00`,
      price: 0.008,
    }),
  ];
}

/**
 * Loads the fake's charges into the app's database as the daily refresh does without a metering
 * token: Energinet's, and the grid company's when the app has GRID_COMPANY_GLN.
 */
export async function refreshCharges(app: TestApp, fake: FakeEnergiDataService): Promise<void> {
  const provider = new EnergiDataService({
    ...providerDeps(app.ctx, 'energidataservice'),
    baseUrl: fake.url,
    timeoutMs: 5000,
  });
  const prices = new ElectricityPriceService({
    db: app.ctx.database.db,
    clock: app.ctx.clock,
    shutdown: app.ctx.shutdown,
    provider,
  });
  await new HouseholdService({
    db: app.ctx.database.db,
    pricelist: (filter, signal) => provider.pricelist(filter, signal),
    meter: { available: async () => false, meteringPoints: async () => [], charges: async () => [] },
    config: app.ctx.config,
    clock: app.ctx.clock,
    log: app.ctx.log,
    signal: app.ctx.shutdown,
    onChanged: () => prices.chargesChanged(),
    readiness: prices.charges,
  }).refresh();
}

/**
 * Stores a whole Danish day of hand-picked quarter prices (DKK/MWh) for both areas and derives
 * its hours with the tariffs and charges stored now: `price(hour, quarter)` by wall-clock hour.
 */
export async function storeDay(
  app: TestApp,
  date: string,
  price: (hour: number, quarter: number, area: 'DK1' | 'DK2') => string,
): Promise<void> {
  const rows: DayAheadPrice[] = danishDaySteps(date, 15).flatMap((t) =>
    (['DK1', 'DK2'] as const).map((area) => ({
      timeUtc: t,
      area,
      minutes: 15 as const,
      priceDkk: price(danishHour(t), (t.getUTCMinutes() / 15) | 0, area),
      priceEur: null,
    })),
  );
  const db = app.ctx.database.db;
  await prices.insertPrices(db, rows);
  const { start, end } = danishDayBounds(date);
  await prices.deriveElprices(db, start, end);
}
