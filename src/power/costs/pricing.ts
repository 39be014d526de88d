import { Big } from 'big.js';
import type { ConsumerHourRow } from '../prices/repository.js';

/** The parts of one hour's consumer price, DKK/kWh, exact. Null where the part is not known. */
export interface PricedHour {
  time: Date;
  spot: Big;
  grid_tariff: Big | null;
  transmission_tariff: Big | null;
  system_tariff: Big | null;
  electricity_tax: Big | null;
  /** The household's other consumption tariffs summed (0 without any). */
  other_tariffs: Big;
  supplier_markup: Big;
  /** VAT on the sum of the others; null when a charge is missing. */
  vat: Big | null;
  /** The sum plus VAT; null when a charge is missing, never guessed. */
  total: Big | null;
}

export interface Pricing {
  /** DKK/kWh excl. VAT, exact decimal text */
  markup: string;
  /** 0.25 = 25 % */
  vatRate: string;
}

const perKwh = (dkkPerMwh: string | null) => (dkkPerMwh === null ? null : new Big(dkkPerMwh).times('0.001'));
const exact = (v: string | null) => (v === null ? null : new Big(v));

/** Prices an hour: the stored DKK/MWh become DKK/kWh by an exact multiplication, VAT on everything. */
export function priceHour(row: ConsumerHourRow, pricing: Pricing): PricedHour {
  const spot = perKwh(row.price_dkk)!;
  const parts = {
    grid_tariff: perKwh(row.tariff_dkk),
    transmission_tariff: exact(row.transmission_dkk_kwh),
    system_tariff: exact(row.system_dkk_kwh),
    electricity_tax: exact(row.electricity_tax_dkk_kwh),
  };
  const supplier_markup = new Big(pricing.markup);
  const other_tariffs = new Big(row.other_tariffs_dkk_kwh ?? '0');
  const known = Object.values(parts).every((p) => p !== null);
  const sum = known
    ? Object.values(parts).reduce<Big>((s, p) => s.plus(p!), spot.plus(supplier_markup).plus(other_tariffs))
    : null;
  const vat = sum === null ? null : sum.times(pricing.vatRate);
  return {
    time: row.time_dk,
    spot,
    ...parts,
    other_tariffs,
    supplier_markup,
    vat,
    total: sum === null ? null : sum.plus(vat!),
  };
}

/** The JSON number of an exact amount, converted only here. */
export const num = (v: Big | null): number | null => (v === null ? null : Number(v.toString()));

export interface Window {
  start: Date;
  end: Date;
  average: Big;
  basis: 'total' | 'spot';
}

const HOUR_MS = 3_600_000;

/**
 * The `n` consecutive whole hours with the lowest mean price: of `total` when every hour has
 * one, else of `spot` for all of them (one basis, so windows compare alike). Ties go to the
 * earliest window. Null when no `n` consecutive hours exist.
 */
export function cheapestWindow(hours: PricedHour[], n: number): Window | null {
  const basis = hours.every((h) => h.total !== null) ? 'total' : 'spot';
  const value = (h: PricedHour) => (basis === 'total' ? h.total! : h.spot);
  let best: { at: number; sum: Big } | null = null;
  let run = 0;
  let sum = new Big(0);
  hours.forEach((h, i) => {
    const follows = i > 0 && h.time.getTime() - hours[i - 1]!.time.getTime() === HOUR_MS;
    if (!follows) {
      run = 0;
      sum = new Big(0);
    }
    run++;
    sum = sum.plus(value(h));
    if (run > n) sum = sum.minus(value(hours[i - n]!));
    if (run >= n && (best === null || sum.lt(best.sum))) best = { at: i - n + 1, sum };
  });
  if (best === null) return null;
  const { at, sum: total } = best as { at: number; sum: Big };
  return {
    start: hours[at]!.time,
    end: new Date(hours[at + n - 1]!.time.getTime() + HOUR_MS),
    average: total.div(n),
    basis,
  };
}
