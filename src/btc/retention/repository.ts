import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

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
