import { centsNumber } from '../../shared/money.js';
import type { QuoteRow, SpotPriceRow } from './repository.js';
import type { PriceMessage, QuoteMessage } from './schemas.js';

/**
 * The messages of the price and quote streams (and of /api/price/latest, /api/quote/latest,
 * and so of the MQTT states read from them), from a stored row. The stored row keeps the exact
 * product BTC/EUR × EUR/DKK and the broker's ticker as it came; a message carries every price
 * per BTC to the cent and only snake_case fields.
 */
export function priceMessage(row: Omit<SpotPriceRow, 'id'>): PriceMessage {
  return {
    at: row.at.toISOString(),
    btc_usd: centsNumber(row.btc_usd),
    btc_eur: centsNumber(row.btc_eur),
    btc_dkk: row.btc_dkk === null ? null : centsNumber(row.btc_dkk),
    rates:
      row.rates === null
        ? null
        : {
            date: row.rates.date,
            usd_eur: Number(row.rates.usd_eur),
            usd_dkk: Number(row.rates.usd_dkk),
            eur_dkk: Number(row.rates.eur_dkk),
          },
  };
}

export function quoteMessage(row: Omit<QuoteRow, 'id'>): QuoteMessage {
  return {
    at: row.at.toISOString(),
    total_eur: Number(row.total_eur),
    fee_eur: Number(row.fee_eur),
    pre_fee_eur: Number(row.pre_fee_eur),
    quote_sats: row.quote_sats,
    rates: row.rates.map((r) => ({
      amount: r.amount,
      source_currency: r.sourceCurrency,
      target_currency: r.targetCurrency,
    })),
    spot_eur: row.spot_eur === null ? null : centsNumber(row.spot_eur),
    spread_pct: num(row.spread_pct),
    all_in_pct: num(row.all_in_pct),
  };
}

const num = (v: string | null) => (v === null ? null : Number(v));
