import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

/**
 * The portfolio reads the ledger's and the market's tables; it owns none. Sums leave SQL as
 * numeric strings (exact); nothing is rounded here.
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

export interface SpotRow {
  at: Date;
  btc_eur: string;
  btc_usd: string;
  btc_dkk: string | null;
}

// Divisions get 30 decimal places (PostgreSQL gives about 16 significant digits by default), so
// the cost is exact to far below the cent before it is rounded once.
const SCALE = sql.raw('numeric(60, 30)');

/**
 * Sats bought, transfer fees and the buys' cost in EUR, DKK and USD at the rates of each buy's
 * date, over the events up to `at` (all when undefined). The events are first summed per type,
 * date and currency, so each date's rates are applied once to the date's sum rather than to
 * every row: one pass over the events, then a few thousand conversions.
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
    with g as (
      select type, occurred_at, currency,
        sum(sats) as sats, sum(fee_sats) as fee_sats, sum(amount) as amount
      from btc.events
      where type <> 'bank_to_exchange' ${upTo}
      group by type, occurred_at, currency
    )
    select
      coalesce(sum(g.sats) filter (where g.type = 'exchange_to_wallet'), 0) as bought_sats,
      coalesce(sum(g.fee_sats) filter (where g.type = 'wallet_to_wallet'), 0) as fee_sats,
      coalesce(sum(case g.currency when 'EUR' then g.amount
        when 'DKK' then g.amount::${SCALE} / r.eur_dkk else g.amount * r.usd_eur end), 0) as eur,
      coalesce(sum(case g.currency when 'DKK' then g.amount
        when 'EUR' then g.amount * r.eur_dkk else g.amount * r.usd_dkk end), 0) as dkk,
      coalesce(sum(case g.currency when 'USD' then g.amount
        when 'EUR' then g.amount::${SCALE} / r.usd_eur else g.amount::${SCALE} / r.usd_dkk end), 0) as usd,
      to_char(min(g.occurred_at) filter (where g.type = 'exchange_to_wallet' and r.date is null),
        'YYYY-MM-DD') as unconverted
    from g left join btc.ledger_rates r on r.date = g.occurred_at and g.type = 'exchange_to_wallet'`.execute(
    db,
  );
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

/**
 * Every wallet with its balance after the events up to `at`, summed from the events with the
 * ledger's table of effects: the receiving wallet + sats, a transfer's sender − (sats + fee).
 */
export async function walletBalancesAt(db: Db, at: string): Promise<WalletSats[]> {
  const r = await sql<WalletSats>`
    select w.id, w.name, w.wallet_type, coalesce(d.sats, 0) as sats
    from btc.wallets w left join (
      select v.wallet, sum(v.delta) as sats
      from btc.events e
      cross join lateral (values
        (e.to_wallet, e.sats),
        (case when e.type = 'wallet_to_wallet' then e.from_wallet end, -(e.sats + e.fee_sats))
      ) as v (wallet, delta)
      where e.type <> 'bank_to_exchange' and e.occurred_at <= ${at}::date and v.wallet is not null
      group by v.wallet
    ) d on d.wallet = w.id
    order by w.id`.execute(db);
  return r.rows.map((w) => ({ ...w, sats: String(w.sats) }));
}

/** The spot price every process answers: the latest stored row. */
export function latestSpotPrice(db: Db): Promise<SpotRow | undefined> {
  return db
    .selectFrom('btc.spot_prices')
    .select(['at', 'btc_eur', 'btc_usd', 'btc_dkk'])
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The closes of the daily candles that start at `start` (00:00 UTC), per pair. */
export function dailyCloses(db: Db, start: Date): Promise<{ pair: string; close: string }[]> {
  return db
    .selectFrom('btc.candles_day')
    .select(['pair', 'close'])
    .where('time', '=', start)
    .where('pair', 'in', ['BTC/EUR', 'BTC/USD'])
    .execute();
}
