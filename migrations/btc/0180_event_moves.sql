-- The ledger's one rule of how an event moves sats: per event, each wallet's change in sats (the
-- fee included on the side that pays it). Every query that needs moves reads this view, and
-- `moves()` in src/btc/ledger/events.ts says the same in TypeScript (a property test holds them
-- equal). A new event type is one arm of the CASE below and one arm of moves()'s switch.
create type btc.sats_move as (wallet_id integer, sats_delta bigint);

create view btc.event_moves as
select e.id as event_id, e.type, e.occurred_at, m.wallet_id, m.sats_delta
from btc.events e
cross join lateral unnest(case e.type
  when 'bank_to_exchange' then array[]::btc.sats_move[]
  when 'exchange_to_wallet' then array[(e.to_wallet, e.sats)::btc.sats_move]
  when 'wallet_to_wallet' then array[(e.from_wallet, -(e.sats + e.fee_sats))::btc.sats_move,
    (e.to_wallet, e.sats)::btc.sats_move]
end) as m;
