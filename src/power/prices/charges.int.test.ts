import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEnergiDataService, energinetChargeRecord } from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { providerDeps } from '../../providers/budget.js';
import { EnergiDataService } from '../../providers/energidataservice.js';
import { danishDayBounds, toDanishIso } from '../../shared/danish-time.js';
import { PriceService } from './service.js';

let fake: FakeEnergiDataService;
let app: TestApp;
let service: PriceService;

/** System tariff by wall-clock hour: 0.07 + hour / 1000, so the hour each row read is visible. */
const hourlySystem = Array.from({ length: 24 }, (_, h) => Number((0.07 + h / 1000).toFixed(3)));

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  fake.charges = [
    // transmission steps at midnight into the 23-hour day
    energinetChargeRecord({ code: '40000', validFrom: '2026-03-29T00:00:00', validTo: null, price: 0.06 }),
    energinetChargeRecord({
      code: '40000',
      validFrom: '2026-01-01T00:00:00',
      validTo: '2026-03-29T00:00:00',
      price: 0.05,
    }),
    energinetChargeRecord({
      code: '41000',
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      price: hourlySystem,
    }),
    // the tax steps at midnight into the 25-hour day, and no period covers 2026-07-10
    energinetChargeRecord({ code: 'EA-001', validFrom: '2026-10-25T00:00:00', validTo: null, price: 0.01 }),
    energinetChargeRecord({
      code: 'EA-001',
      validFrom: '2026-07-11T00:00:00',
      validTo: '2026-10-25T00:00:00',
      price: 0.008,
    }),
    energinetChargeRecord({
      code: 'EA-001',
      validFrom: '2026-01-01T00:00:00',
      validTo: '2026-07-10T00:00:00',
      price: 0.008,
    }),
  ];
  app = await startTestApp({ env: { PRICE_FEED_URL: fake.url }, now: '2026-10-25T10:00:00Z' });
  service = new PriceService(
    app.ctx,
    new EnergiDataService({
      ...providerDeps(app.ctx, 'energidataservice'),
      baseUrl: fake.url,
      timeoutMs: 5000,
    }),
  );
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

async function stored(date: string) {
  const { start, end } = danishDayBounds(date);
  const rows = await app.ctx.database.db
    .selectFrom('power.elprices')
    .select(['time_dk', 'price_area', 'transmission_dkk_kwh', 'system_dkk_kwh', 'electricity_tax_dkk_kwh'])
    .where('time_dk', '>=', start)
    .where('time_dk', '<', end)
    .orderBy('time_dk')
    .orderBy('price_area')
    .execute();
  return rows.map((r) => ({
    time: toDanishIso(r.time_dk),
    area: r.price_area,
    charges: [r.transmission_dkk_kwh, r.system_dkk_kwh, r.electricity_tax_dkk_kwh].map((v) =>
      v === null ? null : Number(v),
    ),
  }));
}

describe("Energinet's charges by validity", () => {
  it('hours stored before the refresh take the charges valid at their wall-clock hour', async () => {
    for (const d of ['2026-03-28', '2026-03-29', '2026-07-09', '2026-07-10']) await service.ensureDay(d);
    expect((await stored('2026-03-28')).every((r) => r.charges.every((c) => c === null))).toBe(true);
    expect(await service.refreshCharges()).toBe(6);

    const before = await stored('2026-03-28');
    const after = await stored('2026-03-29');
    expect(before).toHaveLength(48);
    expect(after).toHaveLength(46); // 23 hours in both areas
    for (const area of ['DK1', 'DK2']) {
      const last = before.filter((r) => r.area === area).at(-1)!;
      const first = after.find((r) => r.area === area)!;
      expect(last).toEqual({ time: '2026-03-28T23:00:00+01:00', area, charges: [0.05, 0.093, 0.008] });
      expect(first).toEqual({ time: '2026-03-29T00:00:00+01:00', area, charges: [0.06, 0.07, 0.008] });
      // 02:00 does not exist: 01:00+01:00 reads Price2, then 03:00+02:00 reads Price4
      const hours = after.filter((r) => r.area === area).map((r) => [r.time.slice(11), r.charges[1]]);
      expect(hours.slice(1, 3)).toEqual([
        ['01:00:00+01:00', 0.071],
        ['03:00:00+02:00', 0.073],
      ]);
    }
  });

  it('a day no period of a charge covers keeps that charge null, and only that one', async () => {
    const gap = await stored('2026-07-10');
    expect(gap).toHaveLength(48);
    expect(gap.every((r) => r.charges[2] === null && r.charges[0] === 0.06 && r.charges[1] !== null)).toBe(
      true,
    );
    expect((await stored('2026-07-09')).every((r) => r.charges[2] === 0.008)).toBe(true);
  });

  it('hours stored after the refresh are derived with their charges: the 25-hour day steps at midnight', async () => {
    await service.ensureDay('2026-10-24');
    await service.ensureDay('2026-10-25');
    const eve = await stored('2026-10-24');
    const day = await stored('2026-10-25');
    expect(day).toHaveLength(50);
    for (const area of ['DK1', 'DK2']) {
      expect(eve.filter((r) => r.area === area).at(-1)!.charges).toEqual([0.06, 0.093, 0.008]);
      const mine = day.filter((r) => r.area === area);
      expect(mine[0]!.charges).toEqual([0.06, 0.07, 0.01]);
      // both 02:00 hours read Price3
      const twos = mine.filter((r) => r.time.slice(11, 13) === '02');
      expect(twos.map((r) => [r.time, r.charges[1]])).toEqual([
        ['2026-10-25T02:00:00+02:00', 0.072],
        ['2026-10-25T02:00:00+01:00', 0.072],
      ]);
    }
  });

  it('a corrected period is applied to the hours it covers at the next refresh', async () => {
    fake.charges[0] = energinetChargeRecord({
      code: '40000',
      validFrom: '2026-03-29T00:00:00',
      validTo: null,
      price: 0.0625,
    });
    const version = service.chargesVersion;
    await service.refreshCharges();
    expect(service.chargesVersion).toBeGreaterThan(version);
    expect((await stored('2026-10-25')).every((r) => r.charges[0] === 0.0625)).toBe(true);
    expect((await stored('2026-03-28')).every((r) => r.charges[0] === 0.05)).toBe(true);
  });
});
