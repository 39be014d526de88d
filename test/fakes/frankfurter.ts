import Big from 'big.js';
import { DateTime } from 'luxon';
import { FakeHttpServer, type FakeReply, type FakeRequest } from './http.js';

/**
 * A fake Frankfurter v1 in its wire format (docs/providers.md): USD-based rates that differ per day,
 * rounded as Frankfurter rounds them (EUR 5 decimals, DKK 4), a weekend or listed holiday
 * answering the previous business day with that day in `date`, 404 for unknown currencies or
 * days before 1999-01-04, 422 for base == symbol. The time series `/v1/{start}..{end}` answers
 * `{amount, base, start_date, end_date, rates: {day: {…}}}` with the publication days from the
 * latest on or before `start` up to `end` (or the latest), as Frankfurter selects them.
 */
export interface FakeFrankfurterOptions {
  /** The provider's "latest" publication day. */
  latest: string;
  holidays?: string[];
}

const KNOWN = ['USD', 'EUR', 'DKK', 'GBP', 'SEK', 'NOK', 'JPY'];

/** The publication day whose rates a request for `day` gets. */
export function publicationDay(day: string, holidays: string[] = []): string {
  let d = DateTime.fromISO(day, { zone: 'UTC' });
  while (d.weekday > 5 || holidays.includes(d.toISODate()!)) d = d.minus({ days: 1 });
  return d.toISODate()!;
}

/** Deterministic, day-dependent rates as decimal strings, in Frankfurter's rounding. */
export function generatedRates(day: string): { EUR: string; DKK: string; GBP: string } {
  const n = Math.floor(DateTime.fromISO(day, { zone: 'UTC' }).toSeconds() / 86_400);
  const eur = new Big(0.84).plus(new Big(n % 997).div(20_000)).round(5);
  return {
    EUR: eur.toString(),
    DKK: eur.times('7.4612').round(4).toString(),
    GBP: eur.times('0.8573').round(5).toString(),
  };
}

const FIRST = '1999-01-04';
const notFound: FakeReply = { status: 404, json: { message: 'not found' } };

export function frankfurterAnswer(req: FakeRequest, opts: FakeFrankfurterOptions): FakeReply {
  const m = /^\/v1\/(?:(latest|\d{4}-\d{2}-\d{2})|(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})?)$/.exec(
    req.path,
  );
  if (!m) return notFound;
  const base = req.query.get('base') ?? req.query.get('from') ?? 'EUR';
  const symbols = (req.query.get('symbols') ?? req.query.get('to') ?? 'EUR,DKK,GBP').split(',');
  if (![base, ...symbols].every((c) => KNOWN.includes(c))) return notFound;
  if (symbols.includes(base)) return { status: 422, json: { message: 'bad currency pair' } };
  if (base !== 'USD') return { status: 500, json: { message: 'fake: only base=USD is generated' } };
  const ratesOf = (day: string) => {
    const all = generatedRates(day);
    return Object.fromEntries(
      [...symbols].sort().map((s) => [s, Number(all[s as keyof typeof all] ?? '1.2345')]),
    );
  };
  if (m[2] !== undefined) return seriesAnswer(m[2], m[3] ?? opts.latest, base, opts, ratesOf);
  const asked = m[1] === 'latest' || m[1]! > opts.latest ? opts.latest : m[1]!;
  if (asked < FIRST) return notFound;
  const date = publicationDay(asked, opts.holidays);
  return { json: { amount: 1.0, base, date, rates: ratesOf(date) } };
}

/** The publication days from the latest on or before `start` up to `end`; 404 when there are none. */
function seriesAnswer(
  start: string,
  end: string,
  base: string,
  opts: FakeFrankfurterOptions,
  ratesOf: (day: string) => Record<string, number>,
): FakeReply {
  const last = end < opts.latest ? end : opts.latest;
  const from = start < FIRST ? FIRST : publicationDay(start < last ? start : last, opts.holidays);
  const rates: Record<string, Record<string, number>> = {};
  for (let d = DateTime.fromISO(from, { zone: 'UTC' }); d.toISODate()! <= last; d = d.plus({ days: 1 })) {
    const day = d.toISODate()!;
    if (publicationDay(day, opts.holidays) === day) rates[day] = ratesOf(day);
  }
  const days = Object.keys(rates);
  if (days.length === 0 || start > end) return notFound;
  return { json: { amount: 1.0, base, start_date: days[0], end_date: days.at(-1), rates } };
}

export async function startFakeFrankfurter(opts: FakeFrankfurterOptions): Promise<FakeHttpServer> {
  const fake = await FakeHttpServer.start();
  fake.on('GET', /^\/v1\//, (req) => frankfurterAnswer(req, opts));
  return fake;
}
