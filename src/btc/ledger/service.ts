import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import { Refusal } from '../../shared/refusal.js';
import type { RatesService } from '../rates/service.js';
import {
  decide,
  effects,
  historyViolation,
  isViolation,
  movedWallets,
  namedWallets,
  parseEvent,
  type EventData,
  type LedgerCommand,
  type Violation,
  type WalletState,
} from './events.js';
import { findOutcome, requestHash, storeOutcome, type StoredKey } from './idempotency.js';
import * as history from './history.js';
import * as projections from './projections.js';
import { LedgerRefusal } from './refusals.js';
import * as repo from './repository.js';
import { eventJson, toEvent, type EventRow } from './repository.js';
import type { EventJson } from './schemas.js';

export interface LedgerDeps {
  db: Db;
  clock: Clock;
  /** Converts the fiat amounts; its answers are stored with the events of their day. */
  rates: RatesService;
  shutdown: AbortSignal;
}

/** What a batch of changes came to: each command's row (null for a delete), or each refused one by its index. */
export type BatchOutcome<Row = EventRow | null> =
  { ok: true; rows: Row[] } | { ok: false; refused: { index: number; violation: Violation }[] };

/**
 * The first statements of every event writer's transaction: the read tables' write lock, then
 * the wallets in id order (the one lock order, so no deadlock; FOR UPDATE those whose balance
 * moves, FOR SHARE the others). Answers the wallets that exist.
 */
export async function lockForBatch(
  trx: Db,
  wallets: Iterable<number>,
  moved: ReadonlySet<number>,
): Promise<Map<number, WalletState>> {
  await projections.lockReadTablesForWrite(trx);
  const out = new Map<number, WalletState>();
  for (const id of [...new Set(wallets)].sort((a, b) => a - b)) {
    const w = await repo.lockWallet(trx, id, moved.has(id) ? 'update' : 'share');
    if (w) out.set(id, w);
  }
  return out;
}

/** The wallets whose balance these events move (to lock them FOR UPDATE). */
export function movedByAll(events: readonly EventData[]): Set<number> {
  return new Set(events.flatMap((e) => [...effects(e).keys()]));
}

const readTableOf = (e: EventData) =>
  e.type === 'bank_to_exchange'
    ? 'deposits'
    : e.type === 'exchange_to_wallet' || e.type === 'exchange_buy'
      ? 'buys'
      : null;

/**
 * The one write path of the ledger, for one change or many, in the caller's transaction with the
 * wallets locked: `decide` judges each command in turn against the balances the ones before it
 * leave, then the events are written, the wallet-days they touch kept in step (appended when
 * only new events each end their day, else recomputed in one statement), every wallet that
 * loses sats checked once from the first day it does (history never negative), the balances
 * moved and the read rows kept. A refusal found after writing leaves the rollback to the caller;
 * nothing is refused half.
 */
export async function writeBatch(
  trx: Db,
  wallets: ReadonlyMap<number, WalletState>,
  commands: readonly LedgerCommand[],
  today: string,
): Promise<BatchOutcome> {
  const running = new Map([...wallets].map(([id, w]) => [id, { ...w }]));
  const refused: { index: number; violation: Violation }[] = [];
  const days = new Map<string, { wallet: number; day: string; delta: number }>();
  let dayEntries = 0;
  const from = new Map<number, string>();
  for (const [index, command] of commands.entries()) {
    const decision = decide(command, { wallets: running, today });
    if (!decision.ok) {
      refused.push({ index, violation: decision.violation });
      continue;
    }
    for (const [wallet, delta] of decision.changes.deltas) running.get(wallet)!.balance += delta;
    for (const d of decision.changes.days) {
      const same = days.get(`${d.wallet} ${d.day}`);
      if (same) same.delta += d.delta;
      else days.set(`${d.wallet} ${d.day}`, { ...d });
      dayEntries++;
    }
    for (const [wallet, day] of decision.changes.from)
      if (!from.has(wallet) || day < from.get(wallet)!) from.set(wallet, day);
  }
  if (refused.length > 0) return { ok: false, refused };

  const rows: (EventRow | null)[] = commands.map(() => null);
  const creates = [...commands.entries()].flatMap(([i, c]) =>
    c.kind === 'create' ? [{ i, e: c.event }] : [],
  );
  if (creates.length > 0)
    (
      await repo.insertEvents(
        trx,
        creates.map((c) => c.e),
      )
    ).forEach((row, k) => (rows[creates[k]!.i] = row));
  for (const [i, c] of commands.entries()) {
    if (c.kind === 'replace') rows[i] = await repo.replaceEvent(trx, c.previous.id, c.event);
    if (c.kind === 'delete') await repo.deleteEvent(trx, c.previous.id);
  }
  // A new event comes last in its day; a replaced or deleted one may sit anywhere in it.
  if (creates.length === commands.length && dayEntries === days.size)
    await history.appendToWalletDays(trx, [...days.values()]);
  else await history.refreshWalletDays(trx, [...days.values()]);
  for (const [wallet, day] of from) {
    const w = running.get(wallet)!;
    const wrong = historyViolation(
      { ...w, balance: wallets.get(wallet)!.balance },
      await history.firstDayBelowZero(trx, wallet, day, w.balance),
    );
    if (wrong) return { ok: false, refused: [{ index: culprit(commands, wallet, wrong), violation: wrong }] };
  }
  for (const [id, w] of running) {
    const delta = w.balance - wallets.get(id)!.balance;
    if (delta !== 0) await repo.addToBalance(trx, id, delta);
  }
  const after = { deposits: [] as number[], buys: [] as number[] };
  for (const [i, c] of commands.entries()) {
    const before = c.kind === 'create' ? null : c.previous;
    if (before && readTableOf(before)) await projections.deleteRowOf(trx, readTableOf(before)!, before.id);
    const table = c.kind === 'delete' ? null : readTableOf(c.event);
    if (table) after[table].push(rows[i]!.id);
  }
  await projections.insertRowsOf(trx, 'deposits', after.deposits);
  await projections.insertRowsOf(trx, 'buys', after.buys);
  return { ok: true, rows };
}

/** Many new events by the one write path (an import's). */
export async function createBatch(
  trx: Db,
  wallets: ReadonlyMap<number, WalletState>,
  events: readonly EventData[],
  today: string,
): Promise<BatchOutcome<EventRow>> {
  const commands = events.map((event): LedgerCommand => ({ kind: 'create', event }));
  return (await writeBatch(trx, wallets, commands, today)) as BatchOutcome<EventRow>;
}

/** The command of the batch that takes sats from the wallet last on or before the day it would go below zero. */
function culprit(commands: readonly LedgerCommand[], wallet: number, v: Violation): number {
  const day = v.kind === 'overdraft' ? v.date : '9999-12-31';
  let found = { index: 0, day: '' };
  for (const [index, c] of commands.entries()) {
    if (c.kind === 'delete') continue;
    const e = c.event;
    if ((effects(e).get(wallet) ?? 0) >= 0 || e.occurred_at > day) continue;
    if (e.occurred_at >= found.day) found = { index, day: e.occurred_at };
  }
  return found.index;
}

/** Thrown inside a transaction to roll it back when another request already took the idempotency key. */
class KeyTaken extends Error {}

/** Thrown inside a transaction to roll it back when its request ran out of time before it could commit. */
class TooLate extends Error {}

/** The ledger's writes: each change a batch of one on the one write path, in a transaction of its own. */
export class LedgerService {
  /** Dates whose rates are stored; rows of btc.ledger_rates are never changed or removed. */
  private readonly ratesStored = new Set<string>();

  constructor(private readonly deps: LedgerDeps) {}

  /** Fetches before any transaction opens: the rates provider may be slow or down. */
  private async ensureRates(event: EventData, signal?: AbortSignal): Promise<void> {
    const date = event.occurred_at;
    if (!('amount' in event) || event.amount === undefined || this.ratesStored.has(date)) return;
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

  /** One change: a batch of one, its refusal thrown (rolling back everything it wrote). */
  private async write(trx: Db, command: LedgerCommand): Promise<EventRow | null> {
    const wallets = await lockForBatch(trx, namedWallets(command), movedWallets(command));
    const done = await writeBatch(trx, wallets, [command], danishDate(this.deps.clock.now()));
    if (!done.ok) throw new LedgerRefusal(done.refused[0]!.violation);
    return done.rows[0]!;
  }

  /**
   * Records an event. With an Idempotency-Key, the outcome (the event, or the refusal the ledger
   * decided) is stored in the same transaction as the event, so a retry gets exactly what was
   * committed; a refusal of the body's shape is not stored. A request whose signal aborts (its
   * time ran out) before the commit writes nothing.
   */
  async createEvent(body: Record<string, unknown>, key?: string, signal?: AbortSignal): Promise<EventJson> {
    const { db } = this.deps;
    const event = parseEvent(body);
    if (isViolation(event)) throw new LedgerRefusal(event);
    const hash = key === undefined ? '' : requestHash(event);
    if (key) {
      const stored = await findOutcome(db, key);
      if (stored) return replay(key, stored, hash);
    }
    await this.ensureRates(event, signal);
    signal?.throwIfAborted();
    try {
      return await db.transaction().execute(async (trx) => {
        const created = eventJson((await this.write(trx, { kind: 'create', event }))!);
        if (key && !(await storeOutcome(trx, key, { request_hash: hash, outcome: { event: created } })))
          throw new KeyTaken();
        if (signal?.aborted) throw new TooLate();
        return created;
      });
    } catch (e) {
      if (e instanceof KeyTaken) return replay(key!, (await findOutcome(db, key!))!, hash);
      if (e instanceof TooLate) throw signal!.reason;
      if (!(e instanceof LedgerRefusal) || !key) throw e;
      // The refusal rolled back what the change wrote; only the outcome is kept for the key.
      const refusal = { kind: e.kind, detail: e.detail };
      if (!(await storeOutcome(db, key, { request_hash: hash, outcome: { refusal } })))
        return replay(key, (await findOutcome(db, key))!, hash);
      throw e;
    }
  }

  async replaceEvent(id: number, body: Record<string, unknown>): Promise<EventJson> {
    const event = parseEvent(body);
    if (isViolation(event)) throw new LedgerRefusal(event);
    await this.ensureRates(event);
    return this.deps.db.transaction().execute(async (trx) => {
      await projections.lockReadTablesForWrite(trx);
      const prior = await repo.getEvent(trx, id, true);
      if (!prior) throw new LedgerRefusal({ kind: 'no_event', id });
      return eventJson((await this.write(trx, { kind: 'replace', previous: toEvent(prior), event }))!);
    });
  }

  async deleteEvent(id: number): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await projections.lockReadTablesForWrite(trx);
      const prior = await repo.getEvent(trx, id, true);
      if (!prior) throw new LedgerRefusal({ kind: 'no_event', id });
      await this.write(trx, { kind: 'delete', previous: toEvent(prior) });
    });
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
}

/** A key's stored outcome again: its event, or its refusal thrown; another event under the key is refused. */
function replay(key: string, stored: StoredKey, hash: string): EventJson {
  if (stored.request_hash !== hash) throw new LedgerRefusal({ kind: 'key_reused', key });
  if ('event' in stored.outcome) return stored.outcome.event;
  throw new Refusal(stored.outcome.refusal.kind, stored.outcome.refusal.detail);
}
