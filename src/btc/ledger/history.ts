import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { DayLowest } from './events.js';

/**
 * The wallets' running balances, kept per day in btc.wallet_days beside the events (migration
 * 0060): a write keeps the rows of the days it touches and checks a wallet's days from the
 * first it changes, so that it reads one row per day instead of one per later event.
 */

/**
 * Recomputes the rows of many (wallet, day) pairs from those days' events in one statement, for
 * a batch of events written at once; a pair left without events keeps a zero row.
 */
export async function refreshWalletDays(
  db: Db,
  pairs: readonly { wallet: number; day: string }[],
): Promise<void> {
  if (pairs.length === 0) return;
  await sql`
    with pairs as (
      select * from unnest(${pairs.map((p) => p.wallet)}::int[], ${pairs.map((p) => p.day)}::date[]) as p (wallet, day)
    ), moves as (
      select p.wallet, p.day, m.event_id as id, m.sats_delta as delta
      from pairs p join btc.event_moves m on m.wallet_id = p.wallet and m.occurred_at = p.day
    ), fresh as (
      select wallet, day, sum(delta) as delta, least(0, min(running)) as low, greatest(0, max(running)) as high
      from (select wallet, day, delta, sum(delta) over (partition by wallet, day order by id) as running from moves) x
      group by wallet, day
    )
    insert into btc.wallet_days (wallet, day, delta, low, high)
    select p.wallet, p.day, coalesce(f.delta, 0), coalesce(f.low, 0), coalesce(f.high, 0)
    from pairs p left join fresh f on f.wallet = p.wallet and f.day = p.day
    on conflict (wallet, day) do update
      set delta = excluded.delta, low = excluded.low, high = excluded.high`.execute(db);
}

/**
 * Adds newly recorded events to their wallets' days without reading the day's events: a new
 * event has the largest id of its day (ids only grow, and the wallet's lock orders its writers),
 * so it comes last, and the day's lowest and highest point can only be its new end.
 */
export async function appendToWalletDays(
  db: Db,
  rows: readonly { wallet: number; day: string; delta: number }[],
): Promise<void> {
  const days = rows.map((r) => ({
    wallet: r.wallet,
    day: r.day,
    delta: r.delta,
    low: Math.min(0, r.delta),
    high: Math.max(0, r.delta),
  }));
  await writeInChunks(db, days, (db, chunk) =>
    db
      .insertInto('btc.wallet_days')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['wallet', 'day']).doUpdateSet({
          delta: sql`btc.wallet_days.delta + excluded.delta`,
          low: sql`least(btc.wallet_days.low, btc.wallet_days.delta + excluded.delta)`,
          high: sql`greatest(btc.wallet_days.high, btc.wallet_days.delta + excluded.delta)`,
        }),
      )
      .execute(),
  );
}

/**
 * The first day on or after `from` on which the wallet's running balance (by day, then event id)
 * is below zero, with its lowest point that day; undefined when there is none. It reads one row
 * per day from `from` on, not one per event: the balance at the start of a day is the wallet's
 * balance after the change (`balance`, the sum of all its days) less the days from that one on.
 */
export async function firstDayBelowZero(
  db: Db,
  wallet: number,
  from: string,
  balance: number,
): Promise<DayLowest | undefined> {
  const r = await sql<DayLowest>`
    select to_char(day, 'YYYY-MM-DD') as day, lowest from (
      select day, ${balance}::int8 - sum(delta) over (order by day desc) + low as lowest
      from btc.wallet_days where wallet = ${wallet} and day >= ${from}::date
    ) d
    where lowest < 0
    order by day limit 1`.execute(db);
  const first = r.rows[0];
  return first && { day: first.day, lowest: Number(first.lowest) };
}

/** Recomputes every wallet's days from all events (for data written around the event writes). */
export async function rebuildWalletDays(db: Db): Promise<void> {
  await sql`
    with fresh as (
      select wallet, day, sum(delta) as delta, least(0, min(running)) as low, greatest(0, max(running)) as high
      from (
        select wallet, day, delta, sum(delta) over (partition by wallet, day order by id) as running
        from (
          select wallet_id as wallet, occurred_at as day, event_id as id, sats_delta as delta
          from btc.event_moves
        ) moves
      ) x
      group by wallet, day
    ), gone as (
      delete from btc.wallet_days w
      where not exists (select 1 from fresh f where f.wallet = w.wallet and f.day = w.day)
    )
    insert into btc.wallet_days (wallet, day, delta, low, high)
    select wallet, day, delta, low, high from fresh
    on conflict (wallet, day) do update
      set delta = excluded.delta, low = excluded.low, high = excluded.high`.execute(db);
}
