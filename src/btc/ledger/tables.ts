import type { Generated } from 'kysely';
import type { EventType, ReceiveKind } from './events.js';

export interface WalletsTable {
  id: Generated<number>;
  name: string;
  wallet_type: 'exchange' | 'wallet';
  balance: Generated<number>;
  /** Whose FIFO pool the wallet's sats are in (src/btc/tax); a default owner unless given. */
  owner: Generated<string>;
}

export interface EventsTable {
  id: Generated<number>;
  type: EventType;
  occurred_at: string;
  wallet: number | null;
  from_wallet: number | null;
  to_wallet: number | null;
  sats: number | null;
  fee_sats: number | null;
  amount: string | null;
  currency: 'EUR' | 'DKK' | 'USD' | null;
  /** A receive's: income, gift or unknown (migration 0250). */
  kind: ReceiveKind | null;
}

/** The view of how each event moves sats, per wallet (migration 0180): the ledger's one rule of moves. */
export interface EventMovesView {
  event_id: number;
  type: EventsTable['type'];
  occurred_at: string;
  wallet_id: number;
  sats_delta: number;
}

/** One wallet's sats on one day: the net change and the running sum's lowest and highest point within it. */
export interface WalletDaysTable {
  wallet: number;
  day: string;
  delta: number;
  low: number;
  high: number;
}

export interface LedgerRatesTable {
  date: string;
  rates_date: string;
  usd_eur: string;
  usd_dkk: string;
  eur_dkk: string;
}

export interface DepositsTable {
  id: number;
  event_id: number;
  occurred_at: string;
  wallet: number;
  currency: string;
  amount: string;
  amount_eur: string;
  amount_dkk: string;
  amount_usd: string;
}

export interface BuysTable {
  id: number;
  event_id: number;
  occurred_at: string;
  wallet: number;
  sats: number;
  fee_sats: number;
  amount_eur: string;
}

export interface IdempotencyKeysTable {
  key: string;
  request_hash: string;
  /** The ledger's outcome (migration 0181); null in keys stored before, which have status and body. */
  outcome: unknown;
  status: number | null;
  body: unknown;
  created_at: Generated<Date>;
}

export interface LedgerTables {
  'btc.wallets': WalletsTable;
  'btc.events': EventsTable;
  'btc.event_moves': EventMovesView;
  'btc.wallet_days': WalletDaysTable;
  'btc.ledger_rates': LedgerRatesTable;
  'btc.deposits': DepositsTable;
  'btc.buys': BuysTable;
  'btc.idempotency_keys': IdempotencyKeysTable;
}
