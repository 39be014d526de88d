import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, ScriptSession } from './connect.js';
import { LOCK_KEYS } from './lock-keys.js';

export const MIGRATIONS_DIR = path.join(packageRoot(), 'migrations');
/** The advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK_KEY = LOCK_KEYS.migrations;

export interface Migration {
  schema: string;
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Migrations whose comments were reworded after they landed, with the checksums their earlier
 * text left in databases, which stay accepted. Their statements are unchanged: `statements` is
 * the sha256 of the text without comments, and a test holds the file to it.
 */
export const REWORDED: Record<string, { earlier: string[]; statements: string }> = {
  'power/0003_tariffs.sql': {
    earlier: ['7f13f3eacfa5d64db7535437d3a78d076744db72ede8662030b0380b95316ef1'],
    statements: '7e39363c72db72b8acd20c8e9e51af58fcac9f04e65ba9ed9b6d941a064080f0',
  },
};

/** The folder of package.json, above this module whether it runs from src/db/ or from dist/'s bundle. */
function packageRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

/** `migrations/<schema>/<NNNN>_<name>.sql`, in order of version, then schema. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const out: Migration[] = [];
  for (const schema of (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory())) {
    for (const file of (await readdir(path.join(dir, schema.name))).sort()) {
      const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
      if (!m) throw new Error(`migration file name must be NNNN_name.sql: ${schema.name}/${file}`);
      const sql = await readFile(path.join(dir, schema.name, file), 'utf8');
      out.push({
        schema: schema.name,
        version: Number(m[1]),
        name: file,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      });
    }
  }
  return out.sort((a, b) => a.version - b.version || a.schema.localeCompare(b.schema));
}

/**
 * Applies what is missing, each migration in its own transaction together with its record.
 * An up-to-date database is checked with one read; otherwise an advisory lock makes a second
 * process wait, then find nothing left to do.
 * An applied migration whose file changed stops the start: migrations are frozen once they land.
 */
export async function migrate(
  database: Database,
  migrations?: Migration[],
  /** A stop: no further migration is begun (the one in progress commits or rolls back whole). */
  signal?: AbortSignal,
): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return database.withSession(async (s) => {
    const applied = await readApplied(s).catch((e: unknown) => {
      if ((e as { code?: string }).code === UNDEFINED_TABLE) return null;
      throw e;
    });
    if (applied) refuseNewer(all, applied);
    if (applied && missing(all, applied).length === 0) return [];
    await s.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await s.exec(`create table if not exists public.satwatt_migrations (
        schema_name text not null, version integer not null, name text not null,
        checksum text not null, applied_at timestamptz not null default now(),
        primary key (schema_name, version))`);
      const done: string[] = [];
      const now = await readApplied(s);
      refuseNewer(all, now);
      for (const m of missing(all, now)) {
        if (signal?.aborted) throw new MigrationsStopped(done.length);
        await applyOne(s, m);
        done.push(`${m.schema}/${m.name}`);
      }
      return done;
    } finally {
      await s.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}

const UNDEFINED_TABLE = '42P01';

/** Throws NewerDatabaseError when the database has a migration this code does not; reads only. */
export async function checkNotNewer(database: Database, migrations?: Migration[]): Promise<void> {
  const all = migrations ?? (await loadMigrations());
  await database.withSession(async (s) => {
    const applied = await readApplied(s).catch((e: unknown) => {
      if ((e as { code?: string }).code === UNDEFINED_TABLE) return [];
      throw e;
    });
    refuseNewer(all, applied);
  });
}

interface Applied {
  schema_name: string;
  version: number;
  name: string;
  checksum: string;
}

function readApplied(s: ScriptSession): Promise<Applied[]> {
  return s.query<Applied>('select schema_name, version, name, checksum from public.satwatt_migrations');
}

/** A stop came while migrations were being applied; those applied are kept, the next start applies the rest. */
export class MigrationsStopped extends Error {
  constructor(applied: number) {
    super(`stopped after applying ${applied} migration(s); the next start applies the rest`);
  }
}

/** A database that a newer satwatt has migrated; this code does not know its tables. */
export class NewerDatabaseError extends Error {}

/**
 * An applied migration this code does not have means a newer version wrote the database (a
 * downgrade, or a restored backup of a newer one): running on it could write what the newer
 * code no longer reads, so the start stops before anything is touched.
 */
function refuseNewer(all: Migration[], applied: Applied[]): void {
  const known = new Set(all.map((m) => `${m.schema}/${m.version}`));
  const unknown = applied
    .filter((a) => !known.has(`${a.schema_name}/${a.version}`))
    .map((a) => `${a.schema_name}/${a.name}`)
    .sort();
  if (unknown.length === 0) return;
  throw new NewerDatabaseError(
    `the database was migrated by a newer satwatt (it has ${unknown.join(', ')}, which this version does not); ` +
      'refusing to start so that nothing is damaged: run the newer version again, or restore a backup made by this one',
  );
}

/** The migrations not yet applied; throws when an applied one's file has changed since. */
function missing(all: Migration[], applied: Applied[]): Migration[] {
  const byKey = new Map(applied.map((a) => [`${a.schema_name}/${a.version}`, a]));
  return all.filter((m) => {
    const prior = byKey.get(`${m.schema}/${m.version}`);
    const earlier = REWORDED[`${m.schema}/${m.name}`]?.earlier ?? [];
    if (prior && prior.checksum !== m.checksum && !earlier.includes(prior.checksum))
      throw new Error(`migration ${m.schema}/${m.name} changed after it was applied; add a new one instead`);
    return !prior;
  });
}

async function applyOne(s: ScriptSession, m: Migration): Promise<void> {
  await s.exec('begin');
  try {
    await s.exec(m.sql);
    await s.query(
      'insert into public.satwatt_migrations (schema_name, version, name, checksum) values ($1, $2, $3, $4)',
      [m.schema, m.version, m.name, m.checksum],
    );
    await s.exec('commit');
  } catch (e) {
    await s.exec('rollback');
    throw new Error(`migration ${m.schema}/${m.name} failed: ${(e as Error).message}`, { cause: e });
  }
}
