import type { AppContext, Feature } from '../../context.js';
import { walletWatchOf } from '../chain/index.js';
import type { RatesService } from '../rates/service.js';
import { createReadFunctions } from './reads.js';
import { ledgerRoutes } from './routes.js';
import { LedgerService } from './service.js';
import { createWalletFunctions } from './wallets.js';

/** The ledger's writes on the context's database and clock, for the routes, the command and the tests. */
export function ledgerServiceOf(ctx: AppContext, rates: RatesService): LedgerService {
  return new LedgerService({ db: ctx.database.db, clock: ctx.clock, rates, shutdown: ctx.shutdown });
}

/** Wallets, events, and the balances and read tables derived from them; rates convert the fiat amounts. */
export function createLedgerFeature(ctx: AppContext, deps: { rates: RatesService }): Feature {
  const parts = {
    ledger: ledgerServiceOf(ctx, deps.rates),
    // The wallets carry the chain's watch keys.
    wallets: createWalletFunctions(ctx.database.db, walletWatchOf(ctx)),
    reads: createReadFunctions(ctx.database.db),
  };
  return { name: 'ledger', routes: (app) => ledgerRoutes(app, parts, ctx.shutdown) };
}
