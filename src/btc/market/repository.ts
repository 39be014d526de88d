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
