import type { AppContext, Feature } from '../../context.js';
import type { RatesService } from '../rates/service.js';
import { importRoutes } from './routes.js';
import { ImportService } from './service.js';

/** The import service on the context's database and clock, for the route and the command. */
export function importServiceOf(ctx: AppContext, rates: RatesService): ImportService {
  return new ImportService({ db: ctx.database.db, rates, clock: ctx.clock, shutdown: ctx.shutdown });
}

/** Exchange exports into the ledger: POST /api/imports. */
export function createImportsFeature(ctx: AppContext, deps: { rates: RatesService }): Feature {
  const imports = importServiceOf(ctx, deps.rates);
  return { name: 'imports', routes: (app) => importRoutes(app, imports, ctx.shutdown) };
}
