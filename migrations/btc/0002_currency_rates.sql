-- One record per requested day; rates_date is the ECB publication day the rates came from
-- (the previous business day on weekends and holidays). USD-based, plus the EUR/DKK cross.
create table btc.currency_rates (
  date date primary key,
  rates_date date not null,
  usd_eur numeric not null check (usd_eur > 0),
  usd_dkk numeric not null check (usd_dkk > 0),
  eur_dkk numeric not null check (eur_dkk > 0),
  fetched_at timestamptz not null default now(),
  check (rates_date <= date)
);
