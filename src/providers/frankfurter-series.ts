import Big from 'big.js';
import { addDays } from '../shared/danish-time.js';

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

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const isDateText = (v: string) => DATE_RE.test(v) && !Number.isNaN(Date.parse(v));
const isDate = (v: unknown): v is string => typeof v === 'string' && isDateText(v);

/** Validates the wire shape; JSON numbers become their shortest decimal text, which is what was sent. */
export function parseV1Series(body: unknown): V1Series {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not a JSON object');
  const o = body as Record<string, unknown>;
  if (typeof o.base !== 'string' || !/^[A-Z]{3}$/.test(o.base))
    throw new Error('base is not a currency code');
  if (!isDate(o.start_date) || !isDate(o.end_date))
    throw new Error('start_date or end_date is not YYYY-MM-DD');
  if (!o.rates || typeof o.rates !== 'object' || Array.isArray(o.rates))
    throw new Error('rates is not an object');
  const entries = Object.entries(o.rates as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) throw new Error('rates is empty');
  const rates = new Map<string, Record<string, string>>();
  for (const [day, values] of entries) {
    if (!isDateText(day)) throw new Error(`rates key "${day}" is not YYYY-MM-DD`);
    if (!values || typeof values !== 'object' || Array.isArray(values))
      throw new Error(`rates of ${day} is not an object`);
    const of: Record<string, string> = {};
    for (const [code, value] of Object.entries(values as Record<string, unknown>)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
        throw new Error(`rate ${code} of ${day} is not a positive number`);
      of[code] = new Big(value).toString();
    }
    rates.set(day, of);
  }
  const days = [...rates.keys()];
  if (o.start_date !== days[0] || o.end_date !== days.at(-1))
    throw new Error(`start_date ${o.start_date} and end_date ${o.end_date} are not its first and last days`);
  return { base: o.base, start_date: o.start_date, end_date: o.end_date, rates };
}

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
