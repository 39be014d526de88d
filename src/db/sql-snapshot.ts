import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { DB, Db } from './schema.js';

/**
 * For each query function of a repository module (database handle first), the argument lists
 * (after the handle) it is compiled with into the checked-in SQL file; every query must have one.
 */
export type QueryExamples<M> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [K in keyof M as M[K] extends (db: Db, ...args: any[]) => Promise<unknown> ? K : never]: M[K] extends (
    db: Db,
    ...args: infer A
  ) => Promise<unknown>
    ? [A, ...A[]]
    : never;
};

export interface QueryModule {
  /** The module's path in the repository, named in the SQL file. */
  path: string;
  module: Record<string, unknown>;
  examples: Record<string, unknown[][]>;
}

/** One feature's queries: `sql/<name>.sql`. */
export interface SqlFeature {
  name: string;
  modules: QueryModule[];
}

class RecordingConnection implements DatabaseConnection {
  constructor(private readonly seen: CompiledQuery[]) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.seen.push(query);
    return { rows: [] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    this.seen.push(query);
  }
}

class RecordingDriver implements Driver {
  readonly seen: CompiledQuery[] = [];
  async init() {}
  async acquireConnection() {
    return new RecordingConnection(this.seen);
  }
  async beginTransaction() {}
  async commitTransaction() {}
  async rollbackTransaction() {}
  async releaseConnection() {}
  async destroy() {}
}

/**
 * The SQL a query function sends, compiled by Kysely's PostgreSQL compiler on a database that
 * answers every statement with no rows: nothing is executed, so no database is needed.
 */
export async function compileQueries(
  fn: (db: Db, ...args: unknown[]) => Promise<unknown>,
  args: unknown[],
): Promise<string[]> {
  const driver = new RecordingDriver();
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  try {
    await fn(db, ...args);
  } catch {
    // A query that needs a row back (executeTakeFirstOrThrow) throws on the empty answer; its SQL was recorded.
  }
  await db.destroy();
  return driver.seen.map((q) => q.sql);
}
