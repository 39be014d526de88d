import type { WatchKind, Network } from './keys.js';

export interface ChainWatchTable {
  wallet: number;
  kind: WatchKind;
  network: Network;
  /** The watch key: private, never answered or logged. */
  key: string;
  first_address: string;
  fingerprint: string;
  scanned_at: Date | null;
  chain_sats: number | null;
  mempool_sats: number | null;
  gap_limit: number | null;
}

export interface ChainAddressesTable {
  wallet: number;
  chain: number;
  idx: number;
  address: string;
  chain_tx_count: number;
  mempool_tx_count: number;
  chain_sats: number;
  mempool_sats: number;
}

export interface ChainTxsTable {
  wallet: number;
  txid: string;
  confirmed: boolean;
  block_height: number | null;
  block_time: Date | null;
  seen_at: Date;
  received_sats: number;
  sent_sats: number;
  fee_sats: number;
  all_inputs_ours: boolean;
}

export interface ChainTables {
  'btc.chain_watch': ChainWatchTable;
  'btc.chain_addresses': ChainAddressesTable;
  'btc.chain_txs': ChainTxsTable;
}
