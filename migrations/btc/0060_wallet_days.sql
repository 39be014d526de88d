-- Each wallet's sats per day, kept in step with the events in the same transaction as every event
-- change, so that a write checks the wallet's running balance on every later date by reading one
-- row per day instead of every later event. `delta` is the day's net change; `low` and `high` are
-- the lowest and highest point of the running sum within the day (by event id), relative to the
-- balance at the start of the day, and include 0 (the start itself).
create table btc.wallet_days (
  wallet integer not null references btc.wallets (id) on delete cascade,
  day date not null,
  delta bigint not null,
  low bigint not null check (low <= 0),
  high bigint not null check (high >= 0),
  primary key (wallet, day)
);

-- The events of one wallet on one day, in id order, for refreshing its row.
create index events_to_wallet_day on btc.events (to_wallet, occurred_at, id)
  include (sats) where type <> 'bank_to_exchange';
create index events_from_wallet_day on btc.events (from_wallet, occurred_at, id)
  include (sats, fee_sats) where type = 'wallet_to_wallet';

insert into btc.wallet_days (wallet, day, delta, low, high)
select wallet, day, sum(delta), least(0, min(running)), greatest(0, max(running))
from (
  select wallet, day, delta, sum(delta) over (partition by wallet, day order by id) as running
  from (
    select to_wallet as wallet, occurred_at as day, id, sats as delta
    from btc.events where type <> 'bank_to_exchange'
    union all
    select from_wallet, occurred_at, id, -(sats + fee_sats)
    from btc.events where type = 'wallet_to_wallet'
  ) moves
) x
group by wallet, day;
