import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { SolarTable } from './tables.js';

/** Fresh planner statistics after an import (see metering's analyzeEnergy). */
export async function analyzeSolar(db: Db): Promise<void> {
  await sql`analyze power.solar, power.metered_hours`.execute(db);
}

/** Returns how many rows were new; an hour already stored is kept as it is. */
export async function insertSolar(db: Db, rows: SolarTable[]): Promise<number> {
  const inserted = await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('power.solar')
      .values(chunk)
      .onConflict((oc) => oc.column('start_at').doNothing())
      .returning('start_at')
      .execute(),
  );
  return inserted.reduce((n, r) => n + r.length, 0);
}

export async function solarBetween(db: Db, start: Date, end: Date): Promise<SolarTable[]> {
  return db
    .selectFrom('power.solar')
    .selectAll()
    .where('start_at', '>=', start)
    .where('start_at', '<', end)
    .orderBy('start_at')
    .execute();
}
