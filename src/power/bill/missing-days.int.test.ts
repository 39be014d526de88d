import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges, storeDay } from '../../../test/support/costs.js';
import { addDays, danishDaySteps } from '../../shared/danish-time.js';
import { insertEnergy } from '../metering/repository.js';
import type { Bill } from './schemas.js';

/** A bill over metering that comes a day or more late lists the days it leaves out. */
const API_TOKEN = 'bill-missing-days-token-01';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const POINT = '571313100000012345';
let fake: FakeEnergiDataService;
let app: TestApp;

/** Every interval of the Danish days from..to (inclusive) metered: hours, or quarter hours. */
async function meter(from: string, to: string, minutes: 15 | 60 = 60) {
  const rows = [];
  for (let d = from; d <= to; d = addDays(d, 1))
    for (const t of danishDaySteps(d, minutes))
      rows.push({
        metering_point_id: POINT,
        start_at: t,
        quantity_kwh: '0.25',
        quality: 'A04',
        resolution_minutes: minutes,
      });
  await insertEnergy(app.ctx.database.db, 'power.consumption', rows);
}

const bill = async (month: string) => {
  const res = await app.call('GET', `/api/bill?month=${month}`, undefined, auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Bill>();
};

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.tariffs = radiusTariffRecords();
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url, API_TOKEN },
    now: '2026-11-04T10:00:00Z',
  });
  await refreshCharges(app, fake);
  for (let d = '2026-10-01'; d <= '2026-11-04'; d = addDays(d, 1)) await storeDay(app, d, () => '500');
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

describe('missing_days of the bill', () => {
  it('is empty, and the bill complete, for a month metered and priced in every interval (its 25-hour day in quarters)', async () => {
    await meter('2026-10-01', '2026-10-24');
    await meter('2026-10-25', '2026-10-25', 15);
    await meter('2026-10-26', '2026-10-31');
    const october = await bill('2026-10');
    expect(october).toMatchObject({ complete: true, missing_days: [] });
    // 720 hours of 0.25 kWh, and the 100 quarters of the 25-hour day of 0.25 kWh each
    expect(october.consumption_kwh).toBe(205);
    expect(october.intervals).toBe(820);
  });

  it('lists the days not yet metered of the current month, those to come and those metering has not reached', async () => {
    await meter('2026-11-01', '2026-11-01');
    // half of the 2nd
    await insertEnergy(
      app.ctx.database.db,
      'power.consumption',
      danishDaySteps('2026-11-02', 60)
        .slice(0, 12)
        .map((t) => ({ metering_point_id: POINT, start_at: t, quantity_kwh: '1', quality: 'A04' })),
    );
    const november = await bill('2026-11');
    expect(november.complete).toBe(false);
    expect(november.consumption_kwh).toBe(18);
    expect(november.missing_days).toEqual(
      Array.from({ length: 29 }, (_, i) => `2026-11-${String(i + 2).padStart(2, '0')}`),
    );
  });

  it('lists a day whose readings are there but one of 96 quarters', async () => {
    const quarters = danishDaySteps('2026-09-15', 15).slice(1);
    await insertEnergy(
      app.ctx.database.db,
      'power.consumption',
      quarters.map((t) => ({
        metering_point_id: POINT,
        start_at: t,
        quantity_kwh: '0.1',
        quality: 'A04',
        resolution_minutes: 15,
      })),
    );
    const september = await bill('2026-09');
    expect(september.missing_days).toContain('2026-09-15');
    expect(september.missing_days).toHaveLength(30);
  });
});
