import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
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
import { createReadFunctions, eventJson, type EventQuery, type ListQuery } from './reads.js';
import type { EventJson } from './schemas.js';
import { createWalletFunctions, type WalletPatch, type WalletType, type WalletWatch } from './wallets.js';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  /** Converts the fiat amounts; its answers are stored with the events of their day. */
  rates: RatesService;
  shutdown: AbortSignal;
  /** Keeps the wallets' watch keys (the chain feature); without it a watch key is refused. */
  watch?: WalletWatch;
}

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

export class LedgerService {
  /** Dates whose rates are stored; rows of btc.ledger_rates are never changed or removed. */
  private readonly ratesStored = new Set<string>();
  private readonly wallets: ReturnType<typeof createWalletFunctions>;
  private readonly reads: ReturnType<typeof createReadFunctions>;

  constructor(private readonly deps: LedgerDeps) {
    this.wallets = createWalletFunctions(deps.db, deps.watch);
    this.reads = createReadFunctions(deps.db);
  }

  /** Fetches before any transaction opens: the rates provider may be slow or down. */
  private async ensureRates(event: EventData, signal?: AbortSignal): Promise<void> {
    const date = event.occurred_at;
    if (event.type === 'wallet_to_wallet' || this.ratesStored.has(date)) return;
    const { db, shutdown } = this.deps;
    if (!(await repo.hasRates(db, date))) {
      const found = await this.deps.rates.forDate(
        date,
        signal ? AbortSignal.any([shutdown, signal]) : shutdown,
      );
      await repo.saveRates(db, [{ ...found, date }]);
    }
    this.ratesStored.add(date);
  }

  /**
   * One change in one transaction: locks the wallets in id order (the one lock order of every
   * writer, so no deadlock), asks `decide`, writes the event row, keeps each touched wallet-day
   * in step, refuses the change if a running balance falls below zero on any date from the first
   * on which it loses sats, applies the balance changes and keeps the read rows.
   */
  private async change(
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
    const decision = decide(command, { wallets, today: danishDate(this.deps.clock.now()) });
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
  private async outcomeOf<T>(run: () => Promise<T>): Promise<Outcome<T>> {
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
  async createEvent(
    body: Record<string, unknown>,
    answerOf: (o: Outcome<EventJson>) => Answer,
    key?: string,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const { db } = this.deps;
    const event = parseEvent(body);
    if (isViolation(event)) return answerOf({ ok: false, violation: event });
    const hash = requestHash(event);
    if (key) {
      const stored = await findAnswer(db, key);
      if (stored) return this.replay(key, stored, hash, answerOf);
    }
    await this.ensureRates(event, signal);
    signal?.throwIfAborted();
    try {
      return await db.transaction().execute(async (trx) => {
        const row = await this.change(trx, { kind: 'create', event }, () => repo.insertEvent(trx, event));
        const answer = answerOf({ ok: true, value: eventJson(row!) });
        if (key && !(await storeAnswer(trx, key, { ...answer, request_hash: hash }))) throw new KeyTaken();
        if (signal?.aborted) throw new TooLate();
        return answer;
      });
    } catch (e) {
      if (e instanceof KeyTaken) return this.replay(key!, (await findAnswer(db, key!))!, hash, answerOf);
      if (e instanceof TooLate) throw signal!.reason;
      if (!(e instanceof Refused)) throw e;
      // The refusal rolled back what the change wrote; only its answer is kept for the key.
      const answer = answerOf({ ok: false, violation: e.violation });
      if (key && !(await storeAnswer(db, key, { ...answer, request_hash: hash })))
        return this.replay(key, (await findAnswer(db, key))!, hash, answerOf);
      return answer;
    }
  }

  private replay(
    key: string,
    stored: StoredAnswer,
    hash: string,
    answerOf: (o: Outcome<EventJson>) => Answer,
  ): Answer {
    if (stored.request_hash !== hash) return answerOf({ ok: false, violation: { kind: 'key_reused', key } });
    return { status: stored.status, body: stored.body };
  }

  async replaceEvent(id: number, body: Record<string, unknown>): Promise<Outcome<EventJson>> {
    const event = parseEvent(body);
    if (isViolation(event)) return { ok: false, violation: event };
    await this.ensureRates(event);
    return this.outcomeOf(() =>
      this.deps.db.transaction().execute(async (trx) => {
        await projections.lockReadTablesForWrite(trx);
        const prior = await repo.getEvent(trx, id, true);
        if (!prior) throw new Refused({ kind: 'no_event', id });
        const previous = toEvent(prior);
        const row = await this.change(trx, { kind: 'replace', previous, event }, () =>
          repo.replaceEvent(trx, id, event),
        );
        return eventJson(row!);
      }),
    );
  }

  async deleteEvent(id: number): Promise<Outcome<null>> {
    return this.outcomeOf(() =>
      this.deps.db.transaction().execute(async (trx) => {
        await projections.lockReadTablesForWrite(trx);
        const prior = await repo.getEvent(trx, id, true);
        if (!prior) throw new Refused({ kind: 'no_event', id });
        await this.change(trx, { kind: 'delete', previous: toEvent(prior) }, async () => {
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
  async rebuild(table: projections.ReadTable): Promise<number> {
    const { db, rates, shutdown } = this.deps;
    const missing = await repo.datesMissingRates(db);
    if (missing.length > 0) await repo.saveRates(db, await rates.forDates(missing, shutdown));
    return db.transaction().execute(async (trx) => {
      await projections.lockForRebuild(trx, table);
      await projections.deleteAllRows(trx, table);
      return projections.insertAllRows(trx, table);
    });
  }

  // Wallets and the read side live in their own files.
  listWallets(type?: WalletType) {
    return this.wallets.listWallets(type);
  }
  getWallet(id: number) {
    return this.wallets.getWallet(id);
  }
  createWallet(w: { name: string; wallet_type: WalletType; owner?: string }) {
    return this.wallets.createWallet(w);
  }
  patchWallet(id: number, patch: WalletPatch) {
    return this.wallets.patchWallet(id, patch);
  }
  deleteWallet(id: number) {
    return this.wallets.deleteWallet(id);
  }
  getEvent(id: number) {
    return this.reads.getEvent(id);
  }
  listEvents(q: EventQuery) {
    return this.reads.listEvents(q);
  }
  listDeposits(q: ListQuery) {
    return this.reads.listDeposits(q);
  }
  listBuys(q: ListQuery) {
    return this.reads.listBuys(q);
  }
  allEvents(q: EventQuery, signal?: AbortSignal) {
    return this.reads.allEvents(q, signal);
  }
  allDeposits(q: ListQuery, signal?: AbortSignal) {
    return this.reads.allDeposits(q, signal);
  }
  allBuys(q: ListQuery, signal?: AbortSignal) {
    return this.reads.allBuys(q, signal);
  }
  depositTotals() {
    return this.reads.depositTotals();
  }
}
