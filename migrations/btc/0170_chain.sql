-- Watch-only wallets checked against the chain (src/btc/chain/, docs/chain.md).

-- A wallet's watch key: an account xpub/ypub/zpub (tpub/upub/vpub), a descriptor of one key, or
-- addresses one a line. It is as private as the API token: stored here and read by the scans,
-- never answered (the API shows its kind, first address and fingerprint). The figures of the
-- last complete scan sit beside it, null before the first. Deleting the wallet drops it all.
create table btc.chain_watch (
  wallet integer primary key references btc.wallets (id) on delete cascade,
  kind text not null
    check (kind in ('xpub', 'ypub', 'zpub', 'tpub', 'upub', 'vpub', 'descriptor', 'addresses')),
  network text not null check (network in ('mainnet', 'testnet', 'signet', 'regtest')),
  key text not null check (length(key) between 1 and 110000),
  first_address text not null,
  fingerprint text not null check (fingerprint ~ '^[0-9a-f]{8}$'),
  scanned_at timestamptz,
  chain_sats bigint check (chain_sats between 0 and 2100000000000000),
  mempool_sats bigint check (mempool_sats between -2100000000000000 and 2100000000000000),
  gap_limit integer check (gap_limit > 0)
);

-- The addresses a scan asked about, as the last scan left them: `chain` 0 is receive, 1 change (a
-- listed address is chain 0 at its place in the list); the counts tell the next scan whether
-- an address has new transactions, the sats what it holds.
create table btc.chain_addresses (
  wallet integer not null references btc.chain_watch (wallet) on delete cascade,
  chain smallint not null check (chain between 0 and 99),
  idx integer not null check (idx >= 0),
  address text not null,
  chain_tx_count integer not null check (chain_tx_count >= 0),
  mempool_tx_count integer not null check (mempool_tx_count >= 0),
  chain_sats bigint not null check (chain_sats between 0 and 2100000000000000),
  mempool_sats bigint not null check (mempool_sats between -2100000000000000 and 2100000000000000),
  primary key (wallet, chain, idx),
  unique (wallet, address)
);

-- The wallet's transactions: what they pay to its addresses and spend of them. `seen_at` is when
-- a scan first saw one, its time while unconfirmed. A transaction of two watched wallets has a
-- row for each, which is how a move between them is told (the txid index).
create table btc.chain_txs (
  wallet integer not null references btc.chain_watch (wallet) on delete cascade,
  txid text not null check (txid ~ '^[0-9a-f]{64}$'),
  confirmed boolean not null,
  block_height integer check (block_height >= 0),
  block_time timestamptz,
  seen_at timestamptz not null,
  received_sats bigint not null check (received_sats between 0 and 2100000000000000),
  sent_sats bigint not null check (sent_sats between 0 and 2100000000000000),
  fee_sats bigint not null check (fee_sats between 0 and 2100000000000000),
  all_inputs_ours boolean not null,
  check (confirmed = (block_time is not null)),
  primary key (wallet, txid)
);
create index chain_txs_txid on btc.chain_txs (txid);
