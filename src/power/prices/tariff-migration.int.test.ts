import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../db/migrate.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';

let db: TestDatabase;
/** power/0190 drops the tariff and charge periods that nothing reads since 0140 copied them. */
const DROPPED = 190;

beforeAll(async () => {
  db = await freshDatabase({ migrated: false });
});
afterAll(() => db.close());

describe('migration power/0003 (tariff periods)', () => {
  it('backfills hourly rows stored before it with the tariff of their wall-clock hour', async () => {
    const all = await loadMigrations();
    const before = all.filter((m) => !(m.schema === 'power' && m.version >= 3));
    await migrate(db.database, before);
    // Both 02:00 hours of 2025-10-26 (00:00Z and 01:00Z), a 17:00 peak hour, and an hour before any period.
    await sql`insert into power.elprices (time_dk, price_area, price_dkk) values
      ('2025-10-26T00:00:00Z', 'DK1', 100.25), ('2025-10-26T01:00:00Z', 'DK1', 90.5),
      ('2025-10-26T16:00:00Z', 'DK2', -12.125), ('2024-01-10T12:00:00Z', 'DK1', 500)`.execute(db.database.db);
    // Up to the migration that drops the periods, which the next test reads.
    await migrate(
      db.database,
      all.filter((m) => !(m.schema === 'power' && m.version >= DROPPED)),
    );
    const rows = await sql<{ t: string; tariff: string | null; total: string | null }>`
      select to_char(time_dk at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as t, tariff_dkk::text as tariff, total_dkk::text as total
        from power.elprices order by time_dk`.execute(db.database.db);
    expect(rows.rows).toEqual([
      { t: '2024-01-10T12:00', tariff: null, total: null },
      { t: '2025-10-26T00:00', tariff: '97.60', total: '197.85' },
      { t: '2025-10-26T01:00', tariff: '97.60', total: '188.10' },
      { t: '2025-10-26T16:00', tariff: '878.80', total: '866.675' },
    ]);
  });

  it('seeds Radius Elnet periods that follow each other without gaps', async () => {
    const r = await sql<{ from: string; to: string | null }>`
      select valid_from::text as from, valid_to::text as to from power.tariff_periods
       where grid_company_gln = '5790000705689' order by valid_from`.execute(db.database.db);
    expect(r.rows.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < r.rows.length; i++) expect(r.rows[i]!.from).toBe(r.rows[i - 1]!.to);
  });
});

describe('migration power/0190', () => {
  it('drops the tariff periods and the charge periods, which no statement reads', async () => {
    await migrate(db.database);
    const tables = await sql<{ t: string | null }>`
      select to_regclass('power.tariff_periods')::text as t
      union all select to_regclass('power.charge_periods')::text`.execute(db.database.db);
    expect(tables.rows).toEqual([{ t: null }, { t: null }]);
  });
});
