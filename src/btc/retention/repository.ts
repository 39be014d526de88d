import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

/**
 * Folds the quotes of the oldest `hours` whole hours before `before` (an hour boundary) into
 * `btc.quotes_hour`, deleting them in the same statement, so that a reader sees each quote
 * either whole or in its hour, never both and never neither. An hour folded again (a late
 * quote) adds up. Returns how many quotes were folded.
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

/** Deletes at most `limit` of the oldest 1-minute candles (both pairs) that start before `before`. */
export async function pruneMinuteCandles(db: Db, before: Date, limit: number): Promise<number> {
  const r = await sql`
    delete from btc.candles_minute
    where (pair, time) in (
      select pair, time from btc.candles_minute where time < ${before} order by time limit ${limit}
    )`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * Deletes at most `limit` idempotency keys (the ledger's table) stored before `before`: a retry
 * after that is a new request, as with Stripe's 24 hours.
 */
export async function pruneIdempotencyKeys(db: Db, before: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('btc.idempotency_keys')
    .where(
      'key',
      'in',
      db.selectFrom('btc.idempotency_keys').select('key').where('created_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The tables retention deletes from (and the spot feed prunes), vacuumed and analyzed after a run. */
export const VACUUMED = [
  'btc.quotes',
  'btc.quotes_hour',
  'btc.spot_prices',
  'btc.candles_minute',
  'btc.idempotency_keys',
] as const;

/**
 * A plain VACUUM (ANALYZE) of one table: the space of deleted rows becomes free for new ones
 * and the planner's statistics follow the table. PGlite runs no autovacuum, so without this a
 * pruned table would still grow and its plans would go stale. It blocks no reader or writer.
 */
export async function vacuumTable(db: Db, table: (typeof VACUUMED)[number]): Promise<void> {
  await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
}

/**
 * A checkpoint, after which the write-ahead log's old segments are recycled. The embedded
 * database (single-user PGlite) has no checkpointer process of its own, so without this its
 * pg_wal grows with every write (the year simulation measured it). A server checkpoints itself.
 */
export async function checkpoint(db: Db): Promise<void> {
  await sql`checkpoint`.execute(db);
}
