import type { AppContext, Feature } from '../../context.js';
import type { RatesService } from '../rates/service.js';
import { ledgerRoutes } from './routes.js';
import { createLedgerService } from './service.js';

/** Wallets, events, and the balances and read tables derived from them; rates convert the fiat amounts. */
export function createLedgerFeature(ctx: AppContext, deps: { rates: RatesService }): Feature {
  const ledger = createLedgerService(ctx, deps.rates);
  return { name: 'ledger', routes: (app) => ledgerRoutes(app, ledger, ctx.shutdown) };
}
