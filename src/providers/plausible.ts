import { textFault } from '../shared/text.js';

/**
 * Provider answers are untrusted input: the checks an answer passes before anything of it is
 * stored. What fails is dropped, counted by the adapter in its feed's `rejected` in /health
 * (FeedHealth.reject), and never stored.
 */

/**
 * The harmonised minimum and maximum clearing prices of the single day-ahead coupling (SDAC,
 * HMMCP methodology under CACM art. 41): −500 and +4,000 EUR/MWh, the latter kept since
 * September 2022 when the automatic increase was suspended (ACER decision of January 2023).
 * The methodology moves them in steps after extreme prices; a change is a change here.
 */
export const SDAC_EUR_MWH = { min: -500, max: 4_000 } as const;
/**
 * The same in DKK: the krone is held within ±2.25 % of 7.46038 DKK/EUR (ERM II), so at most
 * 7.62824 DKK per EUR; rounded outwards.
 */
export const SDAC_DKK_MWH = { min: -3_815, max: 30_520 } as const;

/** A day-ahead price (per MWh) inside the market's harmonised limits; `null` EUR is not checked. */
export function dayAheadPriceInBounds(priceDkk: string, priceEur: string | null): boolean {
  const dkk = Number(priceDkk);
  if (!(dkk >= SDAC_DKK_MWH.min && dkk <= SDAC_DKK_MWH.max)) return false;
  if (priceEur === null) return true;
  const eur = Number(priceEur);
  return eur >= SDAC_EUR_MWH.min && eur <= SDAC_EUR_MWH.max;
}

/** A quantity's absolute bounds: a value outside them is refused, whatever came before it. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/**
 * Fiat per BTC (USD, EUR, DKK, GBP, AUD, USDT). Under 1 is a wrong unit: bitcoin passed a dollar
 * in 2011, before any of these providers' data begins. Over 10^8 is a thousand times any price
 * ever paid. Both are wide: the 2× check against the last accepted value does the fine work.
 */
export const BTC_FIAT: Range = { min: 1, max: 1e8 };
/** BTC per fiat unit: the inverse of BTC_FIAT. */
export const FIAT_BTC: Range = { min: 1e-8, max: 1 };
/** EUR per USD: 0.63 to 1.21 since the euro began in 1999; a tenth or ten times that is no rate. */
export const USD_EUR: Range = { min: 0.1, max: 10 };
/** DKK per USD: the krone follows the euro at 7.46 (ERM II), so ten times the EUR bounds' width. */
export const USD_DKK: Range = { min: 0.5, max: 75 };
/**
 * The CO₂ intensity of electricity, g/kWh: lignite, the dirtiest fuel, emits about 1,100 g per
 * kWh; twice that is no grid's mix, and below 0 is no emission. The Danish grid's figures stay
 * well below 1,000.
 */
export const CO2_G_KWH: Range = { min: 0, max: 2_000 };
/** A candle's volume in BTC: no exchange trades every one of the 21 million bitcoins in one candle. */
export const CANDLE_VOLUME: Range = { min: 0, max: 21e6 };
/**
 * A broker's fee as a share of the amount it is charged on. Strike's is about 1 %; a quarter
 * leaves room for a flat fee on a small QUOTE_TOTAL_EUR, and refuses a fee as large as the total.
 */
export const FEE_SHARE: Range = { min: 0, max: 0.25 };
/** Sats: an amount or a sum of them; no address, transaction or balance holds more than the 21 million BTC there will ever be. */
export const SATS: Range = { min: 0, max: 2_100_000_000_000_000 };
/**
 * How far past our clock a block may be stamped: the network accepts a block up to two hours
 * ahead of its nodes' time (consensus), and our clock and theirs differ by a little more.
 */
export const BLOCK_TIME_AHEAD_MS = 2 * 3_600_000 + 60_000;
/**
 * How far past our clock a tick or a quote may be stamped: the provider's clock and a small
 * box's differ by seconds. More means a wrong stamp (or a wrong clock here, which /health shows).
 */
export const CLOCK_SKEW_MS = 60_000;

/**
 * A household's charges, DKK excl. VAT, as its meter (Eloverblik) and DatahubPricelist list them.
 * A tariff per kWh: every Danish one a household pays lies far inside −10..+10. The dearest are a
 * grid company's winter peak (about 1 to 2.5 DKK/kWh) and the electricity tax (at most about
 * 1 DKK/kWh, 0.008 from 2026); Energinet's tariffs are øre. A discount published as a negative
 * tariff (Dinel's TCL<100_52, N1's CD R) mostly takes off a few øre, but can take off a whole
 * tariff: N1 waived its own in December 2022 with a CD R of −1.015888, the CD of those hours. So a
 * discount reaches at most minus the dearest tariff; −1,000 DKK/kWh is no discount. A subscription, per month (P1M) or day (P1D): a C-customer's is tens
 * of kroner a month, the largest DataHub lists (for big customers) thousands; none is negative,
 * nothing pays the household for being connected. A one-off fee (a reminder, a reconnection, a
 * meter test) costs hundreds to a few thousand kroner. Outside these bounds it is no charge.
 */
export const TARIFF_DKK_KWH: Range = { min: -10, max: 10 };
export const SUBSCRIPTION_DKK: Range = { min: 0, max: 10_000 };
export const FEE_DKK: Range = { min: 0, max: 50_000 };
const CHARGE_RANGE = { tariff: TARIFF_DKK_KWH, subscription: SUBSCRIPTION_DKK, fee: FEE_DKK } as const;
/** A GLN (global location number) names a charge's owner: 13 digits. */
const GLN = /^\d{13}$/;

/** A text as a message may quote it: escaped, and short. */
const quoted = (v: string) => JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);

/**
 * Why a charge is refused, or null: its name (it identifies the charge: an unpaired surrogate
 * stored would be U+FFFD, so two names would merge) is text that can be stored as it is, its
 * owner a GLN, every price within its kind's bounds.
 */
export function chargeRefusal(c: {
  kind: 'tariff' | 'subscription' | 'fee';
  name: string;
  ownerGln: string;
  prices: readonly string[];
}): string | null {
  const name = textFault(c.name);
  if (name) return `charge name ${quoted(c.name)} ${name}`;
  if (!GLN.test(c.ownerGln))
    return `charge ${quoted(c.name)}: owner ${quoted(c.ownerGln)} is not a 13-digit GLN`;
  const range = CHARGE_RANGE[c.kind];
  const bad = c.prices.find((p) => !inRange(p, range));
  if (bad !== undefined)
    return `${c.kind} ${quoted(c.name)}: ${bad} DKK is outside its bounds ${range.min}..${range.max}`;
  return null;
}

/** Whether a number (or its decimal text) lies within the range, both ends included. */
export function inRange(value: string | number, range: Range): boolean {
  const v = Number(value);
  return Number.isFinite(v) && v >= range.min && v <= range.max;
}

/** Why a fee of `fee` on `amount` is refused, or null when it lies within FEE_SHARE of it. */
export function feeRefusal(fee: string, amount: string): string | null {
  const f = Number(fee);
  const a = Number(amount);
  if (Number.isFinite(f) && a > 0 && f >= FEE_SHARE.min && f <= a * FEE_SHARE.max) return null;
  return `fee ${fee} on ${amount} is outside 0..${FEE_SHARE.max * 100} % of it`;
}

/** Why an instant stamped by a provider is refused: later than our clock allows. */
export function futureRefusal(what: string, at: Date, now: Date, aheadMs: number): string | null {
  if (at.getTime() <= now.getTime() + aheadMs) return null;
  return `${what} stamped ${at.toISOString()}, after ${new Date(now.getTime() + aheadMs).toISOString()} (our clock ${now.toISOString()} and ${aheadMs / 1000} s)`;
}

/**
 * Rates and prices that may not jump: a value outside its quantity's absolute range is refused;
 * a value more than `factor` times (or less than 1/`factor` of) the last accepted one of its key
 * is held back, unless a second answer confirms it (comes within `factor` of the held-back one),
 * which is then accepted. Ratios only decide; the values stored stay the exact strings of the
 * answer. Each adapter primes it with the latest stored value at start, so that the first answer
 * after a start is judged too.
 */
export class JumpGuard {
  private readonly accepted = new Map<string, number>();
  private readonly held = new Map<string, number>();

  constructor(private readonly factor = 2) {}

  /** The last value known good, e.g. the latest stored at start; ignored when outside `range`. */
  prime(key: string, value: string | number, range?: Range): void {
    const v = Number(value);
    if (v > 0 && Number.isFinite(v) && (!range || inRange(v, range))) this.accepted.set(key, v);
  }

  /** null when `value` may be stored; otherwise why it is refused or held back (the caller counts it). */
  check(key: string, value: string | number, range?: Range): string | null {
    const v = Number(value);
    if (!(v > 0 && Number.isFinite(v))) return `${key}: ${String(value)} is not a positive number`;
    if (range && !inRange(v, range))
      return `${key}: ${String(value)} is outside its bounds ${range.min}..${range.max}`;
    const last = this.accepted.get(key);
    const held = this.held.get(key);
    if (last === undefined || this.near(v, last) || (held !== undefined && this.near(v, held))) {
      this.accepted.set(key, v);
      this.held.delete(key);
      return null;
    }
    this.held.set(key, v);
    return `${key}: ${String(value)} is over ${this.factor}× away from the last accepted ${last}; held until a second answer confirms it`;
  }

  private near(a: number, b: number): boolean {
    return a <= b * this.factor && a >= b / this.factor;
  }
}
