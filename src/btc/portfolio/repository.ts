import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

/**
 * The portfolio owns no table: it reads the ledger's here, and the market's spot price and the
 * candles' closes through their repositories. Sums leave SQL as numeric strings (exact);
 * nothing is rounded here.
 */

/** Fiat sums per currency, exact. */
export interface FiatSums {
  eur: string;
  dkk: string;
  usd: string;
}

export interface Totals {
  bought_sats: string;
  fee_sats: string;
  cost: FiatSums;
  /** The first date of a buy the ledger kept no rates for (null when every buy is converted). */
  unconverted: string | null;
}

export interface WalletSats {
  id: number;
  name: string;
  wallet_type: 'exchange' | 'wallet';
  sats: string;
}

// Divisions get 30 decimal places (PostgreSQL gives about 16 significant digits by default), so
// the cost is exact to far below the cent before it is rounded once.
const SCALE = sql.raw('numeric(60, 30)');

/**
 * Sats bought, transfer fees and the buys' cost in EUR, DKK and USD at the rates of each buy's
 * date, over the events up to `at` (all when undefined). The buys are first summed per date and
 * currency (from the index of migration 0050, in date order), so each date's rates are applied
 * once to the date's sums rather than to every row.
 */
export async function totals(db: Db, at?: string): Promise<Totals> {
  const upTo = at === undefined ? sql`` : sql`and occurred_at <= ${at}::date`;
  const r = await sql<{
    bought_sats: string;
    fee_sats: string;
    eur: string;
    dkk: string;
    usd: string;
    unconverted: string | null;
  }>`
    with b as (
      select occurred_at, currency, sum(amount) as amount, sum(sats) as sats
      from btc.events
      where type in ('exchange_to_wallet', 'exchange_buy') ${upTo}
      group by occurred_at, currency
    )
    select
      coalesce(sum(b.sats), 0) as bought_sats,
      (select coalesce(sum(fee_sats), 0) from btc.events
        where type = 'wallet_to_wallet' ${upTo}) as fee_sats,
      coalesce(sum(case b.currency when 'EUR' then b.amount
        when 'DKK' then b.amount::${SCALE} / r.eur_dkk else b.amount * r.usd_eur end), 0) as eur,
      coalesce(sum(case b.currency when 'DKK' then b.amount
        when 'EUR' then b.amount * r.eur_dkk else b.amount * r.usd_dkk end), 0) as dkk,
      coalesce(sum(case b.currency when 'USD' then b.amount
        when 'EUR' then b.amount::${SCALE} / r.usd_eur else b.amount::${SCALE} / r.usd_dkk end), 0) as usd,
      to_char(min(b.occurred_at) filter (where r.date is null), 'YYYY-MM-DD') as unconverted
    from b left join btc.ledger_rates r on r.date = b.occurred_at`.execute(db);
  const row = r.rows[0]!;
  return {
    bought_sats: String(row.bought_sats),
    fee_sats: String(row.fee_sats),
    cost: { eur: String(row.eur), dkk: String(row.dkk), usd: String(row.usd) },
    unconverted: row.unconverted,
  };
}

/** Every wallet with its kept balance (the ledger's column, changed with every event). */
export function walletBalances(db: Db): Promise<WalletSats[]> {
  return db
    .selectFrom('btc.wallets')
    .select(['id', 'name', 'wallet_type', sql<string>`balance::numeric`.as('sats')])
    .orderBy('id')
    .execute();
}

/** Every wallet with its balance after the events up to `at`: the ledger's moves (btc.event_moves) summed. */
export async function walletBalancesAt(db: Db, at: string): Promise<WalletSats[]> {
  const r = await sql<WalletSats>`
    with d (wallet, sats) as (
      select wallet_id, sum(sats_delta) from btc.event_moves
      where occurred_at <= ${at}::date
      group by wallet_id
    )
    select w.id, w.name, w.wallet_type, coalesce(d.sats, 0) as sats
    from btc.wallets w left join d on d.wallet = w.id
    order by w.id`.execute(db);
  return r.rows.map((w) => ({ ...w, sats: String(w.sats) }));
}
