-- Read-side indexes for GET /api/portfolio, which sums the buys and the transfers (all of them,
-- or up to a day): covering partial indexes in date order, so those sums are index-only scans
-- of a slice of the events instead of reads of every event row. The ledger's rules are untouched.
create index events_portfolio_buys on btc.events (occurred_at, currency)
  include (amount, sats, to_wallet) where type = 'exchange_to_wallet';
create index events_portfolio_transfers on btc.events (occurred_at)
  include (from_wallet, to_wallet, sats, fee_sats) where type = 'wallet_to_wallet';
