import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import path from 'node:path';
import pg from 'pg';
import type { PgConnection } from '../config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
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
  /** LISTEN on a channel; returns the function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
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
  try {
    // The options-object form: with a positional undefined data folder PGlite ignores the options.
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir: path.join(dataDir, 'pg') } : {}),
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
  let listener: pg.Client | null = null;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  return {
    kind: 'postgres',
    db,
    raw: { kind: 'postgres', pool },
    withSession: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn({
          exec: async (sql) => void (await client.query(sql)),
          query: async <R>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as R[],
        });
      } finally {
        client.release();
      }
    },
    listen: async (channel, onPayload) => {
      if (!listener) {
        listener = new pg.Client({ ...poolConfig });
        listener.on('error', () => {});
        listener.on('notification', (n) => {
          for (const h of handlers.get(n.channel) ?? []) h(n.payload ?? '');
        });
        await listener.connect();
      }
      const set = handlers.get(channel) ?? new Set();
      if (set.size === 0) await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      set.add(onPayload);
      handlers.set(channel, set);
      return async () => {
        set.delete(onPayload);
        if (set.size === 0 && listener) await listener.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`);
      };
    },
    close: async () => {
      if (listener) await listener.end().catch(() => {});
      await db.destroy();
    },
  };
}
