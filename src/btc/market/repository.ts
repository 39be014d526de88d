import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { QuoteFeesTable, QuotesTable, SpotPricesTable } from './tables.js';

export type SpotPriceRow = Selectable<SpotPricesTable>;
export type QuoteRow = Selectable<QuotesTable>;

export async function insertPrice(db: Db, p: Omit<SpotPriceRow, 'id'>): Promise<number> {
  const r = await db
    .insertInto('btc.spot_prices')
    .values({ ...p, rates: p.rates === null ? null : JSON.stringify(p.rates) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function latestPrice(db: Db): Promise<SpotPriceRow | undefined> {
  return db.selectFrom('btc.spot_prices').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Keeps the table to a recent window; the latest row is all that anything reads. */
export async function prunePrices(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('btc.spot_prices').where('at', '<', before).execute();
}

export async function insertQuote(db: Db, q: Omit<QuoteRow, 'id'>): Promise<number> {
  const r = await db
    .insertInto('btc.quotes')
    .values({ ...q, rates: JSON.stringify(q.rates) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The EUR spot price of the latest spot row in [at − maxAgeMs, at], if any. */
export async function spotAt(db: Db, at: Date, maxAgeMs: number): Promise<string | undefined> {
  const r = await db
    .selectFrom('btc.spot_prices')
    .select('btc_eur')
    .where('at', '<=', at)
    .where('at', '>=', new Date(at.getTime() - maxAgeMs))
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.btc_eur;
}

export async function latestQuote(db: Db): Promise<QuoteRow | undefined> {
  return db.selectFrom('btc.quotes').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function feeOf(db: Db, date: string, totalEur: string): Promise<string | undefined> {
  const r = await db
    .selectFrom('btc.quote_fees')
    .select('fee_eur')
    .where('date', '=', date)
    .where('total_eur', '=', totalEur)
    .executeTakeFirst();
  return r?.fee_eur;
}

/** The first fee learned for a day stays; a concurrent second one is ignored. */
export async function saveFee(db: Db, f: Selectable<QuoteFeesTable>): Promise<void> {
  await db
    .insertInto('btc.quote_fees')
    .values(f)
    .onConflict((oc) => oc.columns(['date', 'total_eur']).doNothing())
    .execute();
}

export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

export type PremiumResolution = 'hour' | 'day';

/** One bucket of quote premiums: percents as exact decimal text. */
export interface PremiumBucket {
  time: Date;
  quotes: number;
  spread_pct_avg: string;
  spread_pct_min: string;
  spread_pct_max: string;
  all_in_pct_avg: string;
}

/**
 * The premiums of the quotes in [from, to) that have one, by Danish hour or day (the hour of
 * an instant is the same in every whole-hour zone; a Danish day is 23, 24 or 25 hours long):
 * the quotes kept whole and the hourly rows of the folded ones (never both for one quote,
 * since folding deletes what it folds in the same statement).
 */
export async function premiumBuckets(
  db: Db,
  from: Date,
  to: Date,
  resolution: PremiumResolution,
): Promise<PremiumBucket[]> {
  const r = await sql<PremiumBucket>`
    with parts as (
      select at as t, 1 as n, spread_pct as s_sum, spread_pct as s_min, spread_pct as s_max,
        all_in_pct as a_sum
      from btc.quotes
      where at >= ${from} and at < ${to} and spread_pct is not null
      union all
      select time, premium_quotes, spread_pct_sum, spread_pct_min, spread_pct_max, all_in_pct_sum
      from btc.quotes_hour
      where time >= ${from} and time < ${to} and premium_quotes > 0
    )
    select date_trunc(${resolution}, t, 'Europe/Copenhagen') as time,
      sum(n)::int as quotes,
      round(sum(s_sum) / sum(n), 6)::text as spread_pct_avg,
      min(s_min)::text as spread_pct_min,
      max(s_max)::text as spread_pct_max,
      round(sum(a_sum) / sum(n), 6)::text as all_in_pct_avg
    from parts
    group by 1
    order by 1`.execute(db);
  return r.rows;
}
