/**
 * The ledger's rules, pure: no database, no clock, no HTTP. The ledger is a journal of events;
 * the service loads and locks the wallets a change names, asks `decide`, and writes the event
 * with the read tables and balances it keeps in the same transaction. `moves` is the one rule of
 * how an event moves sats (the SQL view btc.event_moves says the same). A refusal is a
 * `LedgerRefusal`, one of the Refusal family, which only the HTTP edge turns into a status.
 * Shapes (types, bounds, formats, the amount's digits) are the schema's; the rules here are
 * those that need the ledger: which wallets exist and what they are, and what each type carries.
 */
export const EVENT_TYPES = [
  'bank_to_exchange',
  'exchange_to_wallet',
  'wallet_to_wallet',
  'exchange_buy',
  'exchange_sell',
  'spend',
  'receive',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const CURRENCIES = ['EUR', 'DKK', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];
/** What sats that arrive from outside are: pay (income), a gift, or not known. */
export const RECEIVE_KINDS = ['income', 'gift', 'unknown'] as const;
export type ReceiveKind = (typeof RECEIVE_KINDS)[number];

/** 21 million BTC in sats: no event, and no balance on any date, holds more (so every sum stays below 2^53). */
export const MAX_SATS = 2_100_000_000_000_000;

export type EventData =
  | { type: 'bank_to_exchange'; occurred_at: string; wallet: number; amount: string; currency: Currency }
  | {
      type: 'exchange_to_wallet';
      occurred_at: string;
      from_wallet: number;
      to_wallet: number;
      sats: number;
      fee_sats: number;
      amount: string;
      currency: Currency;
    }
  | {
      type: 'wallet_to_wallet';
      occurred_at: string;
      from_wallet: number;
      to_wallet: number;
      sats: number;
      fee_sats: number;
    }
  | {
      type: 'exchange_buy' | 'exchange_sell';
      occurred_at: string;
      wallet: number;
      sats: number;
      amount: string;
      currency: Currency;
    }
  /** `amount` and `currency` come together or not at all. */
  | {
      type: 'spend';
      occurred_at: string;
      from_wallet: number;
      sats: number;
      fee_sats: number;
      amount?: string;
      currency?: Currency;
    }
  | {
      type: 'receive';
      occurred_at: string;
      to_wallet: number;
      sats: number;
      kind: ReceiveKind;
      amount?: string;
      currency?: Currency;
    };

export type LedgerEvent = EventData & { id: number };

export interface WalletState {
  id: number;
  name: string;
  wallet_type: 'exchange' | 'wallet';
  balance: number;
}

/** The wallets an event names, and today's date in Denmark (no event is dated after it). */
export interface LedgerState {
  wallets: ReadonlyMap<number, WalletState>;
  today: string;
}

export type LedgerCommand =
  | { kind: 'create'; event: EventData }
  | { kind: 'replace'; previous: LedgerEvent; event: EventData }
  | { kind: 'delete'; previous: LedgerEvent };

/** Why the ledger refuses a change, in its own words. */
export type Violation =
  | { kind: 'field_not_allowed'; field: string; type: EventType }
  | { kind: 'field_required'; field: string; type: EventType }
  | { kind: 'unknown_wallet'; field: string; wallet: number }
  | { kind: 'not_an_exchange'; field: string; wallet: number; name: string }
  | { kind: 'same_wallet' }
  | { kind: 'too_many_sats_in_event'; sats: number }
  | { kind: 'future_date'; date: string; today: string }
  | { kind: 'no_event'; id: number }
  /** An Idempotency-Key already answered a different event. */
  | { kind: 'key_reused'; key: string }
  /** The wallet's running balance would fall below zero, first on `date`, by `shortfall` sats. */
  | { kind: 'overdraft'; wallet: number; name: string; date: string; shortfall: number }
  /** The wallet's balance would rise above MAX_SATS. */
  | { kind: 'balance_too_large'; wallet: number; name: string; balance: number };

/**
 * What a change does to the balances: each wallet's net change; for each wallet that loses sats
 * somewhere in its history, the first day it does (from which its running balance must be
 * checked: sats that arrive can only raise it); and every (wallet, day) whose events change,
 * with the day's net change.
 */
export interface BalanceChanges {
  deltas: Map<number, number>;
  from: Map<number, string>;
  days: { wallet: number; day: string; delta: number }[];
}

export type Decision = { ok: true; changes: BalanceChanges } | { ok: false; violation: Violation };

export { decimalText, EVENT_FIELDS, EVENT_OPTIONAL, parseEvent } from './parse.js';

export function isViolation(x: EventData | Violation): x is Violation {
  // A receive has a `kind` too; every event has a date and no violation does.
  return !('occurred_at' in x);
}

/** The wallets an event names, for loading (and locking) the state `decide` needs. */
export function walletsOf(event: EventData): number[] {
  return roles(event).map(([, id]) => id);
}

/** The wallets an event names: the field naming each, and whether it must be an exchange. */
function roles(event: EventData): [string, number, boolean][] {
  switch (event.type) {
    case 'bank_to_exchange':
    case 'exchange_buy':
    case 'exchange_sell':
      return [['wallet', event.wallet, true]];
    case 'spend':
      return [['from_wallet', event.from_wallet, false]];
    case 'receive':
      return [['to_wallet', event.to_wallet, false]];
    default:
      return [
        ['from_wallet', event.from_wallet, event.type === 'exchange_to_wallet'],
        ['to_wallet', event.to_wallet, false],
      ];
  }
}

/** One wallet's change in sats by an event: sats in (> 0) or out (< 0), the fee on the side that pays it. */
export interface Move {
  wallet: number;
  sats: number;
}

/** How an event moves sats, per wallet: the ledger's one rule (the SQL view btc.event_moves is its twin). */
export function moves(event: EventData): Move[] {
  switch (event.type) {
    case 'bank_to_exchange':
      return [];
    case 'exchange_to_wallet':
      return [{ wallet: event.to_wallet, sats: event.sats }];
    case 'wallet_to_wallet':
      return [
        { wallet: event.from_wallet, sats: -(event.sats + event.fee_sats) },
        { wallet: event.to_wallet, sats: event.sats },
      ];
    case 'exchange_buy':
      return [{ wallet: event.wallet, sats: event.sats }];
    case 'exchange_sell':
      return [{ wallet: event.wallet, sats: -event.sats }];
    case 'spend':
      return [{ wallet: event.from_wallet, sats: -(event.sats + event.fee_sats) }];
    case 'receive':
      return [{ wallet: event.to_wallet, sats: event.sats }];
  }
}

/** The sats each wallet gains (or loses) by the event: its moves summed per wallet. */
export function effects(event: EventData): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of moves(event)) out.set(m.wallet, (out.get(m.wallet) ?? 0) + m.sats);
  return out;
}

/** The wallets whose balance a command moves, for locking them FOR UPDATE rather than FOR SHARE. */
export function movedWallets(command: LedgerCommand): Set<number> {
  return new Set(involved(command).flatMap(({ event }) => [...effects(event).keys()]));
}

/** The wallets a command names (the new event's and the one it replaces or deletes). */
export function namedWallets(command: LedgerCommand): number[] {
  return involved(command).flatMap(({ event }) => walletsOf(event));
}

function involved(command: LedgerCommand): { event: EventData; sign: 1 | -1 }[] {
  const out: { event: EventData; sign: 1 | -1 }[] = [];
  if (command.kind !== 'create') out.push({ event: command.previous, sign: -1 });
  if (command.kind !== 'delete') out.push({ event: command.event, sign: 1 });
  return out;
}

/**
 * The domain rules of one change: the wallets it names exist and are of the kind its type asks,
 * a transfer moves between two wallets, no event and no balance holds more than MAX_SATS. It
 * answers the balance changes; whether each running balance stays at or above 0 on every date
 * is judged over the history after they are applied (see `historyViolation`).
 */
export function decide(command: LedgerCommand, state: LedgerState): Decision {
  if (command.kind !== 'delete') {
    const wrong = checkEvent(command.event, state);
    if (wrong) return { ok: false, violation: wrong };
  }
  const changes: BalanceChanges = { deltas: new Map(), from: new Map(), days: [] };
  for (const { event, sign } of involved(command))
    for (const [wallet, delta] of effects(event)) {
      changes.deltas.set(wallet, (changes.deltas.get(wallet) ?? 0) + sign * delta);
      const first = changes.from.get(wallet);
      if (sign * delta < 0 && (first === undefined || event.occurred_at < first))
        changes.from.set(wallet, event.occurred_at);
      const same = changes.days.find((d) => d.wallet === wallet && d.day === event.occurred_at);
      if (same) same.delta += sign * delta;
      else changes.days.push({ wallet, day: event.occurred_at, delta: sign * delta });
    }
  for (const [wallet, delta] of changes.deltas) {
    const w = state.wallets.get(wallet)!;
    if (w.balance + delta > MAX_SATS)
      return {
        ok: false,
        violation: { kind: 'balance_too_large', wallet, name: w.name, balance: w.balance + delta },
      };
  }
  return { ok: true, changes };
}

/** The lowest running balance of a wallet on a day, as the history check finds it. */
export interface DayLowest {
  day: string;
  lowest: number;
}

/** The violation of the first day (found by the history check) on which a running balance is below zero. */
export function historyViolation(wallet: WalletState, first: DayLowest | undefined): Violation | null {
  if (!first || first.lowest >= 0) return null;
  return {
    kind: 'overdraft',
    wallet: wallet.id,
    name: wallet.name,
    date: first.day,
    shortfall: -first.lowest,
  };
}

function checkEvent(event: EventData, state: LedgerState): Violation | null {
  if (event.occurred_at > state.today)
    return { kind: 'future_date', date: event.occurred_at, today: state.today };
  for (const [field, id, mustBeExchange] of roles(event)) {
    const w = state.wallets.get(id);
    if (!w) return { kind: 'unknown_wallet', field, wallet: id };
    if (mustBeExchange && w.wallet_type !== 'exchange')
      return { kind: 'not_an_exchange', field, wallet: id, name: w.name };
  }
  if (event.type === 'wallet_to_wallet' && event.from_wallet === event.to_wallet)
    return { kind: 'same_wallet' };
  if (event.type === 'bank_to_exchange') return null;
  const sats = event.sats + ('fee_sats' in event ? event.fee_sats : 0);
  if (sats > MAX_SATS) return { kind: 'too_many_sats_in_event', sats };
  return null;
}
