import type { Static } from 'typebox';
import type { Db } from '../../db/schema.js';
import type { WatchFace } from '../chain/schemas.js';
import { conflict, notFound } from '../../shared/refusal.js';
import * as repo from './repository.js';
import type { WalletRow } from './repository.js';

export type WalletType = 'exchange' | 'wallet';

/** What a watched wallet's answer adds: the watch key's public face and the chain's figures. */
export interface WalletExtras {
  watch: Static<typeof WatchFace>;
  /** Null before the first scan. */
  chain_sats: number | null;
  difference_sats: number | null;
}

/**
 * A wallet's watch key, kept by the chain feature (src/btc/chain/watch.ts): checked before the
 * wallet's transaction opens, written in it, and shown beside the wallet.
 */
export interface WalletWatch {
  /** The key checked, or an invalid Refusal naming `body.watch`. */
  parse(input: unknown): Promise<unknown>;
  /** Sets (a parsed key) or removes (null) the key of a wallet locked for update. */
  save(db: Db, wallet: number, parsed: unknown): Promise<void>;
  watched(db: Db, wallet: number): Promise<boolean>;
  extras(db: Db, wallets: readonly { id: number; balance: number }[]): Promise<Map<number, WalletExtras>>;
}

export interface WalletPatch {
  name?: string;
  wallet_type?: WalletType;
  /** Whose FIFO pool the wallet's whole history counts in (src/btc/tax). */
  owner?: string;
  /** A watch key, or null to remove it. */
  watch?: unknown;
}

/** Wallets: their names and types; their balances are the events' (see service.ts). */
export function createWalletFunctions(db: Db, watch?: WalletWatch) {
  const withExtras = async (rows: WalletRow[]) => {
    const extras = watch ? await watch.extras(db, rows) : new Map<number, WalletExtras>();
    return rows.map((r) => ({ ...r, ...extras.get(r.id) }));
  };
  return {
    listWallets: async (type?: WalletType) => withExtras(await repo.listWallets(db, type)),
    async getWallet(id: number) {
      const w = await repo.getWallet(db, id);
      if (!w) throw notFound(`no wallet ${id}`);
      return (await withExtras([w]))[0]!;
    },
    async createWallet(w: { name: string; wallet_type: WalletType; owner?: string }) {
      return uniqueName(w.name, () => repo.insertWallet(db, w));
    },
    async patchWallet(id: number, patch: WalletPatch) {
      const { watch: input, ...fields } = patch;
      if (input !== undefined && !watch) throw conflict('watch: watch keys are not kept by this service');
      const parsed = input === undefined || input === null ? input : await watch!.parse(input);
      const row = await db.transaction().execute(async (trx) => {
        const current = await repo.lockWallet(trx, id, 'update');
        if (!current) throw notFound(`no wallet ${id}`);
        const type = fields.wallet_type ?? current.wallet_type;
        if (type !== current.wallet_type && (await repo.eventsNamingWallet(trx, id)) > 0)
          throw conflict(`wallet_type: wallet ${id} is named by events, so its type cannot change`);
        if (parsed !== undefined) {
          if (parsed !== null && type !== 'wallet')
            throw conflict(
              `watch: wallet ${id} (${current.name}) is an exchange; only a wallet of type wallet is watched`,
            );
          await watch!.save(trx, id, parsed);
        } else if (type === 'exchange' && watch && (await watch.watched(trx, id)))
          throw conflict(
            `wallet_type: wallet ${id} has a watch key; remove it ("watch": null) to make it an exchange`,
          );
        if (Object.values(fields).every((v) => v === undefined)) return (await repo.getWallet(trx, id))!;
        return uniqueName(fields.name ?? '', async () => (await repo.updateWallet(trx, id, fields))!);
      });
      return (await withExtras([row]))[0]!;
    },
    async deleteWallet(id: number) {
      await db.transaction().execute(async (trx) => {
        const current = await repo.lockWallet(trx, id, 'update');
        if (!current) throw notFound(`no wallet ${id}`);
        const n = await repo.eventsNamingWallet(trx, id);
        if (n > 0)
          throw conflict(`wallet ${id} (${current.name}) is named by ${n} event(s); delete those first`);
        await repo.deleteWallet(trx, id);
      });
    },
  };
}

async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw conflict(`name: a wallet named "${name}" exists`);
    throw e;
  }
}
