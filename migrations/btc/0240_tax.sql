-- Whose FIFO pool a wallet's sats are in for the Danish annual return (docs/ledger.md, "Tax"):
-- every wallet, the seven of a fresh database among them, starts with the one default owner.
alter table btc.wallets add column owner text not null default 'household'
  check (length(owner) between 1 and 40 and strpos(owner, ',') = 0 and strpos(owner, '=') = 0);

-- The BTC price in DKK a day's fees and gifts were valued at: its Kraken BTC/EUR daily candle's
-- vwap times the EUR/DKK rate of the day, stored when first used so that a year's figures never
-- change when a provider later answers differently. Rows are never changed.
create table btc.tax_day_prices (
  date date primary key,
  btc_eur numeric not null check (btc_eur > 0),
  eur_dkk numeric not null check (eur_dkk > 0),
  rates_date date not null,
  btc_dkk numeric not null check (btc_dkk > 0),
  stored_at timestamptz not null default now()
);
