-- Quotes older than QUOTE_RETENTION_DAYS are folded into one row per UTC hour and configured
-- total, kept for good: how many, min/avg/max quote_sats (with the exact sum, so that folding
-- the same hour again adds up), the last ticker of the hour, and the sums the premium history
-- needs (only quotes with a premium count in premium_quotes and the percent sums).
create table btc.quotes_hour (
  time timestamptz not null,
  total_eur numeric not null,
  quotes integer not null check (quotes > 0),
  quote_sats_min int8 not null,
  quote_sats_max int8 not null,
  quote_sats_avg numeric not null,
  quote_sats_sum numeric not null,
  last_at timestamptz not null,
  last_rates jsonb not null,
  premium_quotes integer not null check (premium_quotes >= 0),
  spread_pct_sum numeric not null,
  spread_pct_min numeric,
  spread_pct_max numeric,
  all_in_pct_sum numeric not null,
  primary key (time, total_eur)
);

-- 1-minute candles are pruned by age across both pairs.
create index candles_minute_time on btc.candles_minute (time);
