import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './connect.js';
import { DataDirLockedError } from './data-dir-lock.js';

describe('embedded database folder', () => {
  it('persists across opens and refuses a second opener while in use', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-data-'));
    const first = await openDatabase({ server: null, dataDir: dir });
    await sql`create table kept (v int)`.execute(first.db);
    await sql`insert into kept values (42)`.execute(first.db);
    await expect(openDatabase({ server: null, dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await first.close();
    const again = await openDatabase({ server: null, dataDir: dir });
    const rows = await sql<{ v: number }>`select v from kept`.execute(again.db);
    expect(rows.rows).toEqual([{ v: 42 }]);
    await again.close();
  });
});
