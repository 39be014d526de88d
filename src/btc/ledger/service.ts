import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema.js';
import { danishDate } from '../../shared/danish-time.js';
import type { RatesService } from '../rates/service.js';
import {
  decide,
  historyViolation,
  isViolation,
  movedWallets,
  parseEvent,
  walletsOf,
  type EventData,
  type LedgerCommand,
  type LedgerEvent,
  type Violation,
  type WalletState,
} from './events.js';
import { findAnswer, requestHash, storeAnswer, type StoredAnswer } from './idempotency.js';
import * as history from './history.js';
import * as projections from './projections.js';
import * as repo from './repository.js';
import type { EventRow } from './repository.js';
import { createReadFunctions, eventJson } from './reads.js';
import type { EventJson } from './schemas.js';
import { createWalletFunctions } from './wallets.js';

/** What a change to the ledger came to: done, or refused for a reason of the ledger's own. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; violation: Violation };

/** An answer as the HTTP edge gives it, stored for an Idempotency-Key's replays. */
export interface Answer {
  status: number;
  body: unknown;
}

/** Thrown inside a transaction to roll it back when the ledger refuses the change. */
class Refused extends Error {
  constructor(readonly violation: Violation) {
    super(violation.kind);
  }
}

/** Thrown inside a transaction to roll it back when another request already took the idempotency key. */
class KeyTaken extends Error {}

/** Thrown inside a transaction to roll it back when its request ran out of time before it could commit. */
class TooLate extends Error {}

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

const readTableOf = (e: EventData | null) =>
  e?.type === 'bank_to_exchange' ? 'deposits' : e?.type === 'exchange_to_wallet' ? 'buys' : null;

export function createLedgerService(ctx: AppContext, rates: RatesService) {
  const db = ctx.database.db;

  /** Dates whose rates are stored; rows of btc.ledger_rates are never changed or removed. */
  const ratesStored = new Set<string>();

  /** Fetches before any transaction opens: the rates provider may be slow or down. */
  async function ensureRates(event: EventData, signal?: AbortSignal): Promise<void> {
    const date = event.occurred_at;
    if (event.type === 'wallet_to_wallet' || ratesStored.has(date)) return;
    if (!(await repo.hasRates(db, date))) {
      const found = await rates.forDate(
        date,
        signal ? AbortSignal.any([ctx.shutdown, signal]) : ctx.shutdown,
      );
      await repo.saveRates(db, [{ ...found, date }]);
    }
    ratesStored.add(date);
  }

  /**
   * One change in one transaction: locks the wallets in id order (the one lock order of every
   * writer, so no deadlock), asks `decide`, writes the event row, keeps each touched wallet-day
   * in step, refuses the change if a running balance falls below zero on any date from the first
   * on which it loses sats, applies the balance changes and keeps the read rows.
   */
  async function change(
    trx: Db,
    command: LedgerCommand,
    write: () => Promise<EventRow | null>,
  ): Promise<EventRow | null> {
    await projections.lockReadTablesForWrite(trx);
    const moved = movedWallets(command);
    const named = command.kind === 'delete' ? [command.previous] : [command.event];
    if (command.kind === 'replace') named.push(command.previous);
    const wallets = new Map<number, WalletState>();
    for (const id of [...new Set(named.flatMap(walletsOf))].sort((a, b) => a - b)) {
      const w = await repo.lockWallet(trx, id, moved.has(id) ? 'update' : 'share');
      if (w) wallets.set(id, w);
    }
    const decision = decide(command, { wallets, today: danishDate(ctx.clock.now()) });
    if (!decision.ok) throw new Refused(decision.violation);
    const { deltas, from, days } = decision.changes;
    const row = await write();
    // A new event comes last in its day; a replaced or deleted one may sit anywhere in it.
    if (command.kind === 'create') {
      if (days.length > 0) await history.appendToWalletDays(trx, days);
    } else for (const { wallet, day } of days) await history.refreshWalletDay(trx, wallet, day);
    for (const [wallet, day] of from) {
      const w = wallets.get(wallet)!;
      const balanceAfter = w.balance + (deltas.get(wallet) ?? 0);
      const wrong = historyViolation(w, await history.firstDayBelowZero(trx, wallet, day, balanceAfter));
      if (wrong) throw new Refused(wrong);
    }
    for (const [id, d] of deltas) if (d !== 0) await repo.addToBalance(trx, id, d);
    const id = command.kind === 'create' ? row!.id : command.previous.id;
    const before = readTableOf(command.kind === 'create' ? null : command.previous);
    if (before) await projections.deleteRowOf(trx, before, id);
    const after = readTableOf(command.kind === 'delete' ? null : command.event);
    if (after) await projections.insertRowOf(trx, after, id);
    return row;
  }

  /** Runs a change, turning a refusal into its outcome and rolling back everything it wrote. */
  async function outcomeOf<T>(run: () => Promise<T>): Promise<Outcome<T>> {
    try {
      return { ok: true, value: await run() };
    } catch (e) {
      if (e instanceof Refused) return { ok: false, violation: e.violation };
      throw e;
    }
  }

  /**
   * Records an event. With an Idempotency-Key, the answer (`answerOf` the outcome, made by the
   * HTTP edge) is stored in the same transaction as the event, so a retry gets exactly what was
   * committed; a refusal the ledger decided is stored too, a refusal of the body's shape is not.
   * A request whose signal aborts (its time ran out) before the commit writes nothing.
   */
  async function createEvent(
    body: Record<string, unknown>,
    answerOf: (o: Outcome<EventJson>) => Answer,
    key?: string,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const event = parseEvent(body);
    if (isViolation(event)) return answerOf({ ok: false, violation: event });
    const hash = requestHash(event);
    if (key) {
      const stored = await findAnswer(db, key);
      if (stored) return replay(key, stored, hash, answerOf);
    }
    await ensureRates(event, signal);
    signal?.throwIfAborted();
    try {
      return await db.transaction().execute(async (trx) => {
        const row = await change(trx, { kind: 'create', event }, () => repo.insertEvent(trx, event));
        const answer = answerOf({ ok: true, value: eventJson(row!) });
        if (key && !(await storeAnswer(trx, key, { ...answer, request_hash: hash }))) throw new KeyTaken();
        if (signal?.aborted) throw new TooLate();
        return answer;
      });
    } catch (e) {
      if (e instanceof KeyTaken) return replay(key!, (await findAnswer(db, key!))!, hash, answerOf);
      if (e instanceof TooLate) throw signal!.reason;
      if (!(e instanceof Refused)) throw e;
      // The refusal rolled back what the change wrote; only its answer is kept for the key.
      const answer = answerOf({ ok: false, violation: e.violation });
      if (key && !(await storeAnswer(db, key, { ...answer, request_hash: hash })))
        return replay(key, (await findAnswer(db, key))!, hash, answerOf);
      return answer;
    }
  }

  function replay(
    key: string,
    stored: StoredAnswer,
    hash: string,
    answerOf: (o: Outcome<EventJson>) => Answer,
  ): Answer {
    if (stored.request_hash !== hash) return answerOf({ ok: false, violation: { kind: 'key_reused', key } });
    return { status: stored.status, body: stored.body };
  }

  async function replaceEvent(id: number, body: Record<string, unknown>): Promise<Outcome<EventJson>> {
    const event = parseEvent(body);
    if (isViolation(event)) return { ok: false, violation: event };
    await ensureRates(event);
    return outcomeOf(() =>
      db.transaction().execute(async (trx) => {
        await projections.lockReadTablesForWrite(trx);
        const prior = await repo.getEvent(trx, id, true);
        if (!prior) throw new Refused({ kind: 'no_event', id });
        const previous = toEvent(prior);
        const row = await change(trx, { kind: 'replace', previous, event }, () =>
          repo.replaceEvent(trx, id, event),
        );
        return eventJson(row!);
      }),
    );
  }

  async function deleteEvent(id: number): Promise<Outcome<null>> {
    return outcomeOf(() =>
      db.transaction().execute(async (trx) => {
        await projections.lockReadTablesForWrite(trx);
        const prior = await repo.getEvent(trx, id, true);
        if (!prior) throw new Refused({ kind: 'no_event', id });
        await change(trx, { kind: 'delete', previous: toEvent(prior) }, async () => {
          await repo.deleteEvent(trx, id);
          return null;
        });
        return null;
      }),
    );
  }

  /**
   * Recomputes a read table from all events in one transaction: readers see the old rows until
   * it commits, a process killed before that leaves them whole, and writers wait at their first
   * statement (see lockReadTablesForWrite), so none is lost or counted twice.
   */
  async function rebuild(table: projections.ReadTable): Promise<number> {
    const missing = await repo.datesMissingRates(db);
    if (missing.length > 0) await repo.saveRates(db, await rates.forDates(missing, ctx.shutdown));
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
    rebuild,
    ...createWalletFunctions(db),
    ...createReadFunctions(db),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
