import { sql } from 'kysely';
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
import type { GreenestWindow } from './schemas.js';
import { WindowService } from './service.js';

let fake: FakeEnergiDataService;
let app: TestApp;

/** 5-minute values of both areas from `from` (inclusive) to `to` (exclusive), each `value(t)`. */
const rows = (from: string, to: string, value: (t: Date) => number): Co2Row[] => {
  const out: Co2Row[] = [];
  for (let t = Date.parse(from); t < Date.parse(to); t += 300_000)
    for (const area of ['DK1', 'DK2'] as const)
      out.push({ timeUtc: new Date(t), area, gKwh: String(value(new Date(t))) });
  return out;
};
const between = (t: Date, from: string, to: string) =>
  t.getTime() >= Date.parse(from) && t.getTime() < Date.parse(to);

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  app = await startTestApp({
    env: { GRID_COMPANY_GLN: RADIUS_GLN, PRICE_FEED_URL: fake.url },
    now: '2026-01-15T09:00:00Z',
  });
  fake.co2.now = () => app.clock.now();
  const db = app.ctx.database.db;
  await upsertRealized(
    db,
    new Date('2026-01-15T09:00:00Z'),
    rows('2026-01-15T07:00:00Z', '2026-01-15T09:00:00Z', () => 300),
  );
  // the first issue: 200, with a dip at 14:00-14:30 Danish time (50) and one across midnight (40)
  await insertForecast(
    db,
    new Date('2026-01-15T08:55:00Z'),
    rows('2026-01-15T09:00:00Z', '2026-01-16T08:00:00Z', (t) =>
      between(t, '2026-01-15T13:00:00Z', '2026-01-15T13:30:00Z')
        ? 50
        : between(t, '2026-01-15T22:45:00Z', '2026-01-15T23:15:00Z')
          ? 40
          : between(t, '2026-01-16T05:00:00Z', '2026-01-16T05:15:00Z')
            ? [100, 100, 101][(t.getUTCMinutes() / 5) % 3]!
            : 200,
    ),
  );
  // a later issue lowers the afternoon dip to 30
  await insertForecast(
    db,
    new Date('2026-01-15T08:58:00Z'),
    rows('2026-01-15T13:00:00Z', '2026-01-15T13:30:00Z', () => 30),
  );
});
afterAll(async () => {
  await app.close();
  await fake.close();
});

const greenest = async (query: string) => {
  const res = await app.call('GET', `/api/greenest?${query}`);
  expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
  return res.json<GreenestWindow>();
};

describe('GET /api/greenest', () => {
  it('finds the run with the lowest CO₂ intensity on the latest issue of the prognosis', async () => {
    expect(await greenest('minutes=30')).toEqual({
      area: 'DK1',
      minutes: 30,
      start_dk: '2026-01-15T14:00:00+01:00',
      end_dk: '2026-01-15T14:30:00+01:00',
      average_g_kwh: 30,
      kind: 'forecast',
    });
    // after the afternoon: the dip across midnight
    expect(await greenest('minutes=30&after=2026-01-15T15:00&area=dk2')).toMatchObject({
      area: 'DK2',
      start_dk: '2026-01-15T23:45:00+01:00',
      end_dk: '2026-01-16T00:15:00+01:00',
      average_g_kwh: 40,
    });
  });

  it('says realized only where every value of the window is realized, and rounds the mean to 2 decimals', async () => {
    expect(await greenest('minutes=30&after=2026-01-15T08:00&before=2026-01-15T09:00')).toMatchObject({
      average_g_kwh: 300,
      kind: 'realized',
    });
    expect(await greenest('minutes=30&after=2026-01-15T09:45&before=2026-01-15T10:15')).toMatchObject({
      start_dk: '2026-01-15T09:45:00+01:00',
      average_g_kwh: 250,
      kind: 'forecast',
    });
    // 100, 100 and 101: 100.333… is 100.33
    expect(await greenest('minutes=15&after=2026-01-16T06:00&before=2026-01-16T06:15')).toMatchObject({
      average_g_kwh: 100.33,
    });
  });

  it('fetches the realized values of a past day it has not stored', async () => {
    fake.server.requests.length = 0;
    const w = await greenest('minutes=60&after=2026-01-10T00:00&before=2026-01-10T06:00');
    expect(w.kind).toBe('realized');
    expect(fake.co2Requests('CO2Emis')).toHaveLength(1);
  });

  it('says plainly that no window fits: 404, and refuses bad input naming the parameter', async () => {
    const none = await app.call(
      'GET',
      '/api/greenest?minutes=60&after=2026-01-17T00:00&before=2026-01-17T12:00',
    );
    expect(none.statusCode).toBe(404);
    expect(none.json<{ detail: string }>().detail).toBe(
      'no 60 minutes of consecutive quarter hours with CO₂ values for DK1 from 2026-01-17T00:00:00+01:00 to 2026-01-17T12:00:00+01:00 (0 quarter hours have values)',
    );
    for (const [query, field] of [
      ['', 'querystring.minutes'],
      ['minutes=10', 'querystring.minutes'],
      ['minutes=Infinity', 'querystring.minutes'],
      ['minutes=60&after=yesterday', 'querystring.after'],
      ['minutes=60&after=2026-01-15T12:00&before=2026-01-15T11:00', 'querystring.before'],
      ['minutes=60&hours=2', 'querystring'],
    ]) {
      const res = await app.call('GET', `/api/greenest?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ detail: string }>().detail, query).toContain(field);
    }
  });
});

describe('the cheapest window kept in memory', () => {
  it('answers a window over complete days from memory until the charges change, and never one over an incomplete day', async () => {
    fake.tariffs = radiusTariffRecords();
    await refreshCharges(app, fake);
    await storeDay(app, '2026-02-20', (h) => (h === 10 ? '100' : '500'));
    const prices = {
      chargesVersion: 0,
      elprice: () => Promise.resolve({ json: Buffer.alloc(0), complete: true }),
    };
    const windows = new WindowService({
      db: app.ctx.database.db,
      clock: app.clock,
      prices,
      co2: { quarters: () => Promise.resolve([]), needCurrent: () => Promise.resolve() },
      config: app.ctx.config,
    });
    const q = { minutes: 60, after: '2026-02-20T00:00', before: '2026-02-21T00:00', area: 'DK1' };
    const first = JSON.parse((await windows.cheapest(q)).toString()) as { start_dk: string };
    expect(first.start_dk).toBe('2026-02-20T10:00:00+01:00');
    expect(windows.cachedCheapest(q)?.toString()).toBe(JSON.stringify(first));
    // the 10:00 hour's grid tariff rises by 5 DKK/kWh: the stored answer holds until the charges' version moves
    await sql`update power.elprices set tariff_dkk = tariff_dkk + 5000
               where time_dk = '2026-02-20T09:00:00Z'`.execute(app.ctx.database.db);
    expect(windows.cachedCheapest(q)?.toString()).toBe(JSON.stringify(first));
    prices.chargesVersion++;
    expect(windows.cachedCheapest(q)).toBeUndefined();
    const second = JSON.parse((await windows.cheapest(q)).toString()) as { start_dk: string };
    expect(second.start_dk).toBe('2026-02-20T00:00:00+01:00');

    // half a day stored: answered, never kept
    await storeDay(app, '2026-02-22', (h) => (h < 12 ? '500' : '100'));
    await sql`delete from power.prices where time_dk >= '2026-02-22T11:00:00Z' and time_dk < '2026-02-22T23:00:00Z'`.execute(
      app.ctx.database.db,
    );
    const half = { minutes: 60, after: '2026-02-22T00:00', before: '2026-02-23T00:00', area: 'DK1' };
    expect(JSON.parse((await windows.cheapest(half)).toString())).toMatchObject({
      start_dk: '2026-02-22T00:00:00+01:00',
    });
    expect(windows.cachedCheapest(half)).toBeUndefined();
  });
});
