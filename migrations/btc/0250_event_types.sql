-- The ledger's new event types (docs/ledger.md): sats bought and sold on an exchange, sats that
-- leave the household and sats that arrive from outside. `kind` says what a receive is; the
-- exchange of a buy or a sell is its `wallet`.
alter table btc.events add column kind text check (kind in ('income', 'gift', 'unknown'));

alter table btc.events drop constraint events_type_check;
alter table btc.events drop constraint events_check;
alter table btc.events add constraint events_type_check check (type in ('bank_to_exchange',
  'exchange_to_wallet', 'wallet_to_wallet', 'exchange_buy', 'exchange_sell', 'spend', 'receive'));
alter table btc.events add constraint events_check check (
  (type = 'bank_to_exchange' and wallet is not null and amount is not null and currency is not null
    and from_wallet is null and to_wallet is null and sats is null and fee_sats is null and kind is null)
  or (type = 'exchange_to_wallet' and from_wallet is not null and to_wallet is not null and sats is not null
    and fee_sats is not null and amount is not null and currency is not null and wallet is null and kind is null)
  or (type = 'wallet_to_wallet' and from_wallet is not null and to_wallet is not null and sats is not null
    and fee_sats is not null and wallet is null and amount is null and currency is null and kind is null)
  or (type in ('exchange_buy', 'exchange_sell') and wallet is not null and sats is not null
    and amount is not null and currency is not null and from_wallet is null and to_wallet is null
    and fee_sats is null and kind is null)
  or (type = 'spend' and from_wallet is not null and sats is not null and fee_sats is not null
    and (amount is null) = (currency is null) and wallet is null and to_wallet is null and kind is null)
  or (type = 'receive' and to_wallet is not null and sats is not null and kind is not null
    and (amount is null) = (currency is null) and wallet is null and from_wallet is null and fee_sats is null)
);

-- A buy's or a sell's moves are read per (wallet, day) as the transfers' are (migration 0060).
create index events_wallet_day on btc.events (wallet, occurred_at, id) where wallet is not null;

-- The one rule of moves (migration 0180), with an arm per new type.
create or replace view btc.event_moves as
select e.id as event_id, e.type, e.occurred_at, m.wallet_id, m.sats_delta
from btc.events e
cross join lateral unnest(case e.type
  when 'bank_to_exchange' then array[]::btc.sats_move[]
  when 'exchange_to_wallet' then array[(e.to_wallet, e.sats)::btc.sats_move]
  when 'wallet_to_wallet' then array[(e.from_wallet, -(e.sats + e.fee_sats))::btc.sats_move,
    (e.to_wallet, e.sats)::btc.sats_move]
  when 'exchange_buy' then array[(e.wallet, e.sats)::btc.sats_move]
  when 'exchange_sell' then array[(e.wallet, -e.sats)::btc.sats_move]
  when 'spend' then array[(e.from_wallet, -(e.sats + e.fee_sats))::btc.sats_move]
  when 'receive' then array[(e.to_wallet, e.sats)::btc.sats_move]
end) as m;
