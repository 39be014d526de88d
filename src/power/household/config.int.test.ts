import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  energinetChargeRecords,
  radiusTariffRecords,
  tariffRecord,
  touHours,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase } from '../../../test/support/db.js';
import { storeDay } from '../../../test/support/costs.js';
import { householdServices } from '../../../test/support/household.js';
import type { HouseholdService } from './service.js';

const DINEL = '5790000610099';
const KONSTANT = '5790000704842';
const API_TOKEN = 'household-config-token-01';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const flat = (p: number) => [p, ...Array<null>(23).fill(null)];

let eds: FakeEnergiDataService;

beforeAll(async () => {
  eds = await FakeEnergiDataService.start();
  eds.charges = energinetChargeRecords();
  eds.tariffs = [
    ...radiusTariffRecords(),
    // Dinel's household tariff and its discount share the note; the B tariff has its own.
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
    tariffRecord({
      gln: DINEL,
      owner: 'Dinel A/S',
      code: 'TBL<100_02',
      note: 'Nettarif B lav time',
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      hourly: flat(0.07),
    }),
    // Konstant's records carry a note no list has: found by the codes the lists name.
    tariffRecord({
      gln: KONSTANT,
      owner: 'Konstant Net A/S',
      code: 'C_FBTNTR_B',
      note: 'Nettarif C 2026',
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      hourly: touHours(0.15, 0.25, 0.6),
    }),
  ];
});
afterAll(() => eds.close());

async function appWith(env: Record<string, string>, db?: Awaited<ReturnType<typeof freshDatabase>>) {
  let household!: HouseholdService;
  const app = await startTestApp({
    now: '2026-07-03T10:00:00Z',
    env: { PRICE_FEED_URL: eds.url, API_TOKEN, ...env },
    db,
    services: householdServices((h) => (household = h)),
  });
  return { app, household };
}

type Day = {
  configured: boolean;
  note: string | null;
  grid_company: { gln: string; name: string | null; source: string } | null;
  items: {
    time_dk: string;
    grid_tariff: number | null;
    total: number | null;
    transmission_tariff: number | null;
  }[];
};
const consumerPrices = async (app: TestApp, date: string) =>
  (await app.call('GET', `/api/consumer-prices?date=${date}&area=DK1`)).json<Day>();

describe('without a metering token', () => {
  let app: TestApp;
  afterAll(() => app.close());

  it('GRID_COMPANY_GLN finds the household tariff by its notes: a discount under the same note is added, the B tariff is not taken', async () => {
    let household: HouseholdService;
    ({ app, household } = await appWith({ GRID_COMPANY_GLN: DINEL }));
    expect(await household.refresh()).toMatchObject({ source: 'config' });
    await storeDay(app, '2026-07-01', () => '500');
    const day = await consumerPrices(app, '2026-07-01');
    expect(day).toMatchObject({
      configured: true,
      note: null,
      grid_company: { gln: DINEL, name: 'Dinel A/S', source: 'config' },
    });
    expect(day.items[0]).toMatchObject({
      time_dk: '2026-07-01T00:00:00+02:00',
      grid_tariff: 0.19,
      transmission_tariff: 0.043,
    });
    expect(day.items[18]!.grid_tariff).toBe(0.99);
    const charges = (await app.call('GET', '/api/charges?date=2026-07-01', undefined, auth)).json<{
      charges: { code: string; source: string }[];
    }>().charges;
    expect(charges.map((c) => c.code)).toEqual(['TCL>100_02+TCL<100_52', '40000', '41000', 'EA-001']);
    expect(charges.every((c) => c.source === 'config')).toBe(true);
  });
});

describe('codes and notes', () => {
  it("asks for the codes the lists name when no record carries the company's notes", async () => {
    const { app, household } = await appWith({ GRID_COMPANY_GLN: KONSTANT });
    try {
      await household.refresh();
      await storeDay(app, '2026-07-01', () => '500');
      expect((await consumerPrices(app, '2026-07-01')).items[18]!.grid_tariff).toBe(0.6);
    } finally {
      await app.close();
    }
  });

  it('GRID_TARIFF_NOTES overrides the shipped notes', async () => {
    const { app, household } = await appWith({
      GRID_COMPANY_GLN: DINEL,
      GRID_TARIFF_NOTES: 'Nettarif B lav time',
    });
    try {
      await household.refresh();
      await storeDay(app, '2026-07-01', () => '500');
      expect((await consumerPrices(app, '2026-07-01')).items[18]!.grid_tariff).toBe(0.07);
    } finally {
      await app.close();
    }
  });
});

describe('not configured', () => {
  it("says so plainly and prices with no other company's tariff, even on hours stored with one", async () => {
    // Hours stored under the old default (Radius, migration power/0003's seed and a refresh).
    const db = await freshDatabase();
    const before = await appWith({ GRID_COMPANY_GLN: RADIUS_GLN }, db);
    await before.household.refresh();
    await storeDay(before.app, '2026-07-01', () => '500');
    const seeded = await consumerPrices(before.app, '2026-07-01');
    expect(seeded.items[0]!.grid_tariff).toBe(0.1062);
    await before.app.close();

    const { app } = await appWith({}, db);
    await app.startFeeds();
    try {
      const day = await consumerPrices(app, '2026-07-01');
      expect(day.configured).toBe(false);
      expect(day.grid_company).toBeNull();
      expect(day.note).toMatch(/grid company not configured.*GRID_COMPANY_GLN/);
      expect(day.items).toHaveLength(24);
      expect(day.items.filter((i) => i.grid_tariff !== null || i.total !== null)).toEqual([]);
      const rows = await sql<{
        n: number;
      }>`select count(*)::int as n from power.elprices where tariff_dkk is not null`.execute(
        app.ctx.database.db,
      );
      expect(rows.rows[0]!.n).toBe(0);
      const health = (await app.call('GET', '/health', undefined, auth)).json<{
        feeds: Record<string, { detail: string | null }>;
      }>();
      expect(health.feeds.household!.detail).toMatch(/not configured/);
    } finally {
      await app.close();
    }
  });
});
