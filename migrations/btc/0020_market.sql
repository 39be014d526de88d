-- The spot price as published: one row per coalesced update; the latest row is what every
-- process streams and answers.
create table btc.spot_prices (
  id bigserial primary key,
  at timestamptz not null,
  btc_usd numeric not null,
  btc_eur numeric not null,
  btc_dkk numeric,
  rates jsonb
);
create index spot_prices_at on btc.spot_prices (at);

-- One row per quote poll: the broker's rates ticker stored whole, with the sats the total buys.
create table btc.quotes (
  id bigserial primary key,
  at timestamptz not null,
  total_eur numeric not null,
  fee_eur numeric not null,
  pre_fee_eur numeric not null,
  quote_sats int8 not null check (quote_sats >= 0),
  rates jsonb not null
);

-- The broker's fee, learned from the first quote of each Danish day (per configured total).
create table btc.quote_fees (
  date date not null,
  total_eur numeric not null,
  fee_eur numeric not null,
  learned_at timestamptz not null,
  primary key (date, total_eur)
);
