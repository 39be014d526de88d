import { describe, expect, it } from 'vitest';
import type { ConsumerPrices, Costs } from '../power/costs/schemas.js';
import type { PricesDay } from '../power/prices/schemas.js';
import { danishDaySteps, toDanishIso } from '../shared/danish-time.js';
import * as S from './states.js';

/** A day as /api/prices answers it for one area: `price(i)` DKK/MWh for the i-th interval. */
function pricesDay(date: string, step: 15 | 60, price: (i: number) => number): PricesDay {
  return {
    date,
    area: 'DK1',
    complete: true,
    items: danishDaySteps(date, step).map((t, i) => ({
      time_dk: toDanishIso(t),
      price_area: 'DK1',
      resolution_minutes: step,
      price_dkk: price(i),
      price_eur: null,
    })),
  };
}

function consumerDay(
  date: string,
  total: (i: number) => number | null,
  resolution: 'hour' | 'quarter' = 'hour',
): ConsumerPrices {
  return {
    date,
    area: 'DK1',
    resolution,
    complete: true,
    configured: false,
    grid_company: null,
    note: null,
    items: danishDaySteps(date, resolution === 'hour' ? 60 : 15).map((t, i) => ({
      time_dk: toDanishIso(t),
      spot: 0.5,
      grid_tariff: null,
      transmission_tariff: null,
      system_tariff: null,
      other_tariffs: 0,
      electricity_tax: null,
      supplier_markup: 0,
      vat: null,
      total: total(i),
    })),
  };
}

describe('the spot price now', () => {
  const day = pricesDay('2026-07-03', 15, (i) => 400 + i + 0.123457);

  it('is the quarter hour in force, in DKK/kWh to the last decimal', () => {
    // 12:07:30 Danish summer time: the 49th quarter (12:00–12:15)
    expect(S.spotNow(day, new Date('2026-07-03T10:07:30Z'))).toBe('0.448123457');
    expect(S.spotNow(day, new Date('2026-07-03T10:15:00Z'))).toBe('0.449123457');
    expect(S.spotNow(day, new Date('2026-07-03T10:14:59.999Z'))).toBe('0.448123457');
    expect(S.spotNow(day, new Date('2026-07-02T21:59:59Z'))).toBe('None');
    expect(S.spotNow(null, new Date('2026-07-03T10:07:30Z'))).toBe('None');
  });

  it('is exact for negative and long prices, and the hour before quarter-hour prices', () => {
    const odd = pricesDay('2025-09-30', 60, (i) => (i === 0 ? -12.5 : 4000.000001));
    expect(S.spotNow(odd, new Date('2025-09-29T22:30:00Z'))).toBe('-0.0125');
    expect(S.spotNow(odd, new Date('2025-09-29T23:59:00Z'))).toBe('4.000000001');
  });

  it('tells the two 02:00 hours of the autumn change apart (a 25-hour day)', () => {
    const autumn = pricesDay('2026-10-25', 15, (i) => i * 10);
    expect(autumn.items).toHaveLength(100);
    expect(S.spotNow(autumn, new Date('2026-10-25T00:30:00Z'))).toBe('0.1'); // 02:30+02:00, quarter 10
    expect(S.spotNow(autumn, new Date('2026-10-25T01:30:00Z'))).toBe('0.14'); // 02:30+01:00, quarter 14
    const spring = pricesDay('2026-03-29', 15, (i) => i * 10);
    expect(spring.items).toHaveLength(92);
    expect(S.spotNow(spring, new Date('2026-03-29T01:00:00Z'))).toBe('0.08'); // 03:00+02:00 follows 01:45
  });
});

describe('the other states', () => {
  it('take the consumer price of the hour, unknown when a charge is missing', () => {
    const day = consumerDay('2026-07-03', (i) => (i === 13 ? null : 1 + i / 100));
    expect(S.consumerNow(day, new Date('2026-07-03T10:59:59Z'))).toBe('1.12');
    expect(S.consumerNow(day, new Date('2026-07-03T11:00:00Z'))).toBe('None');
  });

  it('take the consumer price of the quarter hour when the day is in quarters', () => {
    const day = consumerDay('2026-07-03', (i) => 1 + i / 1000, 'quarter');
    // 12:07:30 Danish summer time: the 49th quarter (index 48)
    expect(S.consumerNow(day, new Date('2026-07-03T10:07:30Z'))).toBe('1.048');
    expect(S.consumerNow(day, new Date('2026-07-03T10:15:00Z'))).toBe('1.049');
  });

  it('publish tomorrow only when the whole day is there', () => {
    const full = pricesDay('2026-07-04', 15, () => 1);
    expect(S.publishedState(full)).toBe('ON');
    expect(S.publishedState({ ...full, complete: false })).toBe('OFF');
    expect(S.publishedState({ ...full, items: [] })).toBe('OFF');
    expect(S.publishedState(null)).toBe('OFF');
  });

  it('write what is not known as None, the API’s numbers as JSON writes them', () => {
    expect(S.btcStates(null)).toEqual({ eur: 'None', dkk: 'None', usd: 'None' });
    expect(S.btcStates({ at: '', btc_eur: 61234.5, btc_dkk: null, btc_usd: 1e21, rates: null })).toEqual({
      eur: '61234.5',
      dkk: 'None',
      usd: '1e+21',
    });
    expect(S.cheapestStates(null)).toEqual({ start: 'None', price: 'None' });
    expect(
      S.cheapestStates({
        area: 'DK1',
        hours: 3,
        start_dk: '2026-07-03T13:00:00+02:00',
        end_dk: '2026-07-03T16:00:00+02:00',
        average_dkk_kwh: 0.8123,
        basis: 'total',
      }),
    ).toEqual({ start: '2026-07-03T13:00:00+02:00', price: '0.8123' });
    expect(S.portfolioStates(null)).toEqual({ value: 'None', sats: 'None', pnl: 'None' });
    expect(S.problemState(true)).toBe('OFF');
    expect(S.problemState(false)).toBe('ON');
  });

  it('give a cost its last reset beside the value, for value_template', () => {
    expect(JSON.parse(S.costState(null, '2026-07-01T00:00:00+02:00'))).toEqual({
      value: null,
      last_reset: '2026-07-01T00:00:00+02:00',
    });
  });

  const costDay = (date: string, complete: boolean, cost: number | null): Costs['days'][number] => ({
    date,
    complete,
    consumption_kwh: cost === null ? null : 2.25,
    cost_dkk: cost,
    production_kwh: cost === null ? null : 0,
    sold_value_dkk: cost === null ? null : 0,
    hours: cost === null ? 0 : 24,
    hours_priced: cost === null ? 0 : 24,
    self_consumed_kwh: null,
    self_consumption_value_dkk: null,
  });
  const costsOf = (from: string, to: string, days: Costs['days']): Costs => ({
    from,
    to,
    area: 'DK1',
    days,
    total: {
      complete: days.every((d) => d.complete),
      missing_days: days.filter((d) => !d.complete).map((d) => d.date),
      consumption_kwh: 4.5,
      cost_dkk: days.reduce((s, d) => s + (d.cost_dkk ?? 0), 0),
      production_kwh: 0,
      sold_value_dkk: 0,
      hours: 48,
      hours_priced: 48,
      self_consumed_kwh: null,
      self_consumption_value_dkk: null,
    },
  });

  it('give the last metered day its cost and its date, and unknown (never 0) without one', () => {
    const day = S.lastDayCost(
      costsOf('2026-07-01', '2026-07-01', [costDay('2026-07-01', true, 3.2)]),
      '2026-07-01T00:00:00+02:00',
    );
    expect(JSON.parse(day.state)).toEqual({ value: 3.2, last_reset: '2026-07-01T00:00:00+02:00' });
    expect(JSON.parse(day.attributes)).toEqual({ date: '2026-07-01', consumption_kwh: 2.25 });
    const none = S.lastDayCost(null, null);
    expect(JSON.parse(none.state)).toEqual({ value: null, last_reset: null });
    expect(JSON.parse(none.attributes)).toEqual({ date: null, consumption_kwh: null });
    // a day metered whole whose intervals are not all priced is no figure either
    const unpriced = S.lastDayCost(
      costsOf('2026-07-01', '2026-07-01', [costDay('2026-07-01', false, 1.1)]),
      '2026-07-01T00:00:00+02:00',
    );
    expect(JSON.parse(unpriced.state).value).toBeNull();
  });

  it('give the month its cost through its last metered day, naming the days it leaves out', () => {
    const month = S.monthCost(
      costsOf('2026-07-01', '2026-07-03', [
        costDay('2026-07-01', true, 3.2),
        costDay('2026-07-02', false, null),
        costDay('2026-07-03', true, 1),
      ]),
      '2026-07-01T00:00:00+02:00',
      '2026-07-01',
    );
    expect(JSON.parse(month.state)).toEqual({ value: 4.2, last_reset: '2026-07-01T00:00:00+02:00' });
    expect(JSON.parse(month.attributes)).toEqual({
      from: '2026-07-01',
      through: '2026-07-03',
      complete: false,
      missing_days: ['2026-07-02'],
    });
    const before = S.monthCost(null, '2026-07-01T00:00:00+02:00', '2026-07-01');
    expect(JSON.parse(before.state).value).toBeNull();
    expect(JSON.parse(before.attributes)).toMatchObject({ through: null, missing_days: [] });
  });
});
