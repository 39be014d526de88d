import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/schema.js';
import { writeInChunks } from '../../db/chunks.js';
import type { DailyRates } from '../rates/service.js';
import type { Currency, EventData, EventType, LedgerEvent, ReceiveKind, WalletState } from './events.js';
import type { EventJson } from './schemas.js';
import type { EventsTable, WalletsTable } from './tables.js';

export type WalletRow = Selectable<WalletsTable>;
export type EventRow = Selectable<EventsTable>;

/**
 * Dates leave SQL as text: PGlite hands `date` back as a JS Date at UTC midnight whatever the
 * connection's parsers say, and a Date would shift a day in any other time zone.
 */
export function day<C extends string>(column: C) {
  return sql<string>`to_char(${sql.ref(column)}, 'YYYY-MM-DD')`.as(column.split('.').pop() as C);
}

const EVENT_COLUMNS = [
  'id',
  'type',
  day('occurred_at'),
  'wallet',
  'from_wallet',
  'to_wallet',
  'sats',
  'fee_sats',
  'amount',
  'currency',
  'kind',
] as const;

// ── wallets ────────────────────────────────────────────────────────────────

const WALLET_COLUMNS = ['id', 'name', 'wallet_type', 'balance', 'owner'] as const;

export function listWallets(db: Db, type?: 'exchange' | 'wallet'): Promise<WalletRow[]> {
  let q = db.selectFrom('btc.wallets').select(WALLET_COLUMNS).orderBy('id');
  if (type) q = q.where('wallet_type', '=', type);
  return q.execute();
}

export function getWallet(db: Db, id: number): Promise<WalletRow | undefined> {
  return db.selectFrom('btc.wallets').select(WALLET_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function insertWallet(
  db: Db,
  w: Pick<WalletRow, 'name' | 'wallet_type'> & { owner?: string },
): Promise<WalletRow> {
  return db.insertInto('btc.wallets').values(w).returning(WALLET_COLUMNS).executeTakeFirstOrThrow();
}

export function updateWallet(
  db: Db,
  id: number,
  patch: Partial<Pick<WalletRow, 'name' | 'wallet_type' | 'owner'>>,
): Promise<WalletRow | undefined> {
  return db
    .updateTable('btc.wallets')
    .set(patch)
    .where('id', '=', id)
    .returning(WALLET_COLUMNS)
    .executeTakeFirst();
}

export async function deleteWallet(db: Db, id: number): Promise<void> {
  await db.deleteFrom('btc.wallets').where('id', '=', id).execute();
}

/**
 * Locks one wallet and reads it: FOR UPDATE when its balance will change, else FOR SHARE (enough
 * to keep its type from changing underneath, while other events may share it).
 */
export function lockWallet(db: Db, id: number, mode: 'update' | 'share'): Promise<WalletState | undefined> {
  const q = db
    .selectFrom('btc.wallets')
    .select(['id', 'name', 'wallet_type', 'balance'])
    .where('id', '=', id);
  return (mode === 'update' ? q.forUpdate() : q.forShare()).executeTakeFirst();
}

export async function addToBalance(db: Db, id: number, delta: number): Promise<void> {
  await db
    .updateTable('btc.wallets')
    .set({ balance: sql`balance + ${delta}` })
    .where('id', '=', id)
    .execute();
}

export async function eventsNamingWallet(db: Db, id: number): Promise<number> {
  const r = await db
    .selectFrom('btc.events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => eb.or([eb('wallet', '=', id), eb('from_wallet', '=', id), eb('to_wallet', '=', id)]))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Each wallet's balance summed over the events, independent of the kept balance column. */
export function balancesFromEvents(db: Db): Promise<{ id: number; balance: number }[]> {
  return sql<{ id: number; balance: number }>`
    select w.id, coalesce(sum(x.delta), 0)::int8 as balance
    from btc.wallets w left join (select wallet_id as id, sats_delta as delta from btc.event_moves) x
      on x.id = w.id
    group by w.id order by w.id`
    .execute(db)
    .then((r) => r.rows);
}

// ── events ─────────────────────────────────────────────────────────────────

/** An event row as answered: only the fields of its type, the amount as its exact decimal text. */
export function eventJson(row: EventRow): EventJson {
  const out: EventJson = { id: row.id, type: row.type, occurred_at: row.occurred_at };
  for (const k of ['wallet', 'from_wallet', 'to_wallet', 'sats', 'fee_sats'] as const) {
    const v = row[k];
    if (v !== null) out[k] = v;
  }
  if (row.kind !== null) out.kind = row.kind;
  if (row.currency !== null) out.currency = row.currency;
  if (row.amount !== null) out.amount = row.amount;
  return out;
}

/** A stored row back as the typed event; the CHECK constraint guarantees each type's columns. */
export function toEvent(row: EventRow): LedgerEvent {
  const { id, occurred_at } = row;
  const fiat = row.amount === null ? {} : { amount: row.amount, currency: row.currency! };
  switch (row.type) {
    case 'bank_to_exchange':
      return {
        id,
        occurred_at,
        type: row.type,
        wallet: row.wallet!,
        amount: row.amount!,
        currency: row.currency!,
      };
    case 'exchange_buy':
    case 'exchange_sell':
      return {
        id,
        occurred_at,
        type: row.type,
        wallet: row.wallet!,
        sats: row.sats!,
        ...fiat,
      } as LedgerEvent;
    case 'spend':
      return {
        id,
        occurred_at,
        type: row.type,
        from_wallet: row.from_wallet!,
        sats: row.sats!,
        fee_sats: row.fee_sats!,
        ...fiat,
      };
    case 'receive':
      return {
        id,
        occurred_at,
        type: row.type,
        to_wallet: row.to_wallet!,
        sats: row.sats!,
        kind: row.kind!,
        ...fiat,
      };
  }
  const transfer = {
    id,
    occurred_at,
    from_wallet: row.from_wallet!,
    to_wallet: row.to_wallet!,
    sats: row.sats!,
    fee_sats: row.fee_sats!,
  };
  if (row.type === 'wallet_to_wallet') return { ...transfer, type: row.type };
  return { ...transfer, type: row.type, amount: row.amount!, currency: row.currency! };
}

export function getEvent(db: Db, id: number, forUpdate = false): Promise<EventRow | undefined> {
  const q = db.selectFrom('btc.events').select(EVENT_COLUMNS).where('id', '=', id);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** The event's row: the columns of its type, the others null. */
function columns(e: EventData) {
  const get = <K extends string>(k: K) => (k in e ? (e as unknown as Record<K, never>)[k] : null);
  return {
    type: e.type,
    occurred_at: e.occurred_at,
    wallet: get('wallet') as number | null,
    from_wallet: get('from_wallet') as number | null,
    to_wallet: get('to_wallet') as number | null,
    sats: get('sats') as number | null,
    fee_sats: get('fee_sats') as number | null,
    amount: (get('amount') as string | null) ?? null,
    currency: (get('currency') as Currency | null) ?? null,
    kind: get('kind') as ReceiveKind | null,
  };
}

export function insertEvent(db: Db, e: EventData): Promise<EventRow> {
  return db.insertInto('btc.events').values(columns(e)).returning(EVENT_COLUMNS).executeTakeFirstOrThrow();
}

/** Many new events, answered in id order (the order given: ids grow row by row). */
export async function insertEvents(db: Db, events: readonly EventData[]): Promise<EventRow[]> {
  const chunks = await writeInChunks(db, events.map(columns), (db, chunk) =>
    db.insertInto('btc.events').values(chunk).returning(EVENT_COLUMNS).execute(),
  );
  return chunks.flat().sort((a, b) => a.id - b.id);
}

export function replaceEvent(db: Db, id: number, e: EventData): Promise<EventRow> {
  return db
    .updateTable('btc.events')
    .set(columns(e))
    .where('id', '=', id)
    .returning(EVENT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function deleteEvent(db: Db, id: number): Promise<void> {
  await db.deleteFrom('btc.events').where('id', '=', id).execute();
}

export interface EventFilter {
  type?: EventType;
  wallet?: number;
  from?: string;
  to?: string;
  after?: { occurred_at: string; id: number };
  limit: number;
}

export function listEvents(db: Db, f: EventFilter): Promise<EventRow[]> {
  let q = db
    .selectFrom('btc.events')
    .select(EVENT_COLUMNS)
    .orderBy('btc.events.occurred_at')
    .orderBy('btc.events.id')
    .limit(f.limit);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.wallet !== undefined) {
    const w = f.wallet;
    q = q.where((eb) => eb.or([eb('wallet', '=', w), eb('from_wallet', '=', w), eb('to_wallet', '=', w)]));
  }
  if (f.from) q = q.where('occurred_at', '>=', f.from);
  if (f.to) q = q.where('occurred_at', '<=', f.to);
  if (f.after)
    q = q.where(sql<boolean>`(occurred_at, id) > (${f.after.occurred_at}::date, ${f.after.id}::int8)`);
  return q.execute();
}

// ── rates the ledger converted with ────────────────────────────────────────

export async function hasRates(db: Db, date: string): Promise<boolean> {
  const r = await db
    .selectFrom('btc.ledger_rates')
    .select('date')
    .where('date', '=', date)
    .executeTakeFirst();
  return r !== undefined;
}

/** Stores days' rates; a day already stored keeps its rates. */
export async function saveRates(db: Db, rates: readonly DailyRates[]): Promise<void> {
  const rows = rates.map((r) => ({
    date: r.date,
    rates_date: r.rates_date,
    usd_eur: r.usd_eur,
    usd_dkk: r.usd_dkk,
    eur_dkk: r.eur_dkk,
  }));
  await writeInChunks(db, rows, (db, chunk) =>
    db
      .insertInto('btc.ledger_rates')
      .values(chunk)
      .onConflict((oc) => oc.column('date').doNothing())
      .execute(),
  );
}

/** Dates of fiat-carrying events whose rates the ledger has not stored yet. */
export async function datesMissingRates(db: Db): Promise<string[]> {
  const r = await sql<{ date: string }>`
    select distinct to_char(e.occurred_at, 'YYYY-MM-DD') as date from btc.events e
    where e.amount is not null
      and not exists (select 1 from btc.ledger_rates r where r.date = e.occurred_at)
    order by 1`.execute(db);
  return r.rows.map((x) => x.date);
}

// ── what the other features read ───────────────────────────────────────────

/** The wallets with their kept balances, as a relation for a statement to join on `id`. */
export function walletsRelation(db: Db) {
  return db.selectFrom('btc.wallets').select(['id', 'name', 'wallet_type', 'balance']);
}

/** One way an event moves a wallet's sats: its Danish date and the sats in (> 0) or out (< 0), the fee included. */
export interface WalletMove {
  eventId: number;
  date: string;
  delta: number;
}

/** Every move of one wallet's sats (btc.event_moves), by date and event: the chain's comparison reads them. */
export async function walletMoves(db: Db, wallet: number): Promise<WalletMove[]> {
  const r = await sql<{ event_id: number; date: string; delta: number }>`
    select event_id, to_char(occurred_at, 'YYYY-MM-DD') as date, sats_delta as delta
    from btc.event_moves where wallet_id = ${wallet}
    order by date, event_id`.execute(db);
  return r.rows.map((m) => ({ eventId: Number(m.event_id), date: m.date, delta: Number(m.delta) }));
}
