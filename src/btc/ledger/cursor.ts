import { invalid } from '../../shared/refusal.js';
import { DAYS, isDayIn } from '../../shared/days.js';

/** Where a page of rows ordered by (occurred_at, id) ended: the next page starts after it. */
export interface Position {
  occurred_at: string;
  id: number;
}

export function encodeCursor(row: Position): string {
  return Buffer.from(JSON.stringify([row.occurred_at, row.id])).toString('base64url');
}

/** A cursor read back whole: a ledger day and a positive safe integer, or a 400 naming the cursor. */
export function decodeCursor(cursor: string): Position {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      isDayIn(DAYS.ledger, v[0]) &&
      Number.isSafeInteger(v[1]) &&
      (v[1] as number) >= 1
    )
      return { occurred_at: v[0], id: v[1] as number };
  } catch {
    // falls through to the 400
  }
  throw invalid('querystring.cursor: not a cursor this list gave out');
}

/** One page of `limit` rows from a query asked for `limit + 1`, and the cursor of the next page. */
export function page<R extends Position, T>(
  rows: R[],
  limit: number,
  toJson: (row: R) => T,
): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(toJson), next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}
