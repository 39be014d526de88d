import { Big } from 'big.js';

/** A spot price older than this at the moment of a quote is no measure of its premium. */
export const SPOT_MAX_AGE_MS = 60_000;
/** Percent places stored; far finer than the 0.01 points anyone reads. */
const PLACES = 6;

export interface Premium {
  spot_eur: string | null;
  spread_pct: string | null;
  all_in_pct: string | null;
}

export const NO_PREMIUM: Premium = { spot_eur: null, spread_pct: null, all_in_pct: null };

/** (price / spot − 1) × 100, exact, rounded half up to 6 places. */
function pctOver(price: Big, spot: Big): string {
  return price.div(spot).minus(1).times(100).round(PLACES, Big.roundHalfUp).toFixed(PLACES);
}

/**
 * A quote against the exchange's spot price (EUR per BTC) of the same moment:
 * `spread_pct`, the broker's price per BTC before the fee (pre_fee_eur / (quote_sats / 1e8));
 * `all_in_pct`, what the whole total pays per BTC, fee included (total_eur / (quote_sats / 1e8)).
 * No spot (or a quote of no sats) gives no premium rather than a wrong one.
 */
export function premiumOf(
  quote: { total_eur: string; pre_fee_eur: string; quote_sats: number },
  spotEur: string | null,
): Premium {
  if (spotEur === null || quote.quote_sats <= 0) return NO_PREMIUM;
  const spot = new Big(spotEur);
  if (spot.lte(0)) return NO_PREMIUM;
  const btc = new Big(quote.quote_sats).div(1e8);
  return {
    spot_eur: spotEur,
    spread_pct: pctOver(new Big(quote.pre_fee_eur).div(btc), spot),
    all_in_pct: pctOver(new Big(quote.total_eur).div(btc), spot),
  };
}
