import type { PGlite } from '@electric-sql/pglite';
import type { Kysely } from 'kysely';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { PgConnection } from '../config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import type { ListenerState, NotificationHandler } from './listener.js';
import { PgliteThread } from './pglite-thread.js';
import type { DB } from './schema.js';

/*
 * One query layer over both backends. Type parsing is made identical on both so that no
 * feature sees a difference: int8 → number (sats stay far below 2^53), numeric → string
 * (exact, converted by the caller), date → 'YYYY-MM-DD' string (no day shift), timestamptz → Date
 * (PGlite's parsers are in pglite-worker.mjs, where its queries run; a server's in postgres.ts).
 * Each backend's modules are loaded only by a process that uses it, after PGlite's thread has
 * started opening the database.
 */

/**
 * PGlite's start parameters (they replace its defaults, which are repeated first, but `-F`). Each
 * tuning setting is listed with its measured effect in docs/operations.md ("Memory and start-up").
 */
export const PGLITE_START_PARAMS: string[] = [
  // PGlite 0.4's defaults, without -F (fsync off): see pgliteStartParams
  ...['--single', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false'],
  ...['-c', 'log_checkpoints=false', '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0'],
  ...['-c', 'max_parallel_workers_per_gather=0'],
  // 128MB by default, all of it touched at start: about 100 MB resident. 16MB saved 17 MB more
  // but halved the ratio of a single client's POST /api/events on a 1,000,000-event ledger.
  '-c',
  'shared_buffers=32MB',
];

/**
 * The start parameters for a data folder whose commits reach the disk (`fsync`), or not: PGlite's
 * default `-F`, and an in-memory database, which has no disk. Emscripten makes fdatasync() a
 * no-op, so the WAL is flushed with fsync(), which the worker's file system passes to the disk.
 */
export function pgliteStartParams(fsync: boolean): string[] {
  return fsync ? [...PGLITE_START_PARAMS, '-c', 'wal_sync_method=fsync'] : [...PGLITE_START_PARAMS, '-F'];
}

/** initdb's settings for a new folder: written to its postgresql.conf, and used by initdb itself. */
export const PGLITE_INITDB_PARAMS: string[] = ['--set', 'shared_buffers=32MB'];

export interface ScriptSession {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Kysely<DB>;
  /**
   * Settles once the database answers: PGlite opens on its own thread while the process goes on
   * loading (queries made before wait for it); a server's first connection is made before.
   */
  readonly ready: Promise<void>;
  /** One session for multi-statement scripts (migrations); other queries wait on PGlite. */
  withSession<T>(fn: (s: ScriptSession) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel; returns the function that stops listening. The handler gets each
   * NOTIFY's payload, and `undefined` after the connection was lost and made again (a server
   * restart): notifications may have been missed, so the handler re-reads what it follows.
   */
  listen(channel: string, onPayload: NotificationHandler): Promise<() => Promise<void>>;
  /**
   * Copies the embedded database's folder to `folder` as one consistent state: a checkpoint, then
   * the files while no statement runs (other queries wait, for about as long as the copy takes).
   * Null for a server (pg_dump backs one up) and for an in-memory database.
   */
  readonly copyTo: ((folder: string) => Promise<void>) | null;
  /** The state of the notification connection as it changes (a server's; PGlite's never does). */
  watchNotifications(watcher: (state: ListenerState) => void): () => void;
  /**
   * Closes the database, waiting at most `withinMs` for the statements in progress (a stop must
   * end in bounded time): then an embedded database's thread is ended as a crash would end it,
   * and a server's connections are left to the process's exit.
   */
  close(opts?: { withinMs?: number }): Promise<void>;
}

export interface OpenOptions {
  /** A PostgreSQL server, or null for the embedded database. */
  server: PgConnection | null;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  /** The embedded database's commits reach the disk before they are acknowledged (the default). */
  fsync?: boolean;
  poolSize?: number;
}

/** The database, once it answers. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const database = await startDatabase(opts);
  try {
    await database.ready;
  } catch (e) {
    await database.close();
    throw e;
  }
  return database;
}

/** The database's handle as soon as it has one: the embedded database is still opening (`ready`). */
export async function startDatabase(opts: OpenOptions): Promise<Database> {
  if (!opts.server) return startPglite(opts.dataDir, opts.fsync ?? true);
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(opts.server, opts.poolSize ?? 10);
}

async function startPglite(dataDir: string | undefined, fsync: boolean): Promise<Database> {
  const releaseLock = dataDir ? await acquireDataDirLock(dataDir) : async () => {};
  const synced = fsync && dataDir !== undefined;
  const pgDir = dataDir ? path.join(dataDir, 'pg') : undefined;
  const fresh = pgDir !== undefined && !existsSync(path.join(pgDir, 'PG_VERSION'));
  const pglite = PgliteThread.start({
    ...(pgDir ? { dataDir: pgDir } : {}),
    startParams: pgliteStartParams(synced),
    fsync: synced,
    initdbParams: PGLITE_INITDB_PARAMS,
    fresh,
  });
  const [{ Kysely }, { PGliteDialect }] = await Promise.all([
    import('kysely'),
    import('kysely-pglite-dialect'),
  ]);
  // The dialect uses only query() and close(), which the thread has with PGlite's signatures.
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite as unknown as PGlite) });
  const session: ScriptSession = {
    exec: (sql) => pglite.exec(sql),
    query: async <R>(sql: string, params: unknown[] = []) => (await pglite.query<R>(sql, params)).rows,
  };
  return {
    kind: 'pglite',
    db,
    ready: pglite.ready,
    // Holding Kysely's only connection keeps every other query out until the script is done.
    withSession: (fn) => db.connection().execute(() => fn(session)),
    listen: (channel, onPayload) => pglite.listen(channel, onPayload),
    copyTo: dataDir
      ? (folder) =>
          db.connection().execute(async () => {
            // the checkpoint leaves little to replay, and only the log from its redo point on is needed
            await pglite.exec('checkpoint');
            const { rows } = await pglite.query<{ from: string; to: string }>(
              'select (pg_control_checkpoint()).redo_wal_file as "from", ' +
                'pg_walfile_name(pg_current_wal_insert_lsn()) as "to"',
            );
            await pglite.copyDataDir(folder, rows[0]!);
          })
      : null,
    watchNotifications: () => () => {},
    close: async ({ withinMs = Infinity } = {}) => {
      // a new folder still being made is not waited for: it is removed below and made at the next start
      const making = fresh && !pglite.opened && withinMs !== Infinity;
      const closed = await pglite.close(making ? 0 : withinMs);
      // a new folder cut off before it was made holds nothing: it is made anew at the next start
      if (closed === 'forced' && fresh && !pglite.opened && pgDir)
        await rm(pgDir, { recursive: true, force: true });
      await db.destroy();
      await releaseLock();
    },
  };
}
