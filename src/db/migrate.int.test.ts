import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../test/support/db.js';
import { openDatabase } from './connect.js';
import { parsePostgresUrl } from '../config.js';
import { createHash } from 'node:crypto';
import { loadMigrations, migrate, REWORDED } from './migrate.js';

let t: TestDatabase;
afterEach(() => t?.close());

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-mig-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.join(dir, path.dirname(name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

describe('migrations', () => {
  it('applies the project migrations once and records them', async () => {
    t = await freshDatabase({ migrated: false });
    const first = await migrate(t.database);
    expect(first).toContain('btc/0001_schema.sql');
    expect(first).toContain('power/0001_schema.sql');
    expect(await migrate(t.database)).toEqual([]);
    const schemas = await sql<{
      nspname: string;
    }>`select nspname from pg_namespace where nspname in ('btc','power') order by 1`.execute(t.database.db);
    expect(schemas.rows.map((r) => r.nspname)).toEqual(['btc', 'power']);
  });

  it('orders by version then schema, and rolls back a failing migration with its record', async () => {
    t = await freshDatabase({ migrated: false });
    const dir = await migrationsDir({
      'b/0001_a.sql': 'create schema b; create table b.x (id int);',
      'a/0002_a.sql': 'create schema a;',
      'b/0002_bad.sql': 'insert into b.x values (1); select * from nowhere;',
    });
    const all = await loadMigrations(dir);
    expect(all.map((m) => `${m.schema}/${m.version}`)).toEqual(['b/1', 'a/2', 'b/2']);
    await expect(migrate(t.database, all)).rejects.toThrow(/b\/0002_bad.sql failed/);
    const rows = await sql<{ n: number }>`select count(*)::int as n from b.x`.execute(t.database.db);
    expect(rows.rows[0]?.n).toBe(0);
    const recorded = await t.database.db
      .selectFrom('satwatt_migrations')
      .select(['schema_name', 'version'])
      .execute();
    expect(recorded).toHaveLength(2);
  });

  it('refuses to start when an applied migration was edited', async () => {
    t = await freshDatabase({ migrated: false });
    const dir = await migrationsDir({ 'c/0001_a.sql': 'create schema c;' });
    await migrate(t.database, await loadMigrations(dir));
    await writeFile(path.join(dir, 'c/0001_a.sql'), 'create schema c; -- edited');
    await expect(migrate(t.database, await loadMigrations(dir))).rejects.toThrow(
      /changed after it was applied/,
    );
  });

  it('keeps accepting the earlier checksum of a migration whose comments alone were reworded', async () => {
    const all = await loadMigrations();
    const withoutComments = (text: string) =>
      text
        .split('\n')
        .map((line) => line.replace(/--.*$/, '').trimEnd())
        .filter((line) => line !== '')
        .join('\n');
    for (const [key, { statements }] of Object.entries(REWORDED)) {
      const m = all.find((x) => `${x.schema}/${x.name}` === key);
      expect(m, key).toBeDefined();
      expect(createHash('sha256').update(withoutComments(m!.sql)).digest('hex'), key).toBe(statements);
    }
    t = await freshDatabase({ migrated: false });
    await migrate(t.database, all);
    const [key, { earlier }] = Object.entries(REWORDED)[0]!;
    const [schema, name] = key.split('/');
    await sql`update public.satwatt_migrations set checksum = ${earlier[0]} where schema_name = ${schema} and name = ${name}`.execute(
      t.database.db,
    );
    expect(await migrate(t.database, all)).toEqual([]);
    await sql`update public.satwatt_migrations set checksum = 'other' where schema_name = ${schema} and name = ${name}`.execute(
      t.database.db,
    );
    await expect(migrate(t.database, all)).rejects.toThrow(/changed after it was applied/);
  });

  it('refuses a database that has a migration this code does not have, touching nothing', async () => {
    t = await freshDatabase({ migrated: false });
    const newer = await migrationsDir({
      'e/0001_a.sql': 'create schema e;',
      'e/0002_b.sql': 'create table e.later (id int);',
    });
    await migrate(t.database, await loadMigrations(newer));
    const older = await migrationsDir({
      'e/0001_a.sql': 'create schema e;',
      'f/0003_c.sql': 'create schema f;',
    });
    await expect(migrate(t.database, await loadMigrations(older))).rejects.toThrow(
      'the database was migrated by a newer satwatt (it has e/0002_b.sql, which this version does not)',
    );
    const f = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_namespace where nspname = 'f'`.execute(t.database.db);
    expect(f.rows[0]!.n).toBe(0);
  });

  it('lets two processes migrate at once without applying anything twice', async () => {
    t = await freshDatabase({ migrated: false });
    const dir = await migrationsDir({
      'd/0001_a.sql':
        'create schema d; create table d.once (id int primary key); insert into d.once values (1);',
    });
    const migrations = await loadMigrations(dir);
    // On a server the second connection pool stands for a second process; PGlite has only one.
    const other = TEST_DATABASE_URL ? await openDatabase({ server: parsePostgresUrl(t.url!) }) : t.database;
    try {
      const results = await Promise.all([migrate(t.database, migrations), migrate(other, migrations)]);
      expect(results.map((r) => r.length).sort()).toEqual([0, 1]);
    } finally {
      if (other !== t.database) await other.close();
    }
  });
});
