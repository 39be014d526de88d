import type { Generated } from 'kysely';

export interface CurrencyRatesTable {
  /** The requested day (YYYY-MM-DD). */
  date: string;
  /** The publication day the rates came from. */
  rates_date: string;
  /** numeric: strings in and out. */
  usd_eur: string;
  usd_dkk: string;
  eur_dkk: string;
  fetched_at: Generated<Date>;
}

export interface RatesTables {
  'btc.currency_rates': CurrencyRatesTable;
}
