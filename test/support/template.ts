import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/config.js';
import { openDatabase, PGLITE_INITDB_PARAMS } from '../../src/db/connect.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';

/*
 * A fresh database per test file is a copy of one made and migrated once per set of migrations:
 * on PGlite a tar of the migrated folder (PGlite's dumpDataDir), which a new in-memory database
 * unpacks instead of running initdb (0.5 s against 3 s); on a server a template database, which
 * CREATE DATABASE … TEMPLATE copies. The copies are made by the real migrator, whose check of
 * every applied migration still runs on each fresh database. Each set of migrations has its own
 * template (branches side by side share a machine), left for the next run.
 */

const PREFIX = 'satwatt_template_';

/** Names the migrations and PGlite's version and settings: a change to any makes a new template. */
async function fingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const m of await loadMigrations()) hash.update(`${m.schema}/${m.name}:${m.checksum}\n`);
  const { version } = JSON.parse(
    await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  hash.update(`pglite ${version} ${PGLITE_INITDB_PARAMS.join(' ')}`);
  return hash.digest('hex').slice(0, 16);
}

let embedded: Promise<string> | null = null;
let server: Promise<string> | null = null;

/** The path of the migrated embedded database's tar, made at the first call of any process. */
export function embeddedTemplate(): Promise<string> {
  embedded ??= (async () => {
    const id = await fingerprint();
    const file = path.join(tmpdir(), `satwatt-template-${id}.tar`);
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    )
      return file;
    const folder = await mkdtemp(path.join(tmpdir(), 'satwatt-template-'));
    try {
      const database = await openDatabase({ server: null, dataDir: folder, fsync: false });
      await migrate(database);
      await database.close();
      const { PGlite } = await import('@electric-sql/pglite');
      const pglite = await PGlite.create({ dataDir: path.join(folder, 'pg') });
      const tar = await pglite.dumpDataDir('none');
      await pglite.close();
      // written beside and renamed: a process that finds the file finds it whole
      const partial = `${file}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, Buffer.from(await tar.arrayBuffer()));
      await rename(partial, file);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    return file;
  })();
  return embedded;
}

async function withAdmin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The name of the migrated template database on the server at `url`, made at the first call. */
export function serverTemplate(url: string): Promise<string> {
  server ??= (async () => {
    const name = `${PREFIX}${await fingerprint()}`;
    const exists = (c: pg.Client) =>
      c.query('select 1 from pg_database where datname = $1', [name]).then((r) => r.rowCount === 1);
    if (await withAdmin(url, exists)) return name;
    const making = `${PREFIX}making_${randomBytes(6).toString('hex')}`;
    await withAdmin(url, (c) => c.query(`create database ${making}`));
    const u = new URL(url);
    u.pathname = `/${making}`;
    const database = await openDatabase({ server: parsePostgresUrl(u.toString()), poolSize: 1 });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    await withAdmin(url, async (c) => {
      // the pool's connections may outlive its close by a moment; a template is copied only without any
      await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [making]);
      // a process that made it meanwhile wins; ours is dropped
      if (await exists(c)) await c.query(`drop database ${making} with (force)`);
      else await c.query(`alter database ${making} rename to ${name}`);
    });
    return name;
  })();
  return server;
}
