import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { CandleTable, CandleTableName } from './tables.js';

/** A candle as written: the table's row without the column the database fills. */
export type CandleRow = Omit<CandleTable, 'updated_at'>;

/** Inserts candles, overwriting stored ones of the same start (the forming candle changes). */
export async function upsertCandles(db: Db, table: CandleTableName, rows: CandleRow[]): Promise<number> {
  const results = await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto(table)
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['pair', 'time']).doUpdateSet((eb) => ({
          open: eb.ref('excluded.open'),
          high: eb.ref('excluded.high'),
          low: eb.ref('excluded.low'),
          close: eb.ref('excluded.close'),
          vwap: eb.ref('excluded.vwap'),
          volume: eb.ref('excluded.volume'),
          trades: eb.ref('excluded.trades'),
          updated_at: sql<Date>`now()`,
        })),
      )
      .executeTakeFirst(),
  );
  return results.reduce((n, r) => n + Number(r.numInsertedOrUpdatedRows ?? 0), 0);
}

/** Inserts closed candles; one already stored is never changed. Returns how many were new. */
export async function insertClosedCandles(
  db: Db,
  table: CandleTableName,
  rows: CandleRow[],
): Promise<number> {
  const results = await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto(table)
      .values(chunk)
      .onConflict((oc) => oc.columns(['pair', 'time']).doNothing())
      .executeTakeFirst(),
  );
  return results.reduce((n, r) => n + Number(r.numInsertedOrUpdatedRows ?? 0), 0);
}

/** The latest stored candle of a pair: where the next poll resumes, and the close the next is judged against. */
export async function lastCandle(
  db: Db,
  table: CandleTableName,
  pair: string,
): Promise<{ time: Date; close: string } | undefined> {
  return db
    .selectFrom(table)
    .select(['time', 'close'])
    .where('pair', '=', pair)
    .orderBy('time', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The latest `limit` candles of a pair, oldest first. */
export async function latestCandles(
  db: Db,
  table: CandleTableName,
  pair: string,
  limit: number,
): Promise<CandleRow[]> {
  return db
    .selectFrom((qb) =>
      qb
        .selectFrom(table)
        .select(['pair', 'time', 'open', 'high', 'low', 'close', 'vwap', 'volume', 'trades'])
        .where('pair', '=', pair)
        .orderBy('time', 'desc')
        .limit(limit)
        .as('c'),
    )
    .selectAll()
    .orderBy('time', 'asc')
    .execute();
}

/** Deletes at most `limit` of the oldest 1-minute candles (both pairs) that start before `before`, for the daily retention. */
export async function pruneMinuteCandles(db: Db, before: Date, limit: number): Promise<number> {
  const r = await sql`
    delete from btc.candles_minute
    where (pair, time) in (
      select pair, time from btc.candles_minute where time < ${before} order by time limit ${limit}
    )`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** The closes of the daily candles that start at `start` (00:00 UTC), per pair: the portfolio's value of a past day. */
export function dailyCloses(db: Db, start: Date): Promise<{ pair: string; close: string }[]> {
  return db
    .selectFrom('btc.candles_day')
    .select(['pair', 'close'])
    .where('time', '=', start)
    .where('pair', 'in', ['BTC/EUR', 'BTC/USD'])
    .execute();
}
