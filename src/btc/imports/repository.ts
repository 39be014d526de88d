import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { Source } from './movements.js';
import type { DayRates, StoredLot } from './plan.js';
import type { PurchaseLotsTable } from './tables.js';
import { LOCK_KEYS } from '../../db/lock-keys.js';
import { writeInChunks } from '../../db/chunks.js';

/** The advisory lock that lets one import at a time plan against the stored state. */
const IMPORT_LOCK_KEY = LOCK_KEYS.ledgerImports;

/** Held until the transaction ends: imports see each other's references and lots whole. */
export async function lockImports(db: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_KEY})`.execute(db);
}

/** Which of these event references of a source are stored. */
export async function knownEventReferences(
  db: Db,
  source: Source,
  references: readonly string[],
): Promise<string[]> {
  if (references.length === 0) return [];
  const rows = await db
    .selectFrom('btc.imported_events')
    .select('reference')
    .where('source', '=', source)
    .where(sql<boolean>`reference = any(${references}::text[])`)
    .execute();
  return rows.map((r) => r.reference);
}

/** Which of these lot references of a source are stored. */
export async function knownLotReferences(
  db: Db,
  source: Source,
  references: readonly string[],
): Promise<string[]> {
  if (references.length === 0) return [];
  const rows = await db
    .selectFrom('btc.purchase_lots')
    .select('reference')
    .where('source', '=', source)
    .where(sql<boolean>`reference = any(${references}::text[])`)
    .execute();
  return rows.map((r) => r.reference);
}

/** An exchange's lots that still hold sats, oldest first: what the next withdrawal takes from. */
export async function openLots(db: Db, exchange: number): Promise<StoredLot[]> {
  const r = await sql<Omit<StoredLot, 'at'> & { at: string }>`
    select l.id, l.reference, (extract(epoch from l.acquired_at) * 1000)::int8::text as at,
      to_char(l.occurred_at, 'YYYY-MM-DD') as day, l.sats,
      l.sats - coalesce(sum(a.sats), 0)::int8 as remaining, l.amount::text as amount, l.currency
    from btc.purchase_lots l left join btc.lot_allocations a on a.lot_id = l.id
    where l.exchange = ${exchange}
    group by l.id
    having l.sats - coalesce(sum(a.sats), 0) > 0
    order by l.acquired_at, l.id`.execute(db);
  return r.rows.map((x) => ({ ...x, at: Number(x.at), remaining: Number(x.remaining) }));
}

/** The new lots' ids, in the order given (ids grow row by row). */
export async function insertLots(db: Db, lots: readonly Omit<PurchaseLotsTable, 'id'>[]): Promise<number[]> {
  const chunks = await writeInChunks(db, lots, (db, chunk) =>
    db.insertInto('btc.purchase_lots').values(chunk).returning('id').execute(),
  );
  return chunks
    .flat()
    .map((r) => r.id)
    .sort((a, b) => a - b);
}

export async function insertAllocations(
  db: Db,
  rows: readonly { event_id: number; lot_id: number; sats: number }[],
): Promise<void> {
  await writeInChunks(db, rows, (db, chunk) => db.insertInto('btc.lot_allocations').values(chunk).execute());
}

export async function insertReferences(
  db: Db,
  rows: readonly { event_id: number; source: Source; reference: string }[],
): Promise<void> {
  await writeInChunks(db, rows, (db, chunk) => db.insertInto('btc.imported_events').values(chunk).execute());
}

/** The rates the ledger stored for these days (a day not stored is absent). */
export async function storedRates(db: Db, days: readonly string[]): Promise<Map<string, DayRates>> {
  if (days.length === 0) return new Map();
  const r = await sql<DayRates & { date: string }>`
    select to_char(date, 'YYYY-MM-DD') as date, usd_eur::text as usd_eur, eur_dkk::text as eur_dkk
    from btc.ledger_rates where date = any(${days}::date[])`.execute(db);
  return new Map(r.rows.map(({ date, ...rates }) => [date, rates]));
}
