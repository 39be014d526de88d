import type { ColumnType, Generated } from 'kysely';

type Numeric = ColumnType<string, string, string>;
type Json<T> = ColumnType<T, string, string>;
type NullableNumeric = ColumnType<string | null, string | null, string | null>;

export interface RatesJson {
  date: string;
  usd_eur: string;
  usd_dkk: string;
  eur_dkk: string;
}

export interface StrikeRateJson {
  amount: string;
  sourceCurrency: string;
  targetCurrency: string;
}

export interface SpotPricesTable {
  id: Generated<number>;
  at: Date;
  btc_usd: Numeric;
  btc_eur: Numeric;
  btc_dkk: ColumnType<string | null, string | null, string | null>;
  rates: ColumnType<RatesJson | null, string | null, string | null>;
}

export interface QuotesTable {
  id: Generated<number>;
  at: Date;
  total_eur: Numeric;
  fee_eur: Numeric;
  pre_fee_eur: Numeric;
  quote_sats: number;
  rates: Json<StrikeRateJson[]>;
  /** The spot price the premium was measured against; null when none was 60 s fresh. */
  spot_eur: NullableNumeric;
  spread_pct: NullableNumeric;
  all_in_pct: NullableNumeric;
}

/** Quotes older than the retention, one row per UTC hour and total (migration 0071). */
export interface QuotesHourTable {
  time: Date;
  total_eur: Numeric;
  quotes: number;
  quote_sats_min: number;
  quote_sats_max: number;
  quote_sats_avg: Numeric;
  quote_sats_sum: Numeric;
  last_at: Date;
  last_rates: Json<StrikeRateJson[]>;
  premium_quotes: number;
  spread_pct_sum: Numeric;
  spread_pct_min: NullableNumeric;
  spread_pct_max: NullableNumeric;
  all_in_pct_sum: Numeric;
}

export interface QuoteFeesTable {
  date: string;
  total_eur: Numeric;
  fee_eur: Numeric;
  learned_at: Date;
}

export interface MarketTables {
  'btc.spot_prices': SpotPricesTable;
  'btc.quotes': QuotesTable;
  'btc.quote_fees': QuoteFeesTable;
  'btc.quotes_hour': QuotesHourTable;
}
