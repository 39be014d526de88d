import type { Generated } from 'kysely';

/** The BTC price in DKK a day's fees and gifts were valued at, stored once (migration 0240). */
export interface TaxDayPricesTable {
  date: string;
  btc_eur: string;
  eur_dkk: string;
  rates_date: string;
  btc_dkk: string;
  stored_at: Generated<Date>;
}

export interface TaxTables {
  'btc.tax_day_prices': TaxDayPricesTable;
}
