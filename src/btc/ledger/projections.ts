import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { day } from './repository.js';
import type { BuysTable, DepositsTable } from './tables.js';

type Fiat = 'EUR' | 'DKK' | 'USD';

/**
 * An event's amount in `target`, with the stored rates of its own date (`r`), rounded to the
 * cent once. The only place a ledger amount changes currency.
 */
function converted(target: Fiat): RawBuilder<unknown> {
  const via: Record<Fiat, RawBuilder<unknown>> = {
    EUR: sql`case e.currency when 'EUR' then e.amount when 'DKK' then e.amount / r.eur_dkk
      else e.amount * r.usd_eur end`,
    DKK: sql`case e.currency when 'DKK' then e.amount when 'EUR' then e.amount * r.eur_dkk
      else e.amount * r.usd_dkk end`,
    USD: sql`case e.currency when 'USD' then e.amount when 'EUR' then e.amount / r.usd_eur
      else e.amount / r.usd_dkk end`,
  };
  return sql`round(${via[target]}, 2)`;
}

/**
 * The read tables as queries over the events: one SELECT per table, used both for the one row an
 * event change touches and for a whole rebuild, so the two can never disagree. The caller passes
 * the WHERE condition beside the event type.
 */
function depositRows(where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select e.id, e.id as event_id, e.occurred_at, e.wallet, e.currency, e.amount,
    ${converted('EUR')} as amount_eur, ${converted('DKK')} as amount_dkk,
    ${converted('USD')} as amount_usd
  from btc.events e join btc.ledger_rates r on r.date = e.occurred_at
  where e.type = 'bank_to_exchange' and ${where}`;
}

function buyRows(where: RawBuilder<unknown>): RawBuilder<unknown> {
  // An exchange_buy's sats stay on the exchange it names (`wallet`); it pays no network fee.
  return sql`select e.id, e.id as event_id, e.occurred_at, coalesce(e.from_wallet, e.wallet) as wallet,
    e.sats, coalesce(e.fee_sats, 0) as fee_sats, ${converted('EUR')} as amount_eur
  from btc.events e join btc.ledger_rates r on r.date = e.occurred_at
  where e.type in ('exchange_to_wallet', 'exchange_buy') and ${where}`;
}

const INSERT_DEPOSITS = sql`insert into btc.deposits
  (id, event_id, occurred_at, wallet, currency, amount, amount_eur, amount_dkk, amount_usd)`;
const INSERT_BUYS = sql`insert into btc.buys (id, event_id, occurred_at, wallet, sats, fee_sats, amount_eur)`;

export type ReadTable = 'deposits' | 'buys';

const ROWS: Record<
  ReadTable,
  { insert: RawBuilder<unknown>; select: (where: RawBuilder<unknown>) => RawBuilder<unknown> }
> = {
  deposits: { insert: INSERT_DEPOSITS, select: depositRows },
  buys: { insert: INSERT_BUYS, select: buyRows },
};

/**
 * Every event writer takes this first, before touching any row: a rebuild holds EXCLUSIVE on
 * its table, so a writer waits for it before reading anything, and a rebuild waits for the
 * writers in flight; neither can work from a snapshot the other has made stale.
 */
export async function lockReadTablesForWrite(db: Db): Promise<void> {
  await sql`lock table btc.deposits, btc.buys in row exclusive mode`.execute(db);
}

/** Readers (ACCESS SHARE) go on reading the old rows until the rebuild commits. */
export async function lockForRebuild(db: Db, table: ReadTable): Promise<void> {
  await sql`lock table ${sql.table(`btc.${table}`)} in exclusive mode`.execute(db);
}

export async function deleteAllRows(db: Db, table: ReadTable): Promise<void> {
  await sql`delete from ${sql.table(`btc.${table}`)}`.execute(db);
}

export async function insertAllRows(db: Db, table: ReadTable): Promise<number> {
  const r = await sql`${ROWS[table].insert} ${ROWS[table].select(sql`true`)}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function deleteRowOf(db: Db, table: ReadTable, eventId: number): Promise<void> {
  await sql`delete from ${sql.table(`btc.${table}`)} where event_id = ${eventId}`.execute(db);
}

/** The read rows of events (new or replaced) at once. */
export async function insertRowsOf(db: Db, table: ReadTable, eventIds: readonly number[]): Promise<void> {
  if (eventIds.length === 0) return;
  await sql`${ROWS[table].insert} ${ROWS[table].select(sql`e.id = any(${eventIds}::int8[])`)}`.execute(db);
}

export type DepositRow = Selectable<DepositsTable>;
export type BuyRow = Selectable<BuysTable>;

/** One page of a read table in (occurred_at, id) order: its days, and the row after which it starts. */
export interface PageQuery {
  from?: string;
  to?: string;
  after?: { occurred_at: string; id: number };
  limit: number;
}

export function listDeposits(db: Db, r: PageQuery): Promise<DepositRow[]> {
  let q = db
    .selectFrom('btc.deposits')
    .select([
      'id',
      'event_id',
      day('occurred_at'),
      'wallet',
      'currency',
      'amount',
      'amount_eur',
      'amount_dkk',
      'amount_usd',
    ])
    .orderBy('btc.deposits.occurred_at')
    .orderBy('btc.deposits.id')
    .limit(r.limit);
  if (r.from) q = q.where('occurred_at', '>=', r.from);
  if (r.to) q = q.where('occurred_at', '<=', r.to);
  if (r.after)
    q = q.where(sql<boolean>`(occurred_at, id) > (${r.after.occurred_at}::date, ${r.after.id}::int8)`);
  return q.execute();
}

export function depositTotals(db: Db): Promise<{ wallet: number; currency: string; amount: string }[]> {
  return db
    .selectFrom('btc.deposits')
    .select(['wallet', 'currency', (eb) => eb.fn.sum<string>('amount').as('amount')])
    .groupBy(['wallet', 'currency'])
    .orderBy('wallet')
    .orderBy('currency')
    .execute();
}

export function listBuys(db: Db, r: PageQuery): Promise<BuyRow[]> {
  let q = db
    .selectFrom('btc.buys')
    .select(['id', 'event_id', day('occurred_at'), 'wallet', 'sats', 'fee_sats', 'amount_eur'])
    .orderBy('btc.buys.occurred_at')
    .orderBy('btc.buys.id')
    .limit(r.limit);
  if (r.from) q = q.where('occurred_at', '>=', r.from);
  if (r.to) q = q.where('occurred_at', '<=', r.to);
  if (r.after)
    q = q.where(sql<boolean>`(occurred_at, id) > (${r.after.occurred_at}::date, ${r.after.id}::int8)`);
  return q.execute();
}
