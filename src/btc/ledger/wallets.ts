import type { Db } from '../../db/schema.js';
import { conflict, notFound } from '../../shared/refusal.js';
import * as repo from './repository.js';

export type WalletType = 'exchange' | 'wallet';

/** Wallets: their names and types; their balances are the events' (see service.ts). */
export function createWalletFunctions(db: Db) {
  return {
    listWallets: (type?: WalletType) => repo.listWallets(db, type),
    async getWallet(id: number) {
      const w = await repo.getWallet(db, id);
      if (!w) throw notFound(`no wallet ${id}`);
      return w;
    },
    async createWallet(w: { name: string; wallet_type: WalletType }) {
      return uniqueName(w.name, () => repo.insertWallet(db, w));
    },
    async patchWallet(id: number, patch: { name?: string; wallet_type?: WalletType }) {
      return db.transaction().execute(async (trx) => {
        const current = await repo.lockWallet(trx, id, 'update');
        if (!current) throw notFound(`no wallet ${id}`);
        if (
          patch.wallet_type &&
          patch.wallet_type !== current.wallet_type &&
          (await repo.eventsNamingWallet(trx, id)) > 0
        )
          throw conflict(`wallet_type: wallet ${id} is named by events, so its type cannot change`);
        return uniqueName(patch.name ?? '', async () => (await repo.updateWallet(trx, id, patch))!);
      });
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
