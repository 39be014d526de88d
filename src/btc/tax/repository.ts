import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { TaxEventRow } from './ledger-movements.js';
import type { TaxDayPricesTable } from './tables.js';

/**
 * The tax feature reads the ledger's events, wallets and rates, and the candles' daily vwap; it
 * owns only btc.tax_day_prices.
 */

/** The owners the wallets name, sorted. */
export async function owners(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('btc.wallets').select('owner').distinct().orderBy('owner').execute();
  return rows.map((r) => r.owner);
}

/** A day's price not stored (yet): the current day's, valued at its candle so far. */
export interface Provisional {
  day: string;
  btc_dkk: string;
}

/** 1e-8: a product by it is exact in numeric, where a division by 1e8 would round. */
const PER_SAT = sql.raw('0.00000001');

/**
 * Every event up to `upTo` that can give a movement, in the ledger's order (date, then id), in
 * one statement: an amount in DKK at the ledger's rates of its day, the owners of its wallets,
 * and its sats and fee at the day's stored BTC price in DKK (or the provisional one of today).
 */
export async function taxEvents(
  db: Db,
  upTo: string,
  provisional: Provisional | null,
): Promise<TaxEventRow[]> {
  const price = provisional
    ? sql`coalesce(p.btc_dkk, case when e.occurred_at = ${provisional.day}::date then ${provisional.btc_dkk}::numeric end)`
    : sql`p.btc_dkk`;
  const r = await sql<TaxEventRow>`
    select e.id, to_char(e.occurred_at, 'YYYY-MM-DD') as occurred_at, e.type, e.kind, e.sats, e.fee_sats,
      e.amount is not null as has_amount,
      case e.currency when 'DKK' then e.amount when 'EUR' then e.amount * r.eur_dkk
        when 'USD' then e.amount * r.usd_dkk end as amount_dkk,
      f.owner as from_owner, t.owner as to_owner,
      e.sats * ${price} * ${PER_SAT} as sats_value_dkk,
      e.fee_sats * ${price} * ${PER_SAT} as fee_value_dkk
    from btc.events e
    left join btc.ledger_rates r on r.date = e.occurred_at and e.amount is not null
    left join btc.wallets f on f.id = coalesce(e.from_wallet, e.wallet)
    left join btc.wallets t on t.id = coalesce(e.to_wallet, e.wallet)
    left join btc.tax_day_prices p on p.date = e.occurred_at
      and (e.type = 'wallet_to_wallet' or (e.type in ('spend', 'receive') and e.amount is null))
    where e.type <> 'bank_to_exchange' and e.occurred_at <= ${upTo}::date
    order by e.occurred_at, e.id`.execute(db);
  return r.rows;
}

/**
 * Days up to `upTo` with an event valued at the day's BTC price (a move's fee, a move between
 * two owners, a spend or an income without an amount) whose price is not stored yet.
 */
export async function daysNeedingPrice(db: Db, upTo: string): Promise<string[]> {
  const r = await sql<{ day: string }>`
    select distinct to_char(e.occurred_at, 'YYYY-MM-DD') as day
    from btc.events e
    left join btc.wallets f on f.id = e.from_wallet
    left join btc.wallets t on t.id = e.to_wallet
    where (
        (e.type = 'wallet_to_wallet' and (e.fee_sats > 0 or f.owner <> t.owner))
        or (e.type = 'spend' and e.amount is null)
        or (e.type = 'receive' and e.kind = 'income' and e.amount is null)
      )
      and e.occurred_at <= ${upTo}::date
      and not exists (select 1 from btc.tax_day_prices p where p.date = e.occurred_at)
    order by 1`.execute(db);
  return r.rows.map((x) => x.day);
}

/** The vwap of each day's Kraken BTC/EUR daily candle (the UTC day of that date), where stored. */
export async function dailyVwaps(db: Db, days: readonly string[]): Promise<Map<string, string>> {
  if (days.length === 0) return new Map();
  const r = await sql<{ day: string; vwap: string }>`
    select to_char(time at time zone 'UTC', 'YYYY-MM-DD') as day, vwap
    from btc.candles_day
    where pair = 'BTC/EUR'
      and time = any(select (d || 'T00:00:00Z')::timestamptz from unnest(${[...days]}::text[]) as d)
      and vwap > 0`.execute(db);
  return new Map(r.rows.map((x) => [x.day, String(x.vwap)]));
}

export type DayPrice = Omit<TaxDayPricesTable, 'stored_at'>;

/** Stores days' prices; a day already stored keeps its price. */
export async function savePrices(db: Db, rows: readonly DayPrice[]): Promise<void> {
  await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('btc.tax_day_prices')
      .values(chunk)
      .onConflict((oc) => oc.column('date').doNothing())
      .execute(),
  );
}
