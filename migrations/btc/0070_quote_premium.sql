-- The broker's premium of each quote over the exchange's spot price at the same moment (the
-- latest spot row at or before the quote, at most 60 s older): the spot used and two percents,
-- null when no spot price was that fresh. Computed when the quote is stored.
alter table btc.quotes
  add column spot_eur numeric,
  add column spread_pct numeric,
  add column all_in_pct numeric;

-- Quotes are read by time for the premium history and folded by time by retention.
create index quotes_at on btc.quotes (at);

-- Quotes stored before this migration, where a spot row is still at hand (spot rows are kept
-- for an hour). The same formula as src/btc/market/premium.ts, rounded to 6 places.
with matched as (
  select q.id,
    (select p.btc_eur from btc.spot_prices p
     where p.at <= q.at and p.at >= q.at - interval '60 seconds'
     order by p.at desc, p.id desc limit 1) as spot
  from btc.quotes q
  where q.quote_sats > 0
)
update btc.quotes q
set spot_eur = m.spot,
    spread_pct = round((q.pre_fee_eur * 100000000 / q.quote_sats / m.spot - 1) * 100, 6),
    all_in_pct = round((q.total_eur * 100000000 / q.quote_sats / m.spot - 1) * 100, 6)
from matched m
where m.id = q.id and m.spot is not null;
