import type { AppContext, Feature } from '../../context.js';
import { walletWatchOf } from '../chain/index.js';
import type { RatesService } from '../rates/service.js';
import { ledgerRoutes } from './routes.js';
import { LedgerService } from './service.js';

/** The ledger on the context's database and clock (and the chain's watch keys), for the routes, the command and the tests. */
export function ledgerServiceOf(ctx: AppContext, rates: RatesService): LedgerService {
  return new LedgerService({
    db: ctx.database.db,
    clock: ctx.clock,
    rates,
    shutdown: ctx.shutdown,
    watch: walletWatchOf(ctx),
  });
}

/** Wallets, events, and the balances and read tables derived from them; rates convert the fiat amounts. */
export function createLedgerFeature(ctx: AppContext, deps: { rates: RatesService }): Feature {
  const ledger = ledgerServiceOf(ctx, deps.rates);
  return { name: 'ledger', routes: (app) => ledgerRoutes(app, ledger, ctx.shutdown) };
}
