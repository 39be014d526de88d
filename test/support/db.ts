import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { embeddedTemplate, serverTemplate } from './template.js';

/** The PostgreSQL server the suite runs against, or null for PGlite (the default). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;

export interface TestDatabase {
  database: Database;
  /** The server connection of this database, for child processes; null on PGlite. */
  url: string | null;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database with a
 * random name on the TEST_DATABASE_URL server, dropped again on close. A migrated one starts as
 * a copy of the migrated template (template.ts), and the migrator then checks it.
 */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  let database: Database;
  let url: string | null = null;
  let drop = async () => {};
  if (TEST_DATABASE_URL) {
    const name = `satwatt_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const template = opts.migrated === false ? null : await serverTemplate(TEST_DATABASE_URL);
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
    await admin.end();
    const u = new URL(TEST_DATABASE_URL);
    u.pathname = `/${name}`;
    url = u.toString();
    database = await openDatabase({ server: parsePostgresUrl(url), poolSize: 5 });
    drop = async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  } else {
    const template = opts.migrated === false ? undefined : await embeddedTemplate();
    database = await openDatabase({ server: null, ...(template ? { template } : {}) });
  }
  if (opts.migrated !== false) await migrate(database);
  return {
    database,
    url,
    close: async () => {
      await database.close();
      await drop();
    },
  };
}
