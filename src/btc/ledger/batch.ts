import type { Db } from '../../db/schema.js';
import {
  decide,
  effects,
  historyViolation,
  type EventData,
  type Violation,
  type WalletState,
} from './events.js';
import * as history from './history.js';
import * as projections from './projections.js';
import * as repo from './repository.js';
import type { EventRow } from './repository.js';

/** Why a batch is refused: each refused event by its index in the batch. */
export type BatchOutcome =
  { ok: true; rows: EventRow[] } | { ok: false; refused: { index: number; violation: Violation }[] };

/**
 * The first statements of a batch's transaction, as of every event writer: the read tables'
 * write lock, then the wallets in id order (FOR UPDATE those whose balance moves, FOR SHARE the
 * others). Answers the wallets that exist.
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

/**
 * Creates many events in the caller's transaction, by the same rules as one: `decide` judges
 * each in turn against the balances the ones before it leave, then the events are written (a
 * chunk per statement, by the database layer's rule), their wallet-days recomputed in one
 * statement, every wallet that loses sats checked once from the first day it does, the balances
 * moved and the read rows added. A refusal found after writing leaves the rollback to the
 * caller; nothing is refused half.
 */
export async function createBatch(
  trx: Db,
  wallets: ReadonlyMap<number, WalletState>,
  events: readonly EventData[],
  today: string,
): Promise<BatchOutcome> {
  const running = new Map([...wallets].map(([id, w]) => [id, { ...w }]));
  const refused: { index: number; violation: Violation }[] = [];
  const days = new Map<string, { wallet: number; day: string }>();
  const from = new Map<number, string>();
  for (const [index, event] of events.entries()) {
    const decision = decide({ kind: 'create', event }, { wallets: running, today });
    if (!decision.ok) {
      refused.push({ index, violation: decision.violation });
      continue;
    }
    for (const [wallet, delta] of decision.changes.deltas) running.get(wallet)!.balance += delta;
    for (const { wallet, day } of decision.changes.days) days.set(`${wallet} ${day}`, { wallet, day });
    for (const [wallet, day] of decision.changes.from)
      if (!from.has(wallet) || day < from.get(wallet)!) from.set(wallet, day);
  }
  if (refused.length > 0) return { ok: false, refused };

  const rows = await repo.insertEvents(trx, events);
  await history.refreshWalletDays(trx, [...days.values()]);
  for (const [wallet, day] of from) {
    const w = running.get(wallet)!;
    const wrong = historyViolation(
      { ...w, balance: wallets.get(wallet)!.balance },
      await history.firstDayBelowZero(trx, wallet, day, w.balance),
    );
    if (wrong) return { ok: false, refused: [{ index: culprit(events, wallet, wrong), violation: wrong }] };
  }
  for (const [id, w] of running) {
    const delta = w.balance - wallets.get(id)!.balance;
    if (delta !== 0) await repo.addToBalance(trx, id, delta);
  }
  const idsOf = (type: EventData['type']) => rows.filter((_, i) => events[i]!.type === type).map((r) => r.id);
  await projections.insertRowsOf(trx, 'deposits', idsOf('bank_to_exchange'));
  await projections.insertRowsOf(trx, 'buys', idsOf('exchange_to_wallet'));
  return { ok: true, rows };
}

/** The event of the batch that takes sats from the wallet last on or before the day it would go below zero. */
function culprit(events: readonly EventData[], wallet: number, v: Violation): number {
  const day = v.kind === 'overdraft' ? v.date : '9999-12-31';
  let found = -1;
  for (const [i, e] of events.entries()) {
    if ((effects(e).get(wallet) ?? 0) >= 0 || e.occurred_at > day) continue;
    if (found < 0 || e.occurred_at >= events[found]!.occurred_at) found = i;
  }
  return Math.max(found, 0);
}
