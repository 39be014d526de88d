import Big from 'big.js';
import { Type } from 'typebox';
import { addDays } from '../shared/danish-time.js';
import { answer, malformed } from './answer.js';

/**
 * A Frankfurter v1 time series (`GET /v1/{start}..{end}`): `{amount, base, start_date,
 * end_date, rates: {"YYYY-MM-DD": {CUR: number}}}`, one entry per publication day (none for
 * weekends and holidays), the first being the latest publication on or before `start`.
 */
export interface V1Series {
  base: string;
  start_date: string;
  end_date: string;
  /** Publication day → currency → rate as exact decimal text, in date order. */
  rates: Map<string, Record<string, string>>;
}

/**
 * The most days one series call asks for. Frankfurter sampled ranges over a year weekly until
 * 2024; a year a call keeps every publication day in the answer whatever its version does.
 */
export const MAX_SERIES_DAYS = 366;

export const FRANKFURTER = 'frankfurter';

/** A day, YYYY-MM-DD, that is one in the calendar. */
export const Day = Type.Refine(
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', 'x-refused': 'is not YYYY-MM-DD' }),
  (v) => !Number.isNaN(Date.parse(v)),
  () => 'is not YYYY-MM-DD',
);
const isDay = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));
/** Currency → rate: a JSON number above 0, kept as the shortest decimal text it prints as. */
export const Rates = Type.Record(
  Type.String(),
  Type.Number({ exclusiveMinimum: 0, 'x-refused': 'is not a positive number' }),
);
export const Base = Type.String({ pattern: '^[A-Z]{3}$', 'x-refused': 'is not a currency code' });

const SeriesAnswer = answer(
  FRANKFURTER,
  Type.Object({
    base: Base,
    start_date: Day,
    end_date: Day,
    rates: Type.Refine(
      Type.Record(Type.String(), Rates),
      (r) => Object.keys(r).length > 0 && Object.keys(r).every(isDay),
      (r) => {
        const bad = Object.keys(r).find((d) => !isDay(d));
        return bad === undefined ? 'is empty' : `key "${bad}" is not YYYY-MM-DD`;
      },
    ),
  }),
);

/** The series as declared, `what` naming it in a refusal; JSON numbers become their exact decimal text. */
export function parseV1Series(body: unknown, what = 'the series'): V1Series {
  const o = SeriesAnswer.parse(body, what);
  const rates = new Map(
    Object.entries(o.rates)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, of]) => [day, decimals(of)]),
  );
  const days = [...rates.keys()];
  if (o.start_date !== days[0] || o.end_date !== days.at(-1))
    throw malformed(
      FRANKFURTER,
      `${what}: start_date ${o.start_date} and end_date ${o.end_date} are not its first and last days`,
    );
  return { base: o.base, start_date: o.start_date, end_date: o.end_date, rates };
}

/** Each rate as the decimal text of its JSON number. */
export const decimals = (rates: Record<string, number>): Record<string, string> =>
  Object.fromEntries(Object.entries(rates).map(([code, v]) => [code, new Big(v).toString()]));

/** Every day from `start` to `end`, both included. */
export function daysFrom(start: string, end: string): string[] {
  const out: string[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * The publication day whose rates each day of `start..end` takes: its own, or the latest
 * before it within `lookbackDays` (as a single day's call answers). Throws naming the first day
 * that has none.
 */
export function publicationOfEachDay(
  publications: readonly string[],
  start: string,
  end: string,
  lookbackDays: number,
): Map<string, string> {
  const out = new Map<string, string>();
  let i = -1;
  for (const day of daysFrom(start, end)) {
    while (i + 1 < publications.length && publications[i + 1]! <= day) i++;
    const pub = publications[i];
    if (pub === undefined || pub < addDays(day, -lookbackDays))
      throw new Error(`no rates for ${day} within the ${lookbackDays} days before it`);
    out.set(day, pub);
  }
  return out;
}
