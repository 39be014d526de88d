import { afterEach, describe, expect, it, vi } from 'vitest';
import { hoursOf, quartersOf } from '../../../../test/support/danish-days.js';
import {
  fetchJson,
  loadDays,
  RetryLater,
  shapeDay,
  type ConsumerAnswer,
  type ElpriceAnswer,
} from './data.js';
import { basisOf, noticesOf, stepsOf, valueOf, windowOf } from './view.js';

const DATE = '2026-03-28';

function elprice(date: string, price = (i: number) => 400 + i * 10): ElpriceAnswer {
  const hours = hoursOf(date);
  return {
    date,
    complete: true,
    hours: hours.length,
    items: hours.flatMap((h, i) => [
      { time_dk: h.time_dk, price_area: 'DK1', price_dkk: price(i) },
      { time_dk: h.time_dk, price_area: 'DK2', price_dkk: price(i) + 37.5 },
    ]),
  };
}

const quarters = (date: string) => ({
  items: quartersOf(date).map((q, i) => ({ time_dk: q.time_dk, resolution_minutes: 15, price_dkk: 400 + i })),
});

/** Consumer prices whose parts are given in DKK/kWh; `grid` null as without a grid company. */
function consumer(date: string, grid: number | null, missingFrom = Infinity): ConsumerAnswer {
  return {
    items: hoursOf(date).map((h, i) => {
      const spot = 0.4 + i * 0.01;
      const known = i < missingFrom && grid !== null;
      return {
        time_dk: h.time_dk,
        spot,
        grid_tariff: i < missingFrom ? grid : null,
        transmission_tariff: 0.043,
        system_tariff: 0.072,
        electricity_tax: 0.008,
        supplier_markup: 0,
        vat: known ? 0.25 * (spot + grid + 0.123) : null,
        total: known ? 1.25 * (spot + grid + 0.123) : null,
      };
    }),
  };
}

describe('shaping a day for the page', () => {
  it('converts DKK/MWh and DKK/kWh to øre/kWh and keeps only the area asked for', () => {
    const day = shapeDay('DK2', elprice(DATE), quarters(DATE), consumer(DATE, 0.3), null);
    expect(day.hours).toHaveLength(24);
    expect(day.hours[0]).toMatchObject({ time_dk: '2026-03-28T00:00:00+01:00', spot: 43.75 });
    expect(day.hours[0]!.start).toBe(Date.parse('2026-03-27T23:00:00Z'));
    expect(day.hours[0]!.total).toBeCloseTo(1.25 * (0.4 + 0.3 + 0.123) * 100, 9);
    expect(day.hours[0]!.parts!.grid_tariff).toBeCloseTo(30, 9);
    expect(day.quarters[1]).toMatchObject({ minutes: 15, spot: 40.1 });
    expect(day).toMatchObject({
      date: DATE,
      complete: true,
      expected: 24,
      allIn: 'complete',
      gridMissing: false,
    });
  });

  it('without a grid company (null tariffs) shows spot in the all-in view and says the grid company is needed', () => {
    const day = shapeDay('DK1', elprice(DATE), quarters(DATE), consumer(DATE, null), null);
    expect(day).toMatchObject({ allIn: 'none', gridMissing: true });
    expect(day.hours.every((h) => h.total === null && h.parts!.grid_tariff === null)).toBe(true);
    expect(basisOf(day, 'total')).toBe('spot');
    expect(day.hours.map((h) => valueOf(h, basisOf(day, 'total')))).toEqual(day.hours.map((h) => h.spot));
    expect(noticesOf(day, 'total')).toEqual([{ key: 'needsGrid' }]);
    expect(noticesOf(day, 'spot')).toEqual([]);
    expect(windowOf(day, basisOf(day, 'total'))).toMatchObject({ basis: 'spot', from: '00:00' });
  });

  it('tolerates consumer prices without any part at all, and an answer that lacks them', () => {
    const bare = { items: hoursOf(DATE).map((h) => ({ time_dk: h.time_dk, total: null })) };
    const day = shapeDay('DK1', elprice(DATE), null, bare, null);
    expect(day.hours[0]!.parts).toMatchObject({ spot: null, grid_tariff: null, vat: null });
    expect(noticesOf(day, 'total')).toEqual([{ key: 'needsGrid' }]);
    const none = shapeDay('DK1', elprice(DATE), null, null, null);
    expect(none).toMatchObject({ allIn: 'none', gridMissing: true, quarters: [] });
    expect(none.hours[0]!.parts).toBeNull();
    // without quarters the chart steps by the hour
    expect(stepsOf(none, 'spot')[0]).toMatchObject({ minutes: 60, v: 40 });
  });

  it('says which hours lack an all-in price when only some do, and keeps the all-in view', () => {
    const day = shapeDay('DK1', elprice(DATE), quarters(DATE), consumer(DATE, 0.3, 20), null);
    expect(day.allIn).toBe('partial');
    expect(basisOf(day, 'total')).toBe('total');
    expect(noticesOf(day, 'total')).toEqual([{ key: 'partsMissing' }]);
    expect(
      stepsOf(day, 'total')
        .slice(19, 21)
        .map((s) => s.v === null),
    ).toEqual([false, true]);
  });

  it('ranks the spot view on spot and the all-in view as /api/cheapest did', () => {
    const api = {
      start_dk: '2026-03-28T10:00:00+01:00',
      end_dk: '2026-03-28T13:00:00+01:00',
      average_dkk_kwh: 1.5,
      basis: 'total' as const,
    };
    // spot falls through the day: its cheapest hours are the last three
    const day = shapeDay(
      'DK1',
      elprice(DATE, (i) => 1000 - i * 10),
      quarters(DATE),
      consumer(DATE, 0.3),
      api,
    );
    expect(windowOf(day, 'spot')).toMatchObject({ from: '21:00', to: '00:00', basis: 'spot', average: 78 });
    expect(windowOf(day, 'total')).toMatchObject({
      from: '10:00',
      to: '13:00',
      basis: 'total',
      average: 150,
    });
  });

  it('says a day is incomplete with how many hours are published', () => {
    const half = elprice(DATE);
    half.complete = false;
    half.items = half.items.slice(0, 24);
    expect(noticesOf(shapeDay('DK1', half, null, null, null), 'spot')).toEqual([
      { key: 'incomplete', n: 12, of: 24 },
    ]);
  });
});

describe('loading today and tomorrow', () => {
  const TOMORROW = '2026-03-29';
  function api(fail: (url: string) => boolean = () => false) {
    const asked: string[] = [];
    const get = (url: string): Promise<unknown> => {
      asked.push(url);
      if (fail(url)) return Promise.reject(new Error(`refused ${url}`));
      const date = /date=([\d-]+)/.exec(url)?.[1] ?? DATE;
      if (url.startsWith('/api/elprice')) return Promise.resolve(elprice(date));
      if (url.startsWith('/api/prices')) return Promise.resolve(quarters(date));
      if (url.startsWith('/api/consumer-prices')) return Promise.resolve(consumer(date, 0.3));
      return Promise.reject(new Error('404 no window'));
    };
    return { asked, get };
  }

  it("asks for today's prices first, then the rest of both days at once, tomorrow's window and the one from now last", async () => {
    const { asked, get } = api();
    // 13:05 in Denmark: the 3 hours from now fit in what is published
    const days = await loadDays('DK1', get, () => Date.parse(`${DATE}T13:05:00+01:00`));
    expect(asked[0]).toBe('/api/elprice');
    expect(asked.slice(1, 7).sort()).toEqual(
      [
        `/api/cheapest?area=DK1&date=${DATE}&hours=3`,
        `/api/consumer-prices?area=DK1&date=${DATE}`,
        `/api/consumer-prices?area=DK1&date=${TOMORROW}`,
        `/api/elprice?date=${TOMORROW}`,
        `/api/prices?area=DK1&date=${DATE}`,
        `/api/prices?area=DK1&date=${TOMORROW}`,
      ].sort(),
    );
    expect(asked.slice(7).sort()).toEqual([
      `/api/cheapest?area=DK1&date=${TOMORROW}&hours=3`,
      '/api/cheapest?minutes=180&area=DK1',
    ]);
    expect(days.next).toBeNull();
    expect(days.today.hours).toHaveLength(24);
    expect(days.tomorrow!.hours).toHaveLength(23);
    expect(days.today.cheapestAllIn).toBeNull();
    expect(days.tomorrowError).toBeNull();
  });

  it('gives the window from now with the Danish day it starts on', async () => {
    const { get } = api();
    const window = {
      area: 'DK1',
      minutes: 180,
      start_dk: `${TOMORROW}T01:15:00+01:00`,
      end_dk: `${TOMORROW}T04:15:00+02:00`,
      average_dkk_kwh: 0.61,
      basis: 'total',
    };
    const withWindow = (url: string) =>
      url.startsWith('/api/cheapest?minutes=') ? Promise.resolve(window) : get(url);
    const days = await loadDays('DK1', withWindow, () => Date.parse(`${DATE}T18:20:00+01:00`));
    expect(days.next).toMatchObject({
      date: TOMORROW,
      from: '01:15',
      to: '04:15',
      average: 61,
      basis: 'total',
    });
  });

  it('asks for no window from now while less than its 3 hours are published after now', async () => {
    const { asked, get } = api();
    const unpublished = async (url: string) => {
      const answer = await get(url);
      return url.includes(TOMORROW) && url.startsWith('/api/elprice')
        ? { ...(answer as object), items: [] }
        : answer;
    };
    // 21:05: the next quarter hour starts at 21:15, 2 h 45 min before the end of today
    await loadDays('DK1', unpublished, () => Date.parse(`${DATE}T21:05:00+01:00`));
    expect(asked.filter((u) => u.includes('minutes='))).toEqual([]);
    asked.length = 0;
    await loadDays('DK1', unpublished, () => Date.parse(`${DATE}T21:00:00+01:00`));
    expect(asked.filter((u) => u.includes('minutes='))).toEqual(['/api/cheapest?minutes=180&area=DK1']);
  });

  it('asks for no cheapest hours of a day not published yet (its 404 would be a console error)', async () => {
    const { asked, get } = api();
    const unpublished = async (url: string) => {
      const answer = await get(url);
      return url.includes(TOMORROW) && url.startsWith('/api/elprice')
        ? { ...(answer as object), items: [] }
        : answer;
    };
    const days = await loadDays('DK1', unpublished);
    expect(days.tomorrow!.hours).toEqual([]);
    expect(asked.filter((u) => u.startsWith('/api/cheapest'))).toEqual([
      `/api/cheapest?area=DK1&date=${DATE}&hours=3`,
    ]);
  });

  it("shows today when tomorrow fails, and today's spot when its consumer prices fail", async () => {
    const { get } = api((url) => url.includes(TOMORROW) || url.startsWith('/api/consumer-prices'));
    const days = await loadDays('DK1', get);
    expect(days.tomorrow).toBeNull();
    expect(days.tomorrowDate).toBe(TOMORROW);
    expect(days.tomorrowError).toMatch(/^refused \/api\/(elprice|prices)/);
    expect(days.today.allIn).toBe('none');
  });

  it('fails as a whole when today cannot be loaded', async () => {
    await expect(loadDays('DK1', api((url) => url === '/api/elprice').get)).rejects.toThrow(
      'refused /api/elprice',
    );
  });
});

describe('fetchJson', () => {
  afterEach(() => vi.unstubAllGlobals());
  const answer = (status: number, headers: Record<string, string> = {}) =>
    vi.stubGlobal('fetch', async () =>
      Response.json({ detail: "the household's charges are loading" }, { status, headers }),
    );

  it('says when to ask again for a 503 with Retry-After (the charges of a first start loading)', async () => {
    answer(503, { 'retry-after': '5' });
    const e = await fetchJson('/api/elprice').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetryLater);
    expect(e).toMatchObject({ seconds: 5, message: "the household's charges are loading" });
  });

  it('is a plain failure without Retry-After, or for another status', async () => {
    for (const [status, headers] of [
      [503, {}],
      [502, { 'retry-after': '5' }],
    ] as const) {
      answer(status, headers);
      const e = await fetchJson('/api/elprice').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect(e).not.toBeInstanceOf(RetryLater);
    }
  });
});
