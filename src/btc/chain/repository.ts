import { sql, type Insertable, type Selectable } from 'kysely';
import { writeInChunks } from '../../db/chunks.js';
import { LOCK_KEYS } from '../../db/lock-keys.js';
import type { Db } from '../../db/schema.js';
import { walletsRelation } from '../ledger/repository.js';
import type { ChainAddressesTable, ChainTxsTable, ChainWatchTable } from './tables.js';

export type WatchRow = Selectable<ChainWatchTable>;
export type AddressRow = Selectable<ChainAddressesTable>;
export type TxRow = Selectable<ChainTxsTable>;

// ── watch keys ─────────────────────────────────────────────────────────────

export function getWatch(db: Db, wallet: number): Promise<WatchRow | undefined> {
  return db.selectFrom('btc.chain_watch').selectAll().where('wallet', '=', wallet).executeTakeFirst();
}

/** The watch's key and network, locked: a scan writes only what it read under the same key. */
export function lockWatch(db: Db, wallet: number): Promise<Pick<WatchRow, 'key' | 'network'> | undefined> {
  return db
    .selectFrom('btc.chain_watch')
    .select(['key', 'network'])
    .where('wallet', '=', wallet)
    .forUpdate()
    .executeTakeFirst();
}

/** Removes a wallet's watch key with every address and transaction its scans found. */
export async function deleteWatch(db: Db, wallet: number): Promise<void> {
  await db.deleteFrom('btc.chain_watch').where('wallet', '=', wallet).execute();
}

export async function insertWatch(
  db: Db,
  row: Pick<
    Insertable<ChainWatchTable>,
    'wallet' | 'kind' | 'network' | 'key' | 'first_address' | 'fingerprint'
  >,
): Promise<void> {
  await db.insertInto('btc.chain_watch').values(row).execute();
}

/** Serializes the setting of watch keys until the transaction ends, so the check for a key already watched holds. */
export async function lockWatchKeys(db: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LOCK_KEYS.chainWatch})`.execute(db);
}

/**
 * Another wallet watching the same key, which would count its sats twice: the same text, or the
 * same first address (the key written another way: a zpub and `wpkh(xpub…)` of it, or a list of
 * its addresses).
 */
export function walletWatchingKey(
  db: Db,
  key: string,
  firstAddress: string,
  other: number,
): Promise<{ wallet: number } | undefined> {
  return db
    .selectFrom('btc.chain_watch')
    .select('wallet')
    .where((eb) => eb.or([eb('key', '=', key), eb('first_address', '=', firstAddress)]))
    .where('wallet', '<>', other)
    .executeTakeFirst();
}

/** The public face and the last scan's figures of the watched wallets among `wallets`. */
export function watchFaces(
  db: Db,
  wallets: readonly number[],
): Promise<
  Pick<WatchRow, 'wallet' | 'kind' | 'first_address' | 'fingerprint' | 'chain_sats' | 'mempool_sats'>[]
> {
  if (wallets.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('btc.chain_watch')
    .select(['wallet', 'kind', 'first_address', 'fingerprint', 'chain_sats', 'mempool_sats'])
    .where('wallet', 'in', wallets)
    .execute();
}

/** Every watched wallet with its name, ledger balance and last scan's figures, by id. */
export function watchedWallets(db: Db): Promise<
  {
    wallet: number;
    name: string;
    balance: number;
    scanned_at: Date | null;
    chain_sats: number | null;
    mempool_sats: number | null;
  }[]
> {
  return db
    .selectFrom('btc.chain_watch as c')
    .innerJoin(walletsRelation(db).as('w'), 'w.id', 'c.wallet')
    .select(['c.wallet', 'w.name', 'w.balance', 'c.scanned_at', 'c.chain_sats', 'c.mempool_sats'])
    .orderBy('c.wallet')
    .execute();
}

export async function recordScan(
  db: Db,
  wallet: number,
  s: { scanned_at: Date; chain_sats: number; mempool_sats: number; gap_limit: number },
): Promise<void> {
  await db.updateTable('btc.chain_watch').set(s).where('wallet', '=', wallet).execute();
}

// ── what scans found ───────────────────────────────────────────────────────

export function knownAddresses(db: Db, wallet: number): Promise<AddressRow[]> {
  return db
    .selectFrom('btc.chain_addresses')
    .selectAll()
    .where('wallet', '=', wallet)
    .orderBy('chain')
    .orderBy('idx')
    .execute();
}

export async function deleteAddresses(db: Db, wallet: number): Promise<void> {
  await db.deleteFrom('btc.chain_addresses').where('wallet', '=', wallet).execute();
}

export async function insertAddresses(db: Db, rows: readonly AddressRow[]): Promise<void> {
  await writeInChunks(db, rows, (trx, chunk) =>
    trx.insertInto('btc.chain_addresses').values(chunk).execute(),
  );
}

export async function unconfirmedTxids(db: Db, wallet: number): Promise<string[]> {
  const rows = await db
    .selectFrom('btc.chain_txs')
    .select('txid')
    .where('wallet', '=', wallet)
    .where('confirmed', '=', false)
    .execute();
  return rows.map((r) => r.txid);
}

/** New transactions, and the new state of known ones; a known one keeps when it was first seen. */
export async function upsertTxs(db: Db, rows: readonly TxRow[]): Promise<void> {
  await writeInChunks(db, rows, (trx, chunk) =>
    trx
      .insertInto('btc.chain_txs')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['wallet', 'txid']).doUpdateSet((eb) => ({
          confirmed: eb.ref('excluded.confirmed'),
          block_height: eb.ref('excluded.block_height'),
          block_time: eb.ref('excluded.block_time'),
          received_sats: eb.ref('excluded.received_sats'),
          sent_sats: eb.ref('excluded.sent_sats'),
          fee_sats: eb.ref('excluded.fee_sats'),
          all_inputs_ours: eb.ref('excluded.all_inputs_ours'),
        })),
      )
      .execute(),
  );
}

export async function deleteTxs(db: Db, wallet: number, txids: readonly string[]): Promise<void> {
  if (txids.length === 0) return;
  await db.deleteFrom('btc.chain_txs').where('wallet', '=', wallet).where('txid', 'in', txids).execute();
}

/**
 * The wallet's transactions with every watched wallet's part in each (its own among them): a
 * transaction between two watched wallets is a move of the household, not a spend.
 */
export function txParts(db: Db, wallet: number): Promise<TxRow[]> {
  return db
    .selectFrom('btc.chain_txs as mine')
    .innerJoin('btc.chain_txs as t', 't.txid', 'mine.txid')
    .selectAll('t')
    .where('mine.wallet', '=', wallet)
    .orderBy('t.txid')
    .orderBy('t.wallet')
    .execute();
}
