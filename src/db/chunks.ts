import type { Db } from './schema.js';

/**
 * The most bind parameters one statement may carry, on either backend. PGlite's protocol parser
 * reads a statement's parameter count as a signed 16-bit number, so past 32,767 it throws in the
 * middle of the exchange and the embedded database stops answering; the wire protocol counts to
 * 65,535, past which a server's bind message overflows. One limit for both, the lower, so that
 * what passes on one backend passes on the other (docs/operations.md, "Statements and their size").
 */
export const MAX_PARAMETERS = 32_767;

/** The parameters of the rows of one statement at most: well inside the limit, with room for the statement's own. */
export const ROW_PARAMETERS = 10_000;

/** A statement refused before it was sent: it carries more parameters than either backend takes. */
export class TooManyParameters extends Error {
  /** SQLSTATE program_limit_exceeded: a defect of the statement, never worth retrying. */
  readonly code = '54000';

  constructor(readonly count: number) {
    super(
      `a statement with ${count} parameters was refused before it was sent: the database layer sends at most ` +
        `${MAX_PARAMETERS}; a write of many rows goes through writeInChunks (src/db/chunks.ts)`,
    );
  }
}

/** Throws TooManyParameters past the limit: every statement of both backends passes here first. */
export function checkParameters(count: number): void {
  if (count > MAX_PARAMETERS) throw new TooManyParameters(count);
}

/** The columns an INSERT of these rows names: every key of any row (Kysely's rule). */
function columnsOf(rows: readonly object[]): number {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return Math.max(1, keys.size);
}

/** The rows in runs of at most ROW_PARAMETERS parameters (columns × rows), in order. */
export function chunksOf<T extends object>(rows: readonly T[]): T[][] {
  const size = Math.max(1, Math.floor(ROW_PARAMETERS / columnsOf(rows)));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * The one way a list of rows is written: `write` sends one statement for the rows it is given,
 * called once per chunk of them (chunksOf), in order, and the results are answered in that
 * order. All or none, as one statement would be: in the caller's transaction, or in one of its
 * own when it takes more than one statement.
 */
export async function writeInChunks<T extends object, R>(
  db: Db,
  rows: readonly T[],
  write: (db: Db, chunk: T[]) => Promise<R>,
): Promise<R[]> {
  const chunks = chunksOf(rows);
  const run = async (trx: Db) => {
    const out: R[] = [];
    for (const chunk of chunks) out.push(await write(trx, chunk));
    return out;
  };
  if (chunks.length <= 1 || db.isTransaction) return run(db);
  return db.transaction().execute(run);
}
