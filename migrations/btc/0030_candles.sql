-- OHLC candles from Kraken REST, one table per interval. Prices and volume as numeric, exact as sent.
-- candles_minute keeps the forming candle and overwrites it; candles_hour and candles_day hold
-- closed candles only and are never overwritten.
create table btc.candles_minute (
  pair text not null check (pair in ('BTC/USD', 'BTC/EUR')),
  time timestamptz not null,
  open numeric not null,
  high numeric not null,
  low numeric not null,
  close numeric not null,
  vwap numeric not null,
  volume numeric not null check (volume >= 0),
  trades integer not null check (trades >= 0),
  updated_at timestamptz not null default now(),
  primary key (pair, time)
);

create table btc.candles_hour (
  pair text not null check (pair in ('BTC/USD', 'BTC/EUR')),
  time timestamptz not null,
  open numeric not null,
  high numeric not null,
  low numeric not null,
  close numeric not null,
  vwap numeric not null,
  volume numeric not null check (volume >= 0),
  trades integer not null check (trades >= 0),
  updated_at timestamptz not null default now(),
  primary key (pair, time)
);

create table btc.candles_day (
  pair text not null check (pair in ('BTC/USD', 'BTC/EUR')),
  time timestamptz not null,
  open numeric not null,
  high numeric not null,
  low numeric not null,
  close numeric not null,
  vwap numeric not null,
  volume numeric not null check (volume >= 0),
  trades integer not null check (trades >= 0),
  updated_at timestamptz not null default now(),
  primary key (pair, time)
);
