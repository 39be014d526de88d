import { Big } from 'big.js';
import type { Co2Day } from '../power/co2/schemas.js';
import type { ConsumerPrices } from '../power/costs/schemas.js';
import type { PricesDay } from '../power/prices/schemas.js';

/**
 * A day sensor's attributes in the shape the Nord Pool and Energi Data Service integrations give
 * theirs, so that EV Smart Charging, ApexCharts recipes and automations written for them read
 * satwatt's unchanged: `raw_today`/`raw_tomorrow` as `[{start, end, value}]`, `today`/`tomorrow`
 * as lists of values, `tomorrow_valid`, and `min`, `max`, `mean` of today.
 *
 * Home Assistant's recorder drops a state's attributes over 16384 bytes. Two days of quarter
 * hours (196 intervals around the autumn change) fit only in compact form: times in UTC to the
 * minute (`2026-10-25T01:00Z`, ISO 8601, 17 characters against 25 with seconds and the Danish
 * offset) and values rounded to `decimals`.
 */

export const HA_ATTRIBUTES_LIMIT = 16_384;

export interface Interval {
  start: number;
  end: number;
  value: Big | null;
}

export interface DayIntervals {
  intervals: Interval[];
  /** Every interval of the day is there, with a value. */
  complete: boolean;
}

const NONE: DayIntervals = { intervals: [], complete: false };

/** An instant as ISO 8601 in UTC to the minute: every interval starts on a whole minute. */
export const utcMinute = (t: number): string => `${new Date(t).toISOString().slice(0, 16)}Z`;

const intervals = <T>(
  items: T[],
  start: (i: T) => string,
  minutes: (i: T) => number,
  value: (i: T) => Big | null,
) =>
  items.map((i) => {
    const t = Date.parse(start(i));
    return { start: t, end: t + minutes(i) * 60_000, value: value(i) };
  });

/** Spot prices, DKK/kWh (the API's DKK/MWh with the decimal point shifted). */
export function spotDay(day: PricesDay | null): DayIntervals {
  if (!day) return NONE;
  const list = intervals(
    day.items,
    (i) => i.time_dk,
    (i) => i.resolution_minutes,
    (i) => new Big(i.price_dkk).div(1000),
  );
  return { intervals: list, complete: day.complete && list.length > 0 };
}

/** Consumer prices incl. VAT, DKK/kWh, null where a charge is missing. */
export function consumerDay(day: ConsumerPrices | null): DayIntervals {
  return day ? resolvedDay(day, (i) => (i.total === null ? null : new Big(i.total))) : NONE;
}

/** CO₂ intensity, g/kWh, realized or forecast; intervals without all their values are absent. */
export function co2Day(day: Co2Day | null): DayIntervals {
  return day ? resolvedDay(day, (i) => new Big(i.g_kwh)) : NONE;
}

/** A day whose intervals all have the day's resolution. */
function resolvedDay<I extends { time_dk: string }>(
  day: { resolution: string; complete: boolean; items: I[] },
  value: (i: I) => Big | null,
): DayIntervals {
  const minutes = day.resolution === 'quarter' ? 15 : 60;
  const list = intervals(
    day.items,
    (i) => i.time_dk,
    () => minutes,
    value,
  );
  return { intervals: list, complete: day.complete && list.length > 0 };
}

/** The attributes' JSON; values rounded half away from zero to `decimals`. */
export function dayAttributes(today: DayIntervals, tomorrow: DayIntervals, decimals: number): string {
  const round = (v: Big | null) => (v === null ? null : Number(v.round(decimals, Big.roundHalfUp).toFixed()));
  const raw = (d: DayIntervals) =>
    d.intervals.map((i) => ({ start: utcMinute(i.start), end: utcMinute(i.end), value: round(i.value) }));
  const known = today.intervals.flatMap((i) => (i.value === null ? [] : [i.value]));
  const sum = known.reduce((a, v) => a.plus(v), new Big(0));
  const pick = (better: (a: Big, b: Big) => boolean) =>
    known.length === 0 ? null : round(known.reduce((a, v) => (better(v, a) ? v : a)));
  const rawToday = raw(today);
  const rawTomorrow = raw(tomorrow);
  return JSON.stringify({
    raw_today: rawToday,
    raw_tomorrow: rawTomorrow,
    today: rawToday.map((i) => i.value),
    tomorrow: rawTomorrow.map((i) => i.value),
    tomorrow_valid: tomorrow.complete,
    min: pick((a, b) => a.lt(b)),
    max: pick((a, b) => a.gt(b)),
    mean: known.length === 0 ? null : round(sum.div(known.length)),
  });
}
