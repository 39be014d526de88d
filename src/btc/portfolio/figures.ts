import Big from 'big.js';
import { addDays, isCalendarDate } from '../../shared/danish-time.js';
import { cents } from '../../shared/money.js';
import type { Totals, WalletSats } from './repository.js';

/**
 * The portfolio's arithmetic, pure: exact sums in, figures rounded to the cent out. Every fiat
 * figure is computed from exact inputs and rounded once, half-up (amounts are positive, so
 * half-up and half-away-from-zero agree; SQL's round() does the same on the ledger's rows).
 */

export const CURRENCIES = ['eur', 'dkk', 'usd'] as const;
export type Fiat<T> = Record<(typeof CURRENCIES)[number], T>;

/** A price per whole BTC in each currency; a side is null when it is not known. */
export interface Price {
  btc_eur: string | null;
  btc_usd: string | null;
  btc_dkk: string | null;
}

export interface Holdings {
  totals: Totals;
  wallets: WalletSats[];
}

export interface PortfolioJson {
  as_of: string;
  price: Price | null;
  sats: number;
  bought_sats: number;
  fee_sats: number;
  cost: Fiat<string>;
  average_price: Fiat<string> | null;
  value: Fiat<string | null> | null;
  unrealized_pnl: Fiat<string | null> | null;
  wallets: {
    id: number;
    name: string;
    wallet_type: 'exchange' | 'wallet';
    sats: number;
    value: Fiat<string | null> | null;
  }[];
}

/** The day the first block was mined: nothing can be held before it. */
export const GENESIS_DATE = '2009-01-03';
const SATS_PER_BTC = new Big(100_000_000);

/** The violation of `?at=` against today's Danish date, or null when it is a day one can ask for. */
export function atFault(at: string, today: string): string | null {
  if (!isCalendarDate(at)) return `querystring.at: "${at}" is not a calendar date YYYY-MM-DD`;
  if (at < GENESIS_DATE) return `querystring.at: ${at} is before the first bitcoin block (${GENESIS_DATE})`;
  if (at > today) return `querystring.at: ${at} is in the future (today in Denmark is ${today})`;
  return null;
}

/** The instant a day's daily candle closes: the end of that UTC day. */
export function dayCloseInstant(day: string): Date {
  return new Date(`${addDays(day, 1)}T00:00:00Z`);
}

/** A big.js whose divisions round to the cent, half-up: a quotient is rounded once, correctly. */
const ToCent = Big();
ToCent.DP = 2;
ToCent.RM = Big.roundHalfUp;

/** `sats` at a price per whole BTC, to the cent; null when the price is not known. */
function valueOf(sats: Big, perBtc: string | null): string | null {
  return perBtc === null ? null : new ToCent(sats).times(perBtc).div(SATS_PER_BTC).toFixed(2);
}

/** The exact cost per whole BTC: cost / (sats / 1e8), to the cent. */
function perBtc(cost: string, sats: Big): string {
  return new ToCent(cost).times(SATS_PER_BTC).div(sats).toFixed(2);
}

function valuesOf(sats: Big, price: Price | null): Fiat<string | null> | null {
  if (price === null) return null;
  return {
    eur: valueOf(sats, price.btc_eur),
    dkk: valueOf(sats, price.btc_dkk),
    usd: valueOf(sats, price.btc_usd),
  };
}

function map<T, U>(f: Fiat<T>, fn: (x: T, k: keyof Fiat<T>) => U): Fiat<U> {
  return { eur: fn(f.eur, 'eur'), dkk: fn(f.dkk, 'dkk'), usd: fn(f.usd, 'usd') };
}

/** A price's sides rounded to the cent for the answer (values are computed from the exact ones). */
function shownPrice(p: Price | null): Price | null {
  if (p === null) return null;
  const r = (x: string | null) => (x === null ? null : cents(new Big(x)));
  return { btc_eur: r(p.btc_eur), btc_usd: r(p.btc_usd), btc_dkk: r(p.btc_dkk) };
}

/**
 * The answer from the exact sums and the price. `unrealized_pnl` is the difference of the
 * rounded `value` and `cost`, so value − cost = unrealized_pnl holds exactly in the answer.
 */
export function portfolioFigures(h: Holdings, price: Price | null, asOf: Date): PortfolioJson {
  const known = price !== null && (price.btc_eur !== null || price.btc_usd !== null);
  const p = known ? price : null;
  const sats = h.wallets.reduce((s, w) => s.plus(w.sats), new Big(0));
  const bought = new Big(h.totals.bought_sats);
  const cost = map(h.totals.cost, (x) => cents(new Big(x)));
  const value = valuesOf(sats, p);
  return {
    as_of: asOf.toISOString(),
    price: shownPrice(p),
    sats: sats.toNumber(),
    bought_sats: bought.toNumber(),
    fee_sats: Number(h.totals.fee_sats),
    cost,
    average_price: bought.eq(0) ? null : map(h.totals.cost, (x) => perBtc(x, bought)),
    value,
    unrealized_pnl:
      value === null
        ? null
        : map(value, (v, k) => (v === null ? null : new Big(v).minus(cost[k]).toFixed(2))),
    wallets: h.wallets.map((w) => ({
      id: w.id,
      name: w.name,
      wallet_type: w.wallet_type,
      sats: Number(w.sats),
      value: valuesOf(new Big(w.sats), p),
    })),
  };
}
