/**
 * The chain against the ledger, pure. A chain transaction is matched to the ledger event that
 * moves the same sats into or out of the wallet on its Danish date or a day before or after,
 * each event matched once; one that no single event explains may be explained by up to three
 * (a payment to two watched wallets recorded as two moves). What is left unmatched comes with
 * the event bodies that would record it.
 */
import { addDays, danishDate } from '../../shared/danish-time.js';

/** One way a ledger event moves a wallet's sats (the ledger's rule, read through its `walletMoves`). */
export interface LedgerMove {
  eventId: number;
  /** The event's Danish date, YYYY-MM-DD. */
  date: string;
  /** Sats in (> 0) or out (< 0), the fee included. */
  delta: number;
}

/** How one watched wallet of the household takes part in a transaction. */
export interface TxPart {
  wallet: number;
  /** Sats it receives less sats it spends. */
  netSats: number;
  /** It funded every input, so the fee is its own. */
  paidFee: boolean;
}

/** A transaction as the household's watched wallets see it. */
export interface TxView {
  txid: string;
  confirmed: boolean;
  /** The block's time, or when a scan first saw it unconfirmed. */
  time: Date;
  feeSats: number;
  parts: readonly TxPart[];
}

export type SuggestedEvent =
  | { type: 'receive'; occurred_at: string; to_wallet: number; sats: number; kind: 'unknown' }
  | { type: 'spend'; occurred_at: string; from_wallet: number; sats: number; fee_sats: number }
  | {
      type: 'wallet_to_wallet';
      occurred_at: string;
      from_wallet: number;
      to_wallet: number;
      sats: number;
      fee_sats: number;
    };

/** How far a transaction's day and its event's may lie apart, in days. */
export const MATCH_DAYS = 1;
/** Events one transaction may be explained by together, and the candidates searched for them. */
const GROUP_MAX = 3;
const GROUP_CANDIDATES = 12;

const near = (a: string, b: string) => a >= addDays(b, -MATCH_DAYS) && a <= addDays(b, MATCH_DAYS);
const partOf = (tx: TxView, wallet: number) => tx.parts.find((p) => p.wallet === wallet);

/**
 * Which events explain which of `wallet`'s transactions. Within one amount, transactions in
 * date order each take the earliest free event in reach, which matches as many as can be; then
 * a transaction holding an event of another day takes one of its own day when one is free.
 */
export function matchMoves(
  wallet: number,
  txs: readonly TxView[],
  moves: readonly LedgerMove[],
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const used = new Set<number>();
  const byDay = (m: LedgerMove, n: LedgerMove) => m.date.localeCompare(n.date) || m.eventId - n.eventId;
  const free = [...moves].filter((m) => m.delta !== 0).sort(byDay);
  const dated = txs
    .map((tx) => ({ tx, day: danishDate(tx.time), net: partOf(tx, wallet)?.netSats ?? 0 }))
    .filter((t) => t.net !== 0)
    .sort((a, b) => a.day.localeCompare(b.day) || a.tx.txid.localeCompare(b.tx.txid));
  const single = new Map<string, LedgerMove>();
  for (const t of dated) {
    const m = free.find((e) => !used.has(e.eventId) && e.delta === t.net && near(e.date, t.day));
    if (!m) continue;
    used.add(m.eventId);
    single.set(t.tx.txid, m);
  }
  for (const t of dated) {
    const m = single.get(t.tx.txid);
    if (!m || m.date === t.day) continue;
    const own = free.find((e) => !used.has(e.eventId) && e.delta === t.net && e.date === t.day);
    if (!own) continue;
    used.delete(m.eventId);
    used.add(own.eventId);
    single.set(t.tx.txid, own);
  }
  for (const [txid, m] of single) out.set(txid, [m.eventId]);
  for (const t of dated) {
    if (out.has(t.tx.txid)) continue;
    const reach = free.filter(
      (e) => !used.has(e.eventId) && near(e.date, t.day) && Math.sign(e.delta) === Math.sign(t.net),
    );
    const group = subsetSumming(reach.slice(0, GROUP_CANDIDATES), t.net);
    if (!group) continue;
    for (const e of group) used.add(e.eventId);
    out.set(
      t.tx.txid,
      group.map((e) => e.eventId).sort((a, b) => a - b),
    );
  }
  return out;
}

/** Two or three of `moves` whose deltas add up to `target`, the first found in order. */
function subsetSumming(moves: readonly LedgerMove[], target: number): LedgerMove[] | null {
  const pick = (from: number, left: number, taken: LedgerMove[]): LedgerMove[] | null => {
    if (left === 0 && taken.length >= 2) return taken;
    if (taken.length === GROUP_MAX) return null;
    for (let i = from; i < moves.length; i++) {
      const found = pick(i + 1, left - moves[i]!.delta, [...taken, moves[i]!]);
      if (found) return found;
    }
    return null;
  };
  return pick(0, target, []);
}

/**
 * The events that would record a transaction, as the household's watched wallets take part in
 * it: sats from outside are a `receive` of unknown cost; sats a watched wallet sends are a move
 * to each watched wallet they reach and a `spend` of the rest, the fee on the spend or, when
 * nothing leaves the household, on the first move. Only the bodies naming `wallet` are answered.
 * A transaction that only costs its fee (a wallet paying itself) has no body: no event records
 * a spend of nothing.
 */
export function suggest(wallet: number, tx: TxView): SuggestedEvent[] {
  const occurred_at = danishDate(tx.time);
  const senders = tx.parts.filter((p) => p.netSats < 0);
  const receivers = tx.parts.filter((p) => p.netSats > 0);
  const feeOf = (p: TxPart) => (p.paidFee ? tx.feeSats : 0);
  const alone = (p: TxPart): SuggestedEvent[] => {
    if (p.netSats > 0)
      return [{ type: 'receive', occurred_at, to_wallet: p.wallet, sats: p.netSats, kind: 'unknown' }];
    const sats = -p.netSats - feeOf(p);
    return sats > 0 ? [{ type: 'spend', occurred_at, from_wallet: p.wallet, sats, fee_sats: feeOf(p) }] : [];
  };
  let bodies: SuggestedEvent[];
  const [sender] = senders;
  if (senders.length !== 1 || receivers.length === 0) bodies = tx.parts.flatMap(alone);
  else {
    const fee = feeOf(sender!);
    const out = -sender!.netSats - fee - receivers.reduce((s, r) => s + r.netSats, 0);
    if (out < 0) bodies = tx.parts.flatMap(alone);
    else {
      bodies = receivers.map((r, i) => ({
        type: 'wallet_to_wallet' as const,
        occurred_at,
        from_wallet: sender!.wallet,
        to_wallet: r.wallet,
        sats: r.netSats,
        fee_sats: out === 0 && i === 0 ? fee : 0,
      }));
      if (out > 0)
        bodies.push({ type: 'spend', occurred_at, from_wallet: sender!.wallet, sats: out, fee_sats: fee });
    }
  }
  return bodies.filter(
    (b) => ('to_wallet' in b && b.to_wallet === wallet) || ('from_wallet' in b && b.from_wallet === wallet),
  );
}
