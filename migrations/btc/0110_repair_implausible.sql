-- A one-off repair: rows stored before provider answers were held to absolute bounds
-- (src/providers/plausible.ts) and to our clock are removed, so that none of them is served, steers
-- a poller (a candle dated in the future made every later poll ask `since` that date) or judges
-- the next answers. Each is fetched again, or replaced by the next sane answer. The bounds:
-- BTC in fiat 1..1e8, candle volume 0..21e6 BTC, EUR per USD 0.1..10, DKK per USD 0.5..75, a fee
-- 0..25 % of its total; a candle no later than one interval ahead, a tick no later than a minute.

delete from btc.candles_minute
where time > now() + interval '1 minute'
  or least(open, high, low, close) < 1 or greatest(open, high, low, close, vwap) > 1e8
  or volume > 21e6;

delete from btc.candles_hour
where time > now() + interval '1 hour'
  or least(open, high, low, close) < 1 or greatest(open, high, low, close, vwap) > 1e8
  or volume > 21e6;

delete from btc.candles_day
where time > now() + interval '1 day'
  or least(open, high, low, close) < 1 or greatest(open, high, low, close, vwap) > 1e8
  or volume > 21e6;

delete from btc.spot_prices
where at > now() + interval '1 minute'
  or least(btc_usd, btc_eur) < 1 or greatest(btc_usd, btc_eur) > 1e8;

-- A fee outside its bounds cached as a day's fee blocked every quote of that day.
delete from btc.quote_fees
where fee_eur < 0 or fee_eur > total_eur * 0.25;

-- A quote's price in EUR per BTC is pre_fee_eur / (quote_sats / 1e8): within 1..1e8 exactly when
-- pre_fee_eur <= quote_sats <= pre_fee_eur * 1e8.
delete from btc.quotes
where fee_eur < 0 or fee_eur > total_eur * 0.25
  or quote_sats < pre_fee_eur or quote_sats > pre_fee_eur * 1e8;

delete from btc.currency_rates
where usd_eur < 0.1 or usd_eur > 10 or usd_dkk < 0.5 or usd_dkk > 75;
