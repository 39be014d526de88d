import type { Db } from '../../db/schema.js';
import { conflict } from '../../shared/refusal.js';
import type { WalletExtras, WalletWatch } from '../ledger/wallets.js';
import type { Network, Watch } from './keys.js';
import * as repo from './repository.js';

/**
 * The key libraries (@scure/bip32, @scure/btc-signer) are loaded on the first watch key or scan,
 * not at every start: they take a tenth of a second to load on a small machine.
 */
export const keyLibraries = async () => {
  const [{ parseWatch, storedWatch }, { Addresses }] = await Promise.all([
    import('./keys.js'),
    import('./derive.js'),
  ]);
  return { parseWatch, storedWatch, Addresses };
};

/**
 * The watch key as the ledger's wallet routes take and show it: checked before the wallet's
 * transaction opens (a 400 writes nothing), stored in it, and shown only as its kind, first
 * address and fingerprint beside the chain's figures.
 */
export function walletWatch(network: Network): WalletWatch {
  return {
    async parse(input: unknown): Promise<Watch> {
      const { parseWatch, Addresses } = await keyLibraries();
      const watch = parseWatch(input as string | string[], network);
      // derives the first address now, so a key no address comes of is refused before anything is written
      new Addresses(watch).first();
      return watch;
    },

    async save(db: Db, wallet: number, parsed: unknown): Promise<void> {
      const watch = parsed as Watch | null;
      const current = await repo.getWatch(db, wallet);
      // the same key again keeps what its scans found
      if (current && watch && current.key === watch.text && current.network === watch.network) return;
      await repo.deleteWatch(db, wallet);
      if (watch === null) return;
      const { Addresses } = await keyLibraries();
      const first = new Addresses(watch).first();
      await repo.lockWatchKeys(db);
      const other = await repo.walletWatchingKey(db, watch.text, first, wallet);
      if (other)
        throw conflict(
          `watch: wallet ${other.wallet} watches the same key (the same first address); its sats would be counted twice`,
        );
      await repo.insertWatch(db, {
        wallet,
        kind: watch.kind,
        network: watch.network,
        key: watch.text,
        first_address: first,
        fingerprint: watch.fingerprint,
      });
    },

    async watched(db: Db, wallet: number): Promise<boolean> {
      return (await repo.getWatch(db, wallet)) !== undefined;
    },

    async extras(db, wallets): Promise<Map<number, WalletExtras>> {
      const balance = new Map(wallets.map((w) => [w.id, w.balance]));
      const rows = await repo.watchFaces(
        db,
        wallets.map((w) => w.id),
      );
      return new Map(
        rows.map((r) => [
          r.wallet,
          {
            watch: { kind: r.kind, first_address: r.first_address, fingerprint: r.fingerprint },
            chain_sats: r.chain_sats,
            difference_sats:
              r.chain_sats === null ? null : r.chain_sats + (r.mempool_sats ?? 0) - balance.get(r.wallet)!,
          },
        ]),
      );
    },
  };
}
