import type { Kysely } from 'kysely';
import type { PgConnection } from '../config.js';
import type { ListenerState, NotificationHandler } from './listener.js';
import type { DB } from './schema.js';

/*
 * One query layer over both backends. Type parsing is made identical on both so that no
 * feature sees a difference: int8 → number (sats stay far below 2^53), numeric → string
 * (exact, converted by the caller), date → 'YYYY-MM-DD' string (no day shift), timestamptz → Date
 * (PGlite's parsers are in pglite-worker.mjs, where its queries run; a server's in postgres.ts).
 * So is the size of a statement: at most MAX_PARAMETERS on both, refused before it is sent
 * (chunks.ts). Each backend's modules are loaded only by a process that uses it, after PGlite's
 * thread has started opening the database.
 */

import { startEmbedded } from './embedded.js';

export { PGLITE_INITDB_PARAMS, PGLITE_START_PARAMS, pgliteStartParams } from './embedded.js';

/** A change of the embedded database's state (DatabaseChange.state), for the log and the process. */
export type DatabaseChange =
  { state: 'broken'; error: string } | { state: 'reopened'; ms: number } | { state: 'failed'; error: string };

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
  /**
   * Whether the database answers, and answers in step: a probe whose answer is checked. Throws
   * when not; an embedded database found answering otherwise is taken as broken (watchState).
   */
  check(): Promise<void>;
  /**
   * The embedded database's state as it changes: `broken` (it stopped answering in step: every
   * statement is refused while it is opened again), `reopened`, or `failed` (it cannot be opened
   * again: the process should end, for its service manager to start it). A server's pool
   * replaces a broken connection by itself: its state never changes.
   */
  watchState(watcher: (change: DatabaseChange) => void): () => void;
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
  /**
   * A tar of an embedded database's folder (PGlite's dumpDataDir) that an in-memory database
   * starts as: the tests' migrated template, unpacked in a fraction of initdb's time.
   */
  template?: string;
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
  if (!opts.server)
    return startEmbedded({
      ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
      ...(opts.template ? { template: opts.template } : {}),
      fsync: opts.fsync ?? true,
    });
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(opts.server, opts.poolSize ?? 10);
}
