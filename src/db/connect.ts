import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { existsSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import pg from 'pg';
import type { PgConnection } from '../config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { PgListener, type ListenerState, type NotificationHandler } from './listener.js';
import type { DB } from './schema.js';

/**
 * One query layer over both backends. Type parsing is made identical on both so that no
 * feature sees a difference: int8 → number (sats stay far below 2^53), numeric → string
 * (exact, converted by the caller), date → 'YYYY-MM-DD' string (no day shift), timestamptz → Date.
 */
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMP: 1114, TIMESTAMPTZ: 1184 } as const;
const parseInt8 = (v: string) => Number(v);
const identity = (v: string) => v;
const parseTimestamptz = (v: string) => new Date(v);

/**
 * PGlite's start parameters (they replace its defaults, which are repeated first). Each tuning
 * setting is listed with its measured effect in docs/operations.md ("Memory and start-up").
 */
export const PGLITE_START_PARAMS: string[] = [
  // PGlite 0.4's defaults
  ...['--single', '-F', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false'],
  ...['-c', 'log_checkpoints=false', '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0'],
  ...['-c', 'max_parallel_workers_per_gather=0'],
  // 128MB by default, all of it touched at start: about 100 MB resident. 16MB saved 17 MB more
  // but halved the ratio of a single client's POST /api/events on a 1,000,000-event ledger.
  '-c',
  'shared_buffers=32MB',
];

/** initdb's settings for a new folder: written to its postgresql.conf, and used by initdb itself. */
export const PGLITE_INITDB_PARAMS: string[] = ['--set', 'shared_buffers=32MB'];

/**
 * A new folder is made by a second WebAssembly instance (initdb) whose memory and the copy of
 * the folder it hands over stay resident until the next full collection, which may be minutes
 * away on an idle service; one collection right after costs a few milliseconds.
 */
function collectNow(): void {
  try {
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
  } catch {
    // without it the memory is returned at the next collection
  }
}

export interface ScriptSession {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

export type RawHandle = { kind: 'pglite'; pglite: PGlite } | { kind: 'postgres'; pool: pg.Pool };

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Kysely<DB>;
  readonly raw: RawHandle;
  /** One session for multi-statement scripts (migrations); other queries wait on PGlite. */
  withSession<T>(fn: (s: ScriptSession) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel; returns the function that stops listening. The handler gets each
   * NOTIFY's payload, and `undefined` after the connection was lost and made again (a server
   * restart): notifications may have been missed, so the handler re-reads what it follows.
   */
  listen(channel: string, onPayload: NotificationHandler): Promise<() => Promise<void>>;
  /** The state of the notification connection as it changes (a server's; PGlite's never does). */
  watchNotifications(watcher: (state: ListenerState) => void): () => void;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** A PostgreSQL server, or null for the embedded database. */
  server: PgConnection | null;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.server ? openPostgres(opts.server, opts.poolSize ?? 10) : openPglite(opts.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  const releaseLock = dataDir ? await acquireDataDirLock(dataDir) : async () => {};
  let pglite: PGlite;
  const fresh = dataDir !== undefined && !existsSync(path.join(dataDir, 'pg', 'PG_VERSION'));
  try {
    // The options-object form: with a positional undefined data folder PGlite ignores the options.
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir: path.join(dataDir, 'pg') } : {}),
      startParams: PGLITE_START_PARAMS,
      initDbStartParams: PGLITE_INITDB_PARAMS,
      parsers: {
        [OID.INT8]: parseInt8,
        [OID.NUMERIC]: identity,
        [OID.DATE]: identity,
        [OID.TIMESTAMPTZ]: parseTimestamptz,
      },
    });
  } catch (e) {
    await releaseLock();
    throw e;
  }
  // the initdb instance is let go only after the current turn of the event loop
  if (fresh) await new Promise<void>((resolve) => setImmediate(resolve)).then(collectNow);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  const session: ScriptSession = {
    exec: async (sql) => void (await pglite.exec(sql)),
    query: async <R>(sql: string, params: unknown[] = []) => (await pglite.query<R>(sql, params)).rows,
  };
  return {
    kind: 'pglite',
    db,
    raw: { kind: 'pglite', pglite },
    // Holding Kysely's only connection keeps every other query out until the script is done.
    withSession: (fn) => db.connection().execute(() => fn(session)),
    listen: async (channel, onPayload) => {
      const stop = await pglite.listen(channel, onPayload);
      return async () => stop();
    },
    watchNotifications: () => () => {},
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await releaseLock();
    },
  };
}

async function openPostgres(server: PgConnection, poolSize: number): Promise<Database> {
  const types = {
    getTypeParser: (oid: number, format?: string) => {
      if (oid === OID.INT8) return parseInt8;
      if (oid === OID.NUMERIC || oid === OID.DATE) return identity;
      return pg.types.getTypeParser(oid, format as 'text') as (v: string) => unknown;
    },
  };
  const poolConfig: pg.PoolConfig = {
    host: server.host,
    port: server.port,
    database: server.database,
    user: server.user,
    password: server.password,
    max: poolSize,
    types: types,
    connectionTimeoutMillis: 10_000,
  };
  const pool = new pg.Pool(poolConfig);
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const probe = await pool.connect();
  probe.release();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const listener = new PgListener(poolConfig);
  return {
    kind: 'postgres',
    db,
    raw: { kind: 'postgres', pool },
    withSession: async (fn) => {
      const client = await pool.connect();
      let failed: Error | undefined;
      try {
        return await fn({
          exec: async (sql) => void (await client.query(sql)),
          query: async <R>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as R[],
        });
      } catch (e) {
        failed = e instanceof Error ? e : new Error(String(e));
        throw e;
      } finally {
        // a session that failed may have lost its connection: the pool drops it, not reuses it
        client.release(failed);
      }
    },
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    watchNotifications: (watcher) => listener.watch(watcher),
    close: async () => {
      await listener.close();
      await db.destroy();
    },
  };
}
