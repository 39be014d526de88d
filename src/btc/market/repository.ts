import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { RatesJson, StrikeRateJson } from './tables.js';

type Handle = Kysely<DB> | Transaction<DB>;

export interface PriceRow {
  id: number;
  at: Date;
  btc_usd: string;
  btc_eur: string;
  btc_dkk: string | null;
  rates: RatesJson | null;
}

export interface QuoteRow {
  id: number;
  at: Date;
  total_eur: string;
  fee_eur: string;
  pre_fee_eur: string;
  quote_sats: number;
  rates: StrikeRateJson[];
}

export async function insertPrice(db: Handle, p: Omit<PriceRow, 'id'>): Promise<number> {
  const r = await db
    .insertInto('btc.spot_prices')
    .values({ ...p, rates: p.rates === null ? null : JSON.stringify(p.rates) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function latestPrice(db: Handle): Promise<PriceRow | undefined> {
  return db.selectFrom('btc.spot_prices').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Keeps the table to a recent window; the latest row is all that anything reads. */
export async function prunePrices(db: Handle, before: Date): Promise<void> {
  await db.deleteFrom('btc.spot_prices').where('at', '<', before).execute();
}

export async function insertQuote(db: Handle, q: Omit<QuoteRow, 'id'>): Promise<number> {
  const r = await db
    .insertInto('btc.quotes')
    .values({ ...q, rates: JSON.stringify(q.rates) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function latestQuote(db: Handle): Promise<QuoteRow | undefined> {
  return db.selectFrom('btc.quotes').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function feeOf(db: Handle, date: string, totalEur: string): Promise<string | undefined> {
  const r = await db
    .selectFrom('btc.quote_fees')
    .select('fee_eur')
    .where('date', '=', date)
    .where('total_eur', '=', totalEur)
    .executeTakeFirst();
  return r?.fee_eur;
}

/** The first fee learned for a day stays; a concurrent second one is ignored. */
export async function saveFee(
  db: Handle,
  f: { date: string; total_eur: string; fee_eur: string; learned_at: Date },
): Promise<void> {
  await db
    .insertInto('btc.quote_fees')
    .values(f)
    .onConflict((oc) => oc.columns(['date', 'total_eur']).doNothing())
    .execute();
}

export async function notify(db: Handle, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
