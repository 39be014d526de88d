import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../test/support/db.js';
import { openDatabase, type Database } from './connect.js';

const opened: Database[] = [];
afterAll(async () => {
  for (const d of opened) await d.close();
});

/** The same values come back the same way from every backend, so no feature sees a difference. */
async function typesOf(database: Database) {
  const r = await sql<{ sats: unknown; amount: unknown; day: unknown; at: unknown }>`
    select 2100000000000000::int8 as sats, 12.345678901234567890::numeric as amount,
           date '2025-10-26' as day, timestamptz '2025-10-26T01:30:00Z' as at`.execute(database.db);
  return r.rows[0];
}

describe('type parsing', () => {
  const expected = {
    sats: 2100000000000000,
    amount: '12.345678901234567890',
    day: '2025-10-26',
    at: new Date('2025-10-26T01:30:00Z'),
  };

  it('is identical in memory, on disk and on the test server', { timeout: 120_000 }, async () => {
    const memory = await openDatabase({ server: null });
    const disk = await openDatabase({
      server: null,
      dataDir: await mkdtemp(path.join(tmpdir(), 'satwatt-types-')),
    });
    const fresh = await freshDatabase({ migrated: false });
    opened.push(memory, disk, fresh.database);
    expect(await typesOf(memory)).toEqual(expected);
    expect(await typesOf(disk)).toEqual(expected);
    expect(await typesOf(fresh.database)).toEqual(expected);
  });
});
