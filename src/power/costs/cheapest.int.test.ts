import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import type { Cheapest } from './schemas.js';
import { chargesWithTaxGap, refreshCharges, storeDay } from '../../../test/support/costs.js';

let fake: FakeEnergiDataService;
let app: TestApp;

/** DK1 spot by wall-clock hour, DKK/MWh: cheap at 14-16, cheaper still at 17-19, when the peak tariff applies. */
const SPOT = [
  900, 900, 900, 900, 900, 900, 800, 800, 800, 800, 800, 800, 800, 800, 200, 200, 200, 0, 0, 0, 800, 800, 800,
  800,
];

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.charges = chargesWithTaxGap('2026-05-05', '2026-05-06');
  fake.publication.set('2026-01-16', 'none');
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url },
    now: '2026-01-15T09:00:00Z',
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
  for (const d of ['2026-01-15', '2026-05-05']) await storeDay(app, d, (h) => String(SPOT[h]));
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const cheapest = async (query: string) => {
  const res = await app.call('GET', `/api/cheapest?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Cheapest>();
};

describe('GET /api/cheapest', () => {
  it('ranks on the all-in price: the grid tariff step at 17:00 outweighs the cheaper spot', async () => {
    // excl. VAT: 14-16 0.2 + 0.2929 + 0.123 = 0.6159; 17-19 0 + 0.8788 + 0.123 = 1.0018
    expect(await cheapest('hours=3&date=2026-01-15&area=DK1')).toEqual({
      area: 'DK1',
      hours: 3,
      start_dk: '2026-01-15T14:00:00+01:00',
      end_dk: '2026-01-15T17:00:00+01:00',
      average_dkk_kwh: 0.769875, // 0.6159 × 1.25
      basis: 'total',
    });
    // Four hours take the first peak hour: (3 × 0.6159 + 1.0018) / 4 × 1.25 = 0.89046875
    expect(await cheapest('hours=4&date=2026-01-15&area=DK1')).toMatchObject({
      start_dk: '2026-01-15T14:00:00+01:00',
      end_dk: '2026-01-15T18:00:00+01:00',
      average_dkk_kwh: 0.89046875,
    });
  });

  it('falls back on the spot price when a charge is missing, and says so in basis', async () => {
    expect(await cheapest('hours=3&date=2026-05-05&area=DK1')).toMatchObject({
      start_dk: '2026-05-05T17:00:00+02:00',
      end_dk: '2026-05-05T20:00:00+02:00',
      average_dkk_kwh: 0,
      basis: 'spot',
    });
  });

  it('without a date searches from the current hour to the last published one', async () => {
    app.clock.set('2026-01-15T14:30:00Z'); // 15:30 in Denmark; tomorrow not published
    const w = await cheapest('hours=3&area=DK1');
    // 15-17: (2 × 0.6159 + 1.0018) / 3 × 1.25
    expect(w).toMatchObject({ start_dk: '2026-01-15T15:00:00+01:00', end_dk: '2026-01-15T18:00:00+01:00' });
    expect(w.average_dkk_kwh).toBeCloseTo(0.930667, 6);

    app.clock.set('2026-01-15T21:30:00Z'); // 22:30: two hours left
    const res = await app.call('GET', '/api/cheapest?hours=3&area=DK1');
    expect(res.statusCode).toBe(404);
    expect(res.json<{ detail: string }>().detail).toMatch(/no 3 consecutive published hours/);
  });

  it('takes the area in any letter case', async () => {
    expect(await cheapest('hours=3&date=2026-01-15&area=dk1')).toEqual(
      await cheapest('hours=3&date=2026-01-15&area=DK1'),
    );
  });

  it('refuses hours outside 1..12 and other bad input with a 400', async () => {
    for (const q of ['hours=0', 'hours=13', 'hours=2.5', 'hours=3&area=SE3', 'hours=3&date=2026-13-01', '']) {
      const res = await app.call('GET', `/api/cheapest?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
  });
});
