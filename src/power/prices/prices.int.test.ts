import Big from 'big.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FakeEnergiDataService,
  RADIUS_GLN,
  radiusTariffRecords,
} from '../../../test/fakes/energidataservice.js';
import { refreshCharges } from '../../../test/support/costs.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';

interface ElpriceItem {
  time_dk: string;
  price_area: string;
  price_dkk: number;
  tariff_dkk: number | null;
  total_dkk: number | null;
}
interface ElpriceDay {
  date: string;
  complete: boolean;
  hours: number;
  items: ElpriceItem[];
}

let fake: FakeEnergiDataService;
let app: TestApp;

beforeAll(async () => {
  fake = await FakeEnergiDataService.start();
  app = await startTestApp({
    env: { PRICE_FEED_URL: fake.url, GRID_COMPANY_GLN: RADIUS_GLN },
    now: '2026-07-03T10:00:00Z',
    // this file reads many days in a few seconds; the budget has tests of its own
    budgetLimits: { energidataservice: { calls: 1000, perMs: 10_000, source: 'test' } },
  });
  fake.tariffs = radiusTariffRecords();
  await refreshCharges(app, fake);
});
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => {
  fake.server.heal();
  fake.publication.clear();
  fake.variant = 0;
});

const elprice = async (date: string) => {
  const res = await app.call('GET', `/api/elprice?date=${date}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ElpriceDay>();
};
const perArea = (day: ElpriceDay, area: string) => day.items.filter((i) => i.price_area === area);

describe('GET /api/elprice on the daylight-saving change days', () => {
  it.each([
    ['2024-03-31', 23],
    ['2024-10-27', 25],
    ['2025-03-30', 23],
    ['2025-10-26', 25],
    ['2026-03-29', 23],
    ['2026-10-25', 25],
    ['2026-07-01', 24],
  ])('%s has %i hourly items per area, in order, with distinct Danish instants', async (date, hours) => {
    app.clock.set(`${date}T10:00:00Z`);
    const day = await elprice(date);
    expect(day.complete).toBe(true);
    expect(day.hours).toBe(hours);
    for (const area of ['DK1', 'DK2']) {
      const items = perArea(day, area);
      expect(items).toHaveLength(hours);
      expect(new Set(items.map((i) => Date.parse(i.time_dk))).size).toBe(hours);
    }
    const order = day.items.map((i) => `${Date.parse(i.time_dk)}|${i.price_area}`);
    expect(order).toEqual(
      [...order].sort((a, b) => Number(a.split('|')[0]) - Number(b.split('|')[0]) || a.localeCompare(b)),
    );
    expect(day.items[0]!.time_dk).toBe(`${date}T00:00:00${date.slice(5, 7) === '03' ? '+01:00' : '+02:00'}`);
  });

  it('2025-10-26 shows both 02:00 hours with their own offsets and the same wall-clock tariff', async () => {
    const dk1 = perArea(await elprice('2025-10-26'), 'DK1');
    const twos = dk1.filter((i) => i.time_dk.slice(11, 13) === '02');
    expect(twos.map((i) => i.time_dk)).toEqual(['2025-10-26T02:00:00+02:00', '2025-10-26T02:00:00+01:00']);
    // Radius winter 2025/26, lavlast 00-06: 9.76 øre/kWh = 97.6 DKK/MWh
    expect(twos.map((i) => i.tariff_dkk)).toEqual([97.6, 97.6]);
    const peak = dk1.find((i) => i.time_dk === '2025-10-26T18:00:00+01:00');
    expect(peak?.tariff_dkk).toBe(878.8);
  });

  it('totals equal price plus tariff to the øre', async () => {
    for (const date of ['2025-10-26', '2026-03-29', '2026-07-01']) {
      for (const i of (await elprice(date)).items) {
        expect(i.tariff_dkk).not.toBeNull();
        expect(Big(i.total_dkk!).minus(Big(i.price_dkk).plus(i.tariff_dkk!)).abs().lt('0.01')).toBe(true);
      }
    }
  });

  it('the hourly price of a quarter-hour day is the exact mean of its four quarters', async () => {
    const day = await elprice('2025-11-12');
    const quarters = (await app.call('GET', '/api/prices?date=2025-11-12&area=DK2')).json<{
      items: { time_dk: string; price_dkk: number; resolution_minutes: number }[];
    }>().items;
    expect(quarters).toHaveLength(96);
    for (const hour of perArea(day, 'DK2')) {
      const start = Date.parse(hour.time_dk);
      const mine = quarters.filter(
        (q) => Date.parse(q.time_dk) >= start && Date.parse(q.time_dk) < start + 3_600_000,
      );
      expect(mine).toHaveLength(4);
      const mean = mine.reduce((s, q) => s.plus(q.price_dkk), Big(0)).div(4);
      expect(Big(hour.price_dkk).eq(mean)).toBe(true);
    }
  });
});

describe('fetching on a miss', () => {
  it('coalesces concurrent misses into one provider request and serves the complete day from memory', async () => {
    const before = fake.priceRequests().length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => app.call('GET', '/api/elprice?date=2026-05-05')),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(fake.priceRequests().length - before).toBe(1);
    // The store and the provider are not asked again: a changed provider answer is not seen.
    fake.variant = 3;
    const again = await app.call('GET', '/api/elprice?date=2026-05-05');
    expect(again.body).toBe(answers[0]!.body);
    expect(again.headers['cache-control']).toContain('max-age');
    expect(fake.priceRequests().length - before).toBe(1);
  });

  it('asks for one date range and both areas in one request', async () => {
    await elprice('2026-05-06');
    const last = fake.priceRequests().at(-1)!;
    expect(last.path).toBe('/dataset/DayAheadPrices');
    expect(last.query.get('start')).toBe('2026-05-06');
    expect(last.query.get('end')).toBe('2026-05-07');
    expect(JSON.parse(last.query.get('filter')!)).toEqual({ PriceArea: ['DK1', 'DK2'] });
  });

  it('a half-published day says it is incomplete, is not cached, and completes later', async () => {
    app.clock.set('2026-07-03T12:00:00Z');
    fake.publication.set('2026-07-04', 'half');
    const half = await elprice('2026-07-04');
    expect(half.complete).toBe(false);
    expect(half.items.length).toBeGreaterThan(0);
    expect(half.items.length).toBeLessThan(48);
    fake.publication.set('2026-07-04', 'full');
    // Within the minute the provider is not asked again.
    expect((await elprice('2026-07-04')).complete).toBe(false);
    app.clock.advance(61_000);
    const full = await elprice('2026-07-04');
    expect(full.complete).toBe(true);
    expect(full.items).toHaveLength(48);
    // The quarters stored from the half day stayed untouched; the others were added.
    expect(full.items.slice(0, 4)).toEqual(half.items.slice(0, 4));
  });

  it('tomorrow not published yet: 200, empty, incomplete', async () => {
    app.clock.set('2026-07-03T09:00:00Z');
    fake.publication.set('2026-07-05', 'none');
    app.clock.set('2026-07-04T09:00:00Z');
    const day = await elprice('2026-07-05');
    expect(day).toMatchObject({ complete: false, hours: 24, items: [] });
  });

  it('provider down and nothing stored: 503 naming the provider; a 500 gives 502', async () => {
    fake.server.failAlways({ kind: 'status', status: 503 });
    const down = await app.call('GET', '/api/elprice?date=2026-02-02');
    expect(down.statusCode).toBe(503);
    expect(down.headers['content-type']).toContain('application/problem+json');
    expect(down.json<{ detail: string }>().detail).toContain('energidataservice');
    fake.server.failAlways({ kind: 'status', status: 500 });
    const bad = await app.call('GET', '/api/prices?date=2026-02-03');
    expect(bad.statusCode).toBe(502);
    expect(bad.json<{ detail: string }>().detail).toContain('energidataservice');
  });

  it('malformed JSON from the provider: 502 and nothing stored', async () => {
    fake.server.failAlways({ kind: 'malformed' });
    const res = await app.call('GET', '/api/elprice?date=2026-02-04');
    expect(res.statusCode).toBe(502);
    fake.server.heal();
    app.clock.advance(61_000);
    expect((await elprice('2026-02-04')).complete).toBe(true);
  });

  it('honours a 429 with Retry-After and then answers', async () => {
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    expect((await elprice('2026-02-05')).complete).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});

describe('input', () => {
  it.each(['2025-13-01', '2025-02-30', 'tomorrow', '2025-1-01'])('400 naming date for %s', async (date) => {
    const res = await app.call('GET', `/api/elprice?date=${date}`);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toContain('date');
  });

  it('400 naming area for an unknown area', async () => {
    const res = await app.call('GET', '/api/prices?date=2026-05-06&area=DK3');
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toContain('area');
  });

  it('date defaults to today in Denmark', async () => {
    app.clock.set('2026-07-03T22:30:00Z'); // 00:30 on 4 July in Denmark
    const res = await app.call('GET', '/api/elprice');
    expect(res.json<ElpriceDay>().date).toBe('2026-07-04');
  });
});

describe('area: one parameter, the same on every per-area route, in any letter case', () => {
  it('GET /api/elprice?area= answers the hours of that area only, both without it', async () => {
    const both = await elprice('2026-05-07');
    for (const area of ['DK1', 'dk2']) {
      const res = await app.call('GET', `/api/elprice?date=2026-05-07&area=${area}`);
      expect(res.statusCode, res.body).toBe(200);
      const one = res.json<ElpriceDay>();
      expect(one).toEqual({ ...both, items: perArea(both, area.toUpperCase()) });
      expect(one.items).toHaveLength(24);
      expect(one.complete).toBe(true);
    }
  });

  it('GET /api/elprice?area=&format=csv has the rows of that area', async () => {
    const res = await app.call('GET', '/api/elprice?date=2026-05-07&area=dk1&format=csv');
    expect(res.headers['content-disposition']).toBe('attachment; filename="elprice-2026-05-07-DK1.csv"');
    const rows = res.body.trimEnd().split('\r\n').slice(1);
    expect(rows).toHaveLength(24);
    expect(rows.every((r) => r.split(',')[1] === 'DK1')).toBe(true);
  });

  it.each(['/api/prices', '/api/elprice'])(
    '%s takes dk1 as DK1 and names both areas for DK3',
    async (path) => {
      const lower = await app.call('GET', `${path}?date=2026-05-07&area=dk1`);
      expect(lower.statusCode, lower.body).toBe(200);
      expect(lower.json<{ items: ElpriceItem[] }>().items.every((i) => i.price_area === 'DK1')).toBe(true);
      const res = await app.call('GET', `${path}?date=2026-05-07&area=DK3`);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ detail: string }>().detail).toBe('querystring.area: must be one of "DK1", "DK2"');
    },
  );

  it('/api/prices echoes the area as listed', async () => {
    const res = await app.call('GET', '/api/prices?date=2026-05-07&area=Dk2');
    expect(res.json<{ area: string }>().area).toBe('DK2');
  });
});

describe('GET /api/elprice?format=csv', () => {
  it('answers text/csv with the JSON field names and the same numbers, 25 hours per area', async () => {
    const json = await elprice('2025-10-26');
    const res = await app.call('GET', '/api/elprice?date=2025-10-26&format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('time_dk,price_area,price_dkk,tariff_dkk,total_dkk');
    expect(lines).toHaveLength(1 + 50);
    const first = json.items[0]!;
    expect(lines[1]).toBe(
      [first.time_dk, first.price_area, first.price_dkk, first.tariff_dkk, first.total_dkk].join(','),
    );
  });
});

describe('GET /api/elprice?format=csv&csv_locale=da', () => {
  it('answers the same rows for a Danish spreadsheet: ";" between fields, decimal commas', async () => {
    const json = await elprice('2025-10-26');
    const res = await app.call('GET', '/api/elprice?date=2025-10-26&format=csv&csv_locale=da');
    expect(res.statusCode).toBe(200);
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('\uFEFFtime_dk;price_area;price_dkk;tariff_dkk;total_dkk');
    expect(lines).toHaveLength(1 + 50);
    const comma = (n: number | null) => (n === null ? '' : String(n).replace('.', ','));
    json.items.forEach((i, k) =>
      expect(lines[k + 1]).toBe(
        [i.time_dk, i.price_area, comma(i.price_dkk), comma(i.tariff_dkk), comma(i.total_dkk)].join(';'),
      ),
    );
    expect(lines.some((l) => l.includes(','))).toBe(true);
  });
});

describe('quarter-hour rows', () => {
  it('GET /api/prices gives 92/100 quarters per area on the 2026 change days', async () => {
    for (const [date, n] of [
      ['2026-03-29', 92],
      ['2026-10-25', 100],
    ] as const) {
      app.clock.set(`${date}T10:00:00Z`);
      const res = await app.call('GET', `/api/prices?date=${date}&area=DK1`);
      const body = res.json<{ complete: boolean; items: { resolution_minutes: number }[] }>();
      expect(body.complete).toBe(true);
      expect(body.items).toHaveLength(n);
      expect(body.items.every((i) => i.resolution_minutes === 15)).toBe(true);
    }
  });
});
