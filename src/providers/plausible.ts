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

/**
 * Rates and prices that may not jump: a value more than `factor` times (or less than
 * 1/`factor` of) the last accepted one of its key is held back, unless a second answer
 * confirms it (comes within `factor` of the held-back one), which is then accepted. Ratios
 * only decide; the values stored stay the exact strings of the answer.
 */
export class JumpGuard {
  private readonly accepted = new Map<string, number>();
  private readonly held = new Map<string, number>();

  constructor(private readonly factor = 2) {}

  /** The last value known good, e.g. the latest stored at start. */
  prime(key: string, value: string | number): void {
    const v = Number(value);
    if (v > 0 && Number.isFinite(v)) this.accepted.set(key, v);
  }

  /** null when `value` may be stored; otherwise why it is held back (the caller counts it). */
  check(key: string, value: string | number): string | null {
    const v = Number(value);
    if (!(v > 0 && Number.isFinite(v))) return `${key}: ${String(value)} is not a positive number`;
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
