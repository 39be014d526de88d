import { within } from '../shared/deadline.js';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { PgConnection } from '../config.js';
import { checkParameters } from './chunks.js';
import type { Database } from './connect.js';
import { PgListener } from './listener.js';
import type { DB } from './schema.js';

/** The same parsing as PGlite's (pglite-worker.mjs): int8 → number, numeric and date → string. */
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082 } as const;
const parseInt8 = (v: string) => Number(v);
const identity = (v: string) => v;

/**
 * pg's client, refusing a statement of more parameters than the database layer sends before it is
 * sent: past 65,535 pg's bind message overflows and the server refuses a garbled one.
 */
class CheckedClient extends pg.Client {}
CheckedClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [first, second] = args;
  const values = Array.isArray(second) ? second : (first as { values?: unknown } | null)?.values;
  if (Array.isArray(values)) checkParameters(values.length);
  return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

/** A PostgreSQL server through a pool, once its first connection is made. */
export async function openPostgres(server: PgConnection, poolSize: number): Promise<Database> {
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
  const pool = new pg.Pool({ ...poolConfig, Client: CheckedClient });
  // A connection the server ends (a restart, a failover, pg_terminate_backend) emits 'error';
  // without a listener that kills the process. The pool listens only while a client is idle, so
  // every client gets one of its own for its whole life: a query running on it fails (the route
  // answers 503), and the pool drops the broken client when it comes back and opens a new one.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const probe = await pool.connect();
  probe.release();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const listener = new PgListener(poolConfig);
  return {
    kind: 'postgres',
    db,
    ready: Promise.resolve(),
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
    check: async () => {
      const { rows } = await sql<{ in_step: number }>`select 1 as in_step`.execute(db);
      if (rows[0]?.in_step !== 1) throw new Error('the database answered a probe of one row otherwise');
    },
    watchState: () => () => {},
    copyTo: null,
    watchNotifications: (watcher) => listener.watch(watcher),
    close: async ({ withinMs = Infinity } = {}) => {
      // the pool's end waits for the statements in progress; the process's exit ends them past the bound
      await within(
        (async () => {
          await listener.close();
          await db.destroy();
        })(),
        withinMs,
      );
    },
  };
}
