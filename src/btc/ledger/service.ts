import type { AppContext } from '../../context.js';
import { badRequest, conflict, HttpProblem, notFound, unprocessable } from '../../http/problem.js';
import { DAYS, isDayIn } from '../../http/types.js';
import { danishDate } from '../../shared/danish-time.js';
import type { RatesService } from '../rates/service.js';
import {
  decide,
  effects,
  isViolation,
  parseEvent,
  walletsOf,
  type Command,
  type EventData,
  type LedgerEvent,
  type WalletState,
} from './events.js';
import { findAnswer, requestHash, storeAnswer } from './idempotency.js';
import * as projections from './projections.js';
import * as repo from './repository.js';
import type { Db } from '../../db/schema.js';
import type { EventRow } from './repository.js';
import type { EventJson } from './schemas.js';

export interface Answer {
  status: number;
  body: unknown;
}

/** Thrown inside a transaction to roll it back when another request already took the idempotency key. */
class KeyTaken extends Error {}

export function eventJson(row: EventRow): EventJson {
  const out: EventJson = { id: row.id, type: row.type, occurred_at: row.occurred_at };
  for (const k of ['wallet', 'from_wallet', 'to_wallet', 'sats', 'fee_sats'] as const) {
    const v = row[k];
    if (v !== null) out[k] = v;
  }
  if (row.currency !== null) out.currency = row.currency;
  if (row.amount !== null) out.amount = Number(row.amount);
  return out;
}

/** A stored row back as the typed event; the CHECK constraint guarantees each type's columns. */
function toEvent(row: EventRow): LedgerEvent {
  const { id, occurred_at } = row;
  if (row.type === 'bank_to_exchange')
    return {
      id,
      occurred_at,
      type: row.type,
      wallet: row.wallet!,
      amount: row.amount!,
      currency: row.currency!,
    };
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

export function createLedgerService(ctx: AppContext, rates: RatesService) {
  const db = ctx.database.db;

  function validated(body: Record<string, unknown>): EventData {
    const parsed = parseEvent(body);
    if (isViolation(parsed)) throw new HttpProblem(parsed.status, parsed.detail);
    const today = danishDate(ctx.clock.now());
    if (parsed.occurred_at > today)
      throw badRequest(`body.occurred_at: ${parsed.occurred_at} is in the future (today is ${today})`);
    return parsed;
  }

  /** Dates whose rates are stored; rows of btc.ledger_rates are never changed or removed. */
  const ratesStored = new Set<string>();

  /** Fetches before any transaction opens: the rates provider may be slow or down. */
  async function ensureRates(event: EventData): Promise<void> {
    const date = event.occurred_at;
    if (event.type === 'wallet_to_wallet' || ratesStored.has(date)) return;
    if (!(await repo.hasRates(db, date))) {
      const found = await rates.forDate(date, ctx.shutdown);
      await repo.saveRates(db, { ...found, date });
    }
    ratesStored.add(date);
  }

  /**
   * Locks the wallets in id order (the one lock order of every writer, so no deadlock), decides,
   * and applies the balances; the caller writes the event row and its read row.
   */
  async function apply(trx: Db, command: Command): Promise<void> {
    const involved = command.kind === 'delete' ? [command.previous] : [command.event];
    if (command.kind === 'replace') involved.push(command.previous);
    const changing = new Set(involved.flatMap((e) => [...effects(e).keys()]));
    const ids = [...new Set(involved.flatMap(walletsOf))].sort((a, b) => a - b);
    const wallets = new Map<number, WalletState>();
    for (const id of ids) {
      const w = await repo.lockWallet(trx, id, changing.has(id) ? 'update' : 'share');
      if (w) wallets.set(id, w);
    }
    const decision = decide(command, { wallets });
    if (!decision.ok) throw new HttpProblem(decision.violation.status, decision.violation.detail);
    const deltas = new Map<number, number>();
    for (const change of decision.changes)
      for (const [id, d] of effects(change.event))
        deltas.set(id, (deltas.get(id) ?? 0) + (change.kind === 'recorded' ? d : -d));
    for (const [id, d] of deltas) if (d !== 0) await repo.addToBalance(trx, id, d);
  }

  async function refreshReadRows(
    trx: Db,
    eventId: number,
    before: EventData | null,
    after: EventData | null,
  ) {
    const table = (e: EventData | null) =>
      e?.type === 'bank_to_exchange' ? 'deposits' : e?.type === 'exchange_to_wallet' ? 'buys' : null;
    const old = table(before);
    if (old) await projections.deleteRowOf(trx, old, eventId);
    const next = table(after);
    if (next) await projections.insertRowOf(trx, next, eventId);
  }

  async function createEvent(body: Record<string, unknown>, key?: string): Promise<Answer> {
    const hash = requestHash(body);
    if (key) {
      const stored = await findAnswer(db, key);
      if (stored) return replay(key, stored, hash);
    }
    try {
      const event = validated(body);
      await ensureRates(event);
      return await db.transaction().execute(async (trx) => {
        await projections.lockReadTablesForWrite(trx);
        await apply(trx, { kind: 'create', event });
        const row = await repo.insertEvent(trx, event);
        await refreshReadRows(trx, row.id, null, event);
        const answer = { status: 201, body: eventJson(row) };
        if (key && !(await storeAnswer(trx, key, { ...answer, request_hash: hash }))) throw new KeyTaken();
        return answer;
      });
    } catch (e) {
      if (!key) throw e;
      if (e instanceof KeyTaken) return replay(key, (await findAnswer(db, key))!, hash);
      // A decided refusal is the first answer too; a provider outage is not: a retry may succeed.
      if (e instanceof HttpProblem && e.status !== 400 && e.status < 500) {
        const answer = { status: e.status, body: problemBody(e) };
        if (!(await storeAnswer(db, key, { ...answer, request_hash: hash })))
          return replay(key, (await findAnswer(db, key))!, hash);
        return answer;
      }
      throw e;
    }
  }

  function replay(
    key: string,
    stored: { request_hash: string; status: number; body: unknown },
    hash: string,
  ) {
    if (stored.request_hash !== hash)
      throw unprocessable(`Idempotency-Key: "${key}" was already used with another body`);
    return { status: stored.status, body: stored.body };
  }

  async function replaceEvent(id: number, body: Record<string, unknown>): Promise<EventJson> {
    const event = validated(body);
    await ensureRates(event);
    return db.transaction().execute(async (trx) => {
      await projections.lockReadTablesForWrite(trx);
      const prior = await repo.getEvent(trx, id, true);
      if (!prior) throw notFound(`no event ${id}`);
      const previous = toEvent(prior);
      await apply(trx, { kind: 'replace', previous, event });
      const row = await repo.replaceEvent(trx, id, event);
      await refreshReadRows(trx, id, previous, event);
      return eventJson(row);
    });
  }

  async function deleteEvent(id: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await projections.lockReadTablesForWrite(trx);
      const prior = await repo.getEvent(trx, id, true);
      if (!prior) throw notFound(`no event ${id}`);
      const previous = toEvent(prior);
      await apply(trx, { kind: 'delete', previous });
      await repo.deleteEvent(trx, id);
      await refreshReadRows(trx, id, previous, null);
    });
  }

  async function getEvent(id: number): Promise<EventJson> {
    const row = await repo.getEvent(db, id);
    if (!row) throw notFound(`no event ${id}`);
    return eventJson(row);
  }

  async function listEvents(q: {
    type?: EventData['type'];
    wallet?: number;
    from?: string;
    to?: string;
    limit?: number;
    cursor?: string;
  }): Promise<{ items: EventJson[]; next_cursor: string | null }> {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const rows = await repo.listEvents(db, { ...q, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(eventJson),
      next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  /**
   * Recomputes a read table from all events in one transaction: readers see the old rows until
   * it commits, a process killed before that leaves them whole, and writers wait at their first
   * statement (see lockReadTablesForWrite), so none is lost or counted twice.
   */
  async function rebuild(table: projections.ReadTable): Promise<number> {
    for (const date of await repo.datesMissingRates(db)) {
      const found = await rates.forDate(date, ctx.shutdown);
      await repo.saveRates(db, { ...found, date });
    }
    return db.transaction().execute(async (trx) => {
      await projections.lockForRebuild(trx, table);
      await projections.deleteAllRows(trx, table);
      return projections.insertAllRows(trx, table);
    });
  }

  return {
    createEvent,
    replaceEvent,
    deleteEvent,
    getEvent,
    listEvents,
    rebuild,
    ...walletFunctions(db),
    ...readFunctions(db),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;

function problemBody(e: HttpProblem) {
  return {
    type: 'about:blank',
    title: e.status === 409 ? 'Conflict' : 'Unprocessable Content',
    status: e.status,
    detail: e.detail,
  };
}

export function encodeCursor(row: { occurred_at: string; id: number }): string {
  return Buffer.from(JSON.stringify([row.occurred_at, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { occurred_at: string; id: number } {
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
  throw badRequest('querystring.cursor: not a cursor this list gave out');
}

function walletFunctions(db: Db) {
  return {
    listWallets: (type?: 'exchange' | 'wallet') => repo.listWallets(db, type),
    async getWallet(id: number) {
      const w = await repo.getWallet(db, id);
      if (!w) throw notFound(`no wallet ${id}`);
      return w;
    },
    async createWallet(w: { name: string; wallet_type: 'exchange' | 'wallet' }) {
      return uniqueName(w.name, () => repo.insertWallet(db, w));
    },
    async patchWallet(id: number, patch: { name?: string; wallet_type?: 'exchange' | 'wallet' }) {
      return db.transaction().execute(async (trx) => {
        const current = await repo.lockWallet(trx, id, 'update');
        if (!current) throw notFound(`no wallet ${id}`);
        if (
          patch.wallet_type &&
          patch.wallet_type !== current.wallet_type &&
          (await repo.eventsNamingWallet(trx, id)) > 0
        )
          throw conflict(`wallet_type: wallet ${id} is named by events, so its type cannot change`);
        return uniqueName(patch.name ?? '', async () => (await repo.updateWallet(trx, id, patch))!);
      });
    },
    async deleteWallet(id: number) {
      await db.transaction().execute(async (trx) => {
        const current = await repo.lockWallet(trx, id, 'update');
        if (!current) throw notFound(`no wallet ${id}`);
        const n = await repo.eventsNamingWallet(trx, id);
        if (n > 0)
          throw conflict(`wallet ${id} (${current.name}) is named by ${n} event(s); delete those first`);
        await repo.deleteWallet(trx, id);
      });
    },
  };
}

async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw conflict(`name: a wallet named "${name}" exists`);
    throw e;
  }
}

function readFunctions(db: Db) {
  return {
    listDeposits: async (r: projections.Range) =>
      (await projections.listDeposits(db, r)).map((d) => ({
        ...d,
        amount: Number(d.amount),
        amount_eur: Number(d.amount_eur),
        amount_dkk: Number(d.amount_dkk),
        amount_usd: Number(d.amount_usd),
      })),
    depositTotals: async () =>
      (await projections.depositTotals(db)).map((t) => ({ ...t, amount: Number(t.amount) })),
    listBuys: async (r: projections.Range) =>
      (await projections.listBuys(db, r)).map((b) => ({ ...b, amount_eur: Number(b.amount_eur) })),
  };
}
