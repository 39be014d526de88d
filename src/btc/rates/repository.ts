import { sql, type OnConflictBuilder } from 'kysely';
import type { DB, Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { DailyRates } from './service.js';

// Dates as text: the embedded database's driver would otherwise turn them into Date objects.
const COLUMNS = [
  sql<string>`to_char(date, 'YYYY-MM-DD')`.as('date'),
  sql<string>`to_char(rates_date, 'YYYY-MM-DD')`.as('rates_date'),
  'usd_eur',
  'usd_dkk',
  'eur_dkk',
] as const;

export async function findByDate(db: Db, date: string): Promise<DailyRates | undefined> {
  return db.selectFrom('btc.currency_rates').select(COLUMNS).where('date', '=', date).executeTakeFirst();
}

/** The stored records of these days (any order, repeats allowed), by day. */
export async function findByDates(db: Db, dates: readonly string[]): Promise<Map<string, DailyRates>> {
  if (dates.length === 0) return new Map();
  const rows = await db
    .selectFrom('btc.currency_rates')
    .select(COLUMNS)
    .where(sql<boolean>`date = any(${dates}::date[])`)
    .execute();
  return new Map(rows.map((r) => [r.date, r]));
}

/** The record of the latest requested day. */
export async function findLatest(db: Db): Promise<DailyRates | undefined> {
  return db
    .selectFrom('btc.currency_rates')
    .select(COLUMNS)
    .orderBy('date', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Stores a day's record. An existing one is replaced only by rates of a later publication day
 * (today's record fetched before the ECB published becomes today's rates once they exist).
 * Returns the record now stored.
 */
export async function upsert(db: Db, record: DailyRates): Promise<DailyRates> {
  const stored = await db
    .insertInto('btc.currency_rates')
    .values(record)
    .onConflict(laterPublication)
    .returning(COLUMNS)
    .executeTakeFirst();
  return stored ?? (await findByDate(db, record.date))!;
}

/** Stores many days' records, all or none, by upsert's rule. */
export async function upsertMany(db: Db, records: readonly DailyRates[]): Promise<void> {
  await writeInChunks(db, records, (db, chunk) =>
    db.insertInto('btc.currency_rates').values(chunk).onConflict(laterPublication).execute(),
  );
}

/** A stored day's record is replaced only by rates of a later publication day. */
function laterPublication(oc: OnConflictBuilder<DB, 'btc.currency_rates'>) {
  return oc
    .column('date')
    .doUpdateSet((eb) => ({
      rates_date: eb.ref('excluded.rates_date'),
      usd_eur: eb.ref('excluded.usd_eur'),
      usd_dkk: eb.ref('excluded.usd_dkk'),
      eur_dkk: eb.ref('excluded.eur_dkk'),
      fetched_at: eb.ref('excluded.fetched_at'),
    }))
    .whereRef('excluded.rates_date', '>', 'btc.currency_rates.rates_date');
}
