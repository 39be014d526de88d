import Big from 'big.js';
import { DateTime } from 'luxon';
import { FakeHttpServer, type FakeReply, type FakeRequest } from './http.js';

/**
 * A fake Frankfurter v1 in its wire format (docs/providers.md): USD-based rates that differ per day,
 * rounded as Frankfurter rounds them (EUR 5 decimals, DKK 4), a weekend or listed holiday
 * answering the previous business day with that day in `date`, 404 for unknown currencies or
 * days before 1999-01-04, 422 for base == symbol.
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

export function frankfurterAnswer(req: FakeRequest, opts: FakeFrankfurterOptions): FakeReply {
  const m = /^\/v1\/(latest|\d{4}-\d{2}-\d{2})$/.exec(req.path);
  if (!m?.[1]) return { status: 404, json: { message: 'not found' } };
  const base = req.query.get('base') ?? req.query.get('from') ?? 'EUR';
  const symbols = (req.query.get('symbols') ?? req.query.get('to') ?? 'EUR,DKK,GBP').split(',');
  if (![base, ...symbols].every((c) => KNOWN.includes(c)))
    return { status: 404, json: { message: 'not found' } };
  if (symbols.includes(base)) return { status: 422, json: { message: 'bad currency pair' } };
  if (base !== 'USD') return { status: 500, json: { message: 'fake: only base=USD is generated' } };
  const asked = m[1] === 'latest' || m[1] > opts.latest ? opts.latest : m[1];
  if (asked < '1999-01-04') return { status: 404, json: { message: 'not found' } };
  const date = publicationDay(asked, opts.holidays);
  const all = generatedRates(date);
  const rates = Object.fromEntries(
    [...symbols].sort().map((s) => [s, Number(all[s as keyof typeof all] ?? '1.2345')]),
  );
  return { json: { amount: 1.0, base, date, rates } };
}

export async function startFakeFrankfurter(opts: FakeFrankfurterOptions): Promise<FakeHttpServer> {
  const fake = await FakeHttpServer.start();
  fake.on('GET', /^\/v1\//, (req) => frankfurterAnswer(req, opts));
  return fake;
}
