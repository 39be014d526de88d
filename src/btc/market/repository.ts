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

/**
 * For the daily retention: folds the quotes of the oldest `hours` whole hours before `before` (an
 * hour boundary) into `btc.quotes_hour`, deleting them in the same statement, so that a reader
 * sees each quote either whole or in its hour, never both and never neither. An hour folded
 * again (a late quote) adds up. Returns how many quotes were folded.
 */
export async function foldQuotes(db: Db, before: Date, hours: number): Promise<number> {
  const r = await sql<{ quotes: number }>`
    with batch as (
      select least(${before}::timestamptz,
        date_trunc('hour', min(at), 'UTC') + make_interval(hours => ${hours})) as until
      from btc.quotes
      where at < ${before}
    ),
    gone as (
      delete from btc.quotes q using batch where q.at < batch.until
      returning q.*
    ),
    folded as (
      select date_trunc('hour', at, 'UTC') as time, total_eur, count(*)::int as quotes,
        min(quote_sats) as quote_sats_min, max(quote_sats) as quote_sats_max,
        sum(quote_sats) as quote_sats_sum, max(at) as last_at,
        (array_agg(rates order by at desc, id desc))[1] as last_rates,
        count(spread_pct)::int as premium_quotes, coalesce(sum(spread_pct), 0) as spread_pct_sum,
        min(spread_pct) as spread_pct_min, max(spread_pct) as spread_pct_max,
        coalesce(sum(all_in_pct), 0) as all_in_pct_sum
      from gone
      group by 1, 2
    ),
    written as (
      insert into btc.quotes_hour as h (time, total_eur, quotes, quote_sats_min, quote_sats_max,
        quote_sats_avg, quote_sats_sum, last_at, last_rates, premium_quotes, spread_pct_sum,
        spread_pct_min, spread_pct_max, all_in_pct_sum)
      select time, total_eur, quotes, quote_sats_min, quote_sats_max,
        round(quote_sats_sum / quotes, 2), quote_sats_sum, last_at, last_rates, premium_quotes,
        spread_pct_sum, spread_pct_min, spread_pct_max, all_in_pct_sum
      from folded
      on conflict (time, total_eur) do update set
        quotes = h.quotes + excluded.quotes,
        quote_sats_min = least(h.quote_sats_min, excluded.quote_sats_min),
        quote_sats_max = greatest(h.quote_sats_max, excluded.quote_sats_max),
        quote_sats_sum = h.quote_sats_sum + excluded.quote_sats_sum,
        quote_sats_avg = round((h.quote_sats_sum + excluded.quote_sats_sum)
          / (h.quotes + excluded.quotes), 2),
        last_rates = case when excluded.last_at >= h.last_at
          then excluded.last_rates else h.last_rates end,
        last_at = greatest(h.last_at, excluded.last_at),
        premium_quotes = h.premium_quotes + excluded.premium_quotes,
        spread_pct_sum = h.spread_pct_sum + excluded.spread_pct_sum,
        spread_pct_min = least(h.spread_pct_min, excluded.spread_pct_min),
        spread_pct_max = greatest(h.spread_pct_max, excluded.spread_pct_max),
        all_in_pct_sum = h.all_in_pct_sum + excluded.all_in_pct_sum
      returning 1
    )
    select (select count(*) from gone)::int as quotes`.execute(db);
  return r.rows[0]?.quotes ?? 0;
}
