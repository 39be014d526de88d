import type { FeatureFactory } from '../../context.js';
import { ledgerRoutes } from './routes.js';
import { createLedgerService } from './service.js';

/** Wallets, events and the read tables derived from them. Needs the rates feature mounted before it. */
export const ledgerFeature: FeatureFactory = (ctx) => {
  const ledger = createLedgerService(ctx);
  return { name: 'ledger', routes: (app) => ledgerRoutes(app, ledger) };
};
