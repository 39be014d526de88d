import type { Db } from '../../db/schema.js';
import { notFound } from '../../shared/refusal.js';
import { decodeCursor, page, type Position } from './cursor.js';
import type { EventType } from './events.js';
import * as projections from './projections.js';
import * as repo from './repository.js';
import { eventJson, type EventRow } from './repository.js';
import type { EventJson } from './schemas.js';

/** Rows a CSV export reads at a time. */
const CSV_PAGE = 1000;

export interface ListQuery {
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}
export interface EventQuery extends ListQuery {
  type?: EventType;
  wallet?: number;
}

/**
 * The ledger's read side: events, deposits and buys a page at a time in (occurred_at, id) order
 * (`limit` rows after the cursor), or every page in turn for a CSV export. Every fiat amount
 * leaves as the decimal text SQL's numeric gives, so nothing is rounded on the way out.
 */
export function createReadFunctions(db: Db) {
  type Lister<R> = (after: Position | undefined, limit: number) => Promise<R[]>;

  async function onePage<R extends Position, T>(q: ListQuery, list: Lister<R>, toJson: (r: R) => T) {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    return page(await list(after, limit + 1), limit, toJson);
  }

  /** Every row the filters select, one page of CSV_PAGE after another, until `signal` aborts. */
  async function* allPages<R extends Position, T>(
    list: Lister<R>,
    toJson: (r: R) => T,
    signal?: AbortSignal,
  ) {
    let after: Position | undefined;
    for (;;) {
      if (signal?.aborted) return;
      const rows = await list(after, CSV_PAGE);
      for (const row of rows) yield toJson(row);
      if (rows.length < CSV_PAGE) return;
      after = rows[rows.length - 1];
    }
  }

  const events =
    (q: EventQuery): Lister<EventRow> =>
    (after, limit) =>
      repo.listEvents(db, { type: q.type, wallet: q.wallet, from: q.from, to: q.to, after, limit });
  const deposits =
    (q: ListQuery): Lister<projections.DepositRow> =>
    (after, limit) =>
      projections.listDeposits(db, { from: q.from, to: q.to, after, limit });
  const buys =
    (q: ListQuery): Lister<projections.BuyRow> =>
    (after, limit) =>
      projections.listBuys(db, { from: q.from, to: q.to, after, limit });
  const same = <R>(r: R) => r;

  return {
    async getEvent(id: number): Promise<EventJson> {
      const row = await repo.getEvent(db, id);
      if (!row) throw notFound(`no event ${id}`);
      return eventJson(row);
    },
    listEvents: (q: EventQuery) => onePage(q, events(q), eventJson),
    listDeposits: (q: ListQuery) => onePage(q, deposits(q), same),
    listBuys: (q: ListQuery) => onePage(q, buys(q), same),
    allEvents: (q: EventQuery, signal?: AbortSignal) => allPages(events(q), eventJson, signal),
    allDeposits: (q: ListQuery, signal?: AbortSignal) => allPages(deposits(q), same, signal),
    allBuys: (q: ListQuery, signal?: AbortSignal) => allPages(buys(q), same, signal),
    depositTotals: () => projections.depositTotals(db),
  };
}
