import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { refreshCharges, storeDay } from '../../../test/support/costs.js';
import type { Co2Row } from '../../providers/energidataservice-co2.js';
import { insertForecast, upsertRealized } from '../co2/repository.js';
import type { ConsumerPrices } from '../costs/schemas.js';
import { insertHouseholdCharges } from '../household/repository.js';
import { WindowService } from '../windows/service.js';
import { EvccService } from './service.js';

let fake: FakeEnergiDataService;
let app: TestApp;

const SLOT_MS = 900_000;
interface Rate {
  start: Date;
  end: Date;
  value: number;
}

/**
 * Reads a forecast as evcc's custom tariff (`forecast: source: http`) does: the body is a JSON
 * list of {start, end, value} (api.Rate; Go's time.Time reads RFC 3339), sorted by start; slots
 * that end by the start of the current 15-minute slot are dropped and every slot is cut into
 * 15-minute slots of its value (tariff/slots.go). The current rate is the slot holding now (Rates.At).
 */
function readAsEvcc(body: string, now: Date): { rates: Rate[]; current: Rate | undefined } {
  const list = JSON.parse(body) as unknown;
  if (!Array.isArray(list)) throw new Error('not a JSON list');
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
  const parsed = list.map((r: { start: unknown; end: unknown; value: unknown }) => {
    if (typeof r.start !== 'string' || !rfc3339.test(r.start)) throw new Error(`start ${String(r.start)}`);
    if (typeof r.end !== 'string' || !rfc3339.test(r.end)) throw new Error(`end ${String(r.end)}`);
    if (typeof r.value !== 'number') throw new Error(`value ${String(r.value)}`);
    return { start: new Date(r.start), end: new Date(r.end), value: r.value };
  });
  parsed.sort((a, b) => a.start.getTime() - b.start.getTime());
  const slotStart = Math.floor(now.getTime() / SLOT_MS) * SLOT_MS;
  const rates: Rate[] = [];
  for (const r of parsed) {
    if (r.end.getTime() <= slotStart) continue;
    const slots = Math.max(Math.floor((r.end.getTime() - r.start.getTime()) / SLOT_MS), 1);
    for (let j = 0; j < slots; j++) {
      const start = new Date(r.start.getTime() + j * SLOT_MS);
      rates.push({ start, end: new Date(start.getTime() + SLOT_MS), value: r.value });
    }
  }
  const current = rates.find((r) => r.start <= now && now < r.end);
  return { rates, current };
}

const co2Rows = (from: string, to: string, value: (t: Date) => number): Co2Row[] => {
  const out: Co2Row[] = [];
  for (let t = Date.parse(from); t < Date.parse(to); t += 300_000)
    for (const area of ['DK1', 'DK2'] as const)
      out.push({ timeUtc: new Date(t), area, gKwh: String(value(new Date(t))) });
  return out;
};

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url },
    now: '2026-01-15T16:20:00Z',
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
  // quarter prices that differ within each hour, so that a value read for the wrong quarter shows
  const price = (h: number, q: number) => String(100 * h + 17 * q - 400);
  await storeDay(app, '2026-01-15', price);
  await storeDay(app, '2026-01-16', price);
  fake.publication.set('2026-01-17', 'none');
  // what the household's meter lists for its production: a tariff that differs by wall-clock hour
  await insertHouseholdCharges(app.ctx.database.db, [
    {
      kind: 'tariff',
      role: 'other',
      appliesTo: 'production',
      ownerGln: '5790000432752',
      owner: 'Energinet Systemansvar A/S (SYO)',
      name: 'Indfødningstarif',
      code: null,
      source: 'meter',
      pricesFrom: 'meter',
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      resolution: 'PT1H',
      prices: Array.from({ length: 24 }, (_, h) => String(h / 1000)),
    },
  ]);
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const quarters = async (date: string) =>
  (
    await app.call('GET', `/api/consumer-prices?date=${date}&area=DK1&resolution=quarter`)
  ).json<ConsumerPrices>().items;

describe("evcc's custom tariffs", () => {
  it('grid: evcc reads one all-in price incl. VAT per quarter hour, from the current one to the last published', async () => {
    const res = await app.call('GET', '/api/evcc/grid');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<{ start: string; end: string; value: number }[]>();
    for (const r of body) {
      expect(r.start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
      expect(r.end).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
    }
    const now = app.clock.now();
    const { rates, current } = readAsEvcc(res.body, now);
    expect(rates).toHaveLength(body.length);
    expect(current?.start.toISOString()).toBe('2026-01-15T16:15:00.000Z');
    rates.forEach((r, i) => {
      expect(r.end.getTime() - r.start.getTime()).toBe(SLOT_MS);
      if (i > 0) expect(r.start.getTime()).toBe(rates[i - 1]!.end.getTime());
    });
    expect(rates[0]!.start.toISOString()).toBe('2026-01-15T16:15:00.000Z');
    // nothing past the last published price: tomorrow's last quarter ends at midnight Danish time
    expect(rates.at(-1)!.end.toISOString()).toBe('2026-01-16T23:00:00.000Z');
    expect(rates).toHaveLength(
      (Date.parse('2026-01-16T23:00:00Z') - Date.parse('2026-01-15T16:15:00Z')) / SLOT_MS,
    );
    // DKK per kWh incl. VAT: the consumer price's total of the same quarter hour
    const totals = new Map(
      [...(await quarters('2026-01-15')), ...(await quarters('2026-01-16'))].map((q) => [
        Date.parse(q.time_dk),
        q.total,
      ]),
    );
    for (const r of rates) expect(r.value, r.start.toISOString()).toBe(totals.get(r.start.getTime()));
    // 17:30 Danish time: spot (1700 + 34 − 400) / 1000, peak tariff 0.8788, Energinet 0.123, VAT
    expect(rates.find((r) => r.start.toISOString() === '2026-01-15T16:30:00.000Z')!.value).toBeCloseTo(
      (1.334 + 0.8788 + 0.123) * 1.25,
      12,
    );
  });

  it('feed-in: the spot price less the production tariffs of its hour, per quarter hour', async () => {
    const res = await app.call('GET', '/api/evcc/feedin');
    expect(res.statusCode).toBe(200);
    const { rates, current } = readAsEvcc(res.body, app.clock.now());
    expect(current?.start.toISOString()).toBe('2026-01-15T16:15:00.000Z');
    expect(rates.at(-1)!.end.toISOString()).toBe('2026-01-16T23:00:00.000Z');
    const spot = new Map((await quarters('2026-01-16')).map((q) => [Date.parse(q.time_dk), q.spot]));
    // 2026-01-16 03:45 Danish time: spot (300 + 51 − 400) / 1000 = −0.049, less 0.003 for hour 03
    const at = Date.parse('2026-01-16T02:45:00Z');
    expect(spot.get(at)).toBe(-0.049);
    expect(rates.find((r) => r.start.getTime() === at)!.value).toBe(-0.052);
  });

  it('co2: the mean of each quarter hour, g/kWh, through the last quarter hour with every value', async () => {
    const db = app.ctx.database.db;
    await upsertRealized(
      db,
      app.clock.now(),
      co2Rows('2026-01-15T16:00:00Z', '2026-01-15T16:20:00Z', () => 120),
    );
    await insertForecast(
      db,
      app.clock.now(),
      co2Rows('2026-01-15T16:20:00Z', '2026-01-16T02:05:00Z', (t) => 100 + (t.getUTCMinutes() % 15)),
    );
    const res = await app.call('GET', '/api/evcc/co2');
    expect(res.statusCode).toBe(200);
    const { rates, current } = readAsEvcc(res.body, app.clock.now());
    // 16:15Z: 120 realized, then the prognosis' 105 (16:20Z) and 110 (16:25Z): 111.666… is 111.67
    expect(current).toEqual({
      start: new Date('2026-01-15T16:15:00Z'),
      end: new Date('2026-01-15T16:30:00Z'),
      value: 111.67,
    });
    expect(rates[1]!.value).toBe(105);
    // 02:00Z has only its first value: the last whole quarter hour is 01:45Z
    expect(rates.at(-1)!.end.toISOString()).toBe('2026-01-16T02:00:00.000Z');
  });

  it('grid: refuses plainly while the all-in price cannot be made, rather than answer an empty list', async () => {
    const windows = new WindowService({
      db: app.ctx.database.db,
      clock: app.clock,
      prices: {
        chargesVersion: 1,
        elprice: () => Promise.resolve({ json: Buffer.alloc(0), complete: true }),
      },
      co2: { quarters: () => Promise.resolve([]), needCurrent: () => Promise.resolve() },
      config: { ...app.ctx.config, priceArea: 'DK1' },
    });
    const withoutTotals = {
      priceQuarters: async (area: string, from: number, to: number) => {
        const { quarters: qs, complete } = await windows.priceQuarters(area, from, to);
        return { quarters: qs.map((q) => ({ ...q, total: null })), complete };
      },
    };
    const service = (configured: boolean) =>
      new EvccService({
        db: app.ctx.database.db,
        clock: app.clock,
        windows: withoutTotals,
        co2: { quarters: () => Promise.resolve([]), needCurrent: () => Promise.resolve() },
        household: () => ({
          configured,
          source: configured ? 'config' : null,
          grid_company: null,
          detail: configured
            ? 'not loaded yet'
            : 'grid company not configured: set METERING_TOKEN or GRID_COMPANY_GLN',
        }),
        config: { priceArea: 'DK1' },
      });
    await expect(service(false).grid(undefined)).rejects.toMatchObject({
      kind: 'conflict',
      detail:
        "the all-in price needs the household's charges: grid company not configured: set METERING_TOKEN or GRID_COMPANY_GLN",
    });
    await expect(service(true).grid(undefined)).rejects.toMatchObject({
      kind: 'unavailable',
      retryAfterS: 60,
    });
    // the feed-in price needs no consumption charges
    expect((await service(false).feedIn(undefined)).length).toBeGreaterThan(0);
  });

  it('refuses bad input with a 400 naming the parameter', async () => {
    for (const path of ['/api/evcc/grid', '/api/evcc/feedin', '/api/evcc/co2']) {
      const res = await app.call('GET', `${path}?area=SE3`);
      expect(res.statusCode, path).toBe(400);
      expect(res.json<{ detail: string }>().detail).toMatch(/^querystring\.area/);
    }
  });
});
