import type { AppContext, Feature } from '../../context.js';
import type { RatesService } from '../rates/service.js';
import { taxRoutes } from './routes.js';
import { TaxService } from './service.js';

/** The FIFO book of the ledger's owners; the rates value the days' prices of fees and gifts. */
export function taxServiceOf(ctx: AppContext, rates: RatesService): TaxService {
  return new TaxService({
    db: ctx.database.db,
    clock: ctx.clock,
    rates,
    shutdown: ctx.shutdown,
    spouses: ctx.config.taxSpouses,
  });
}

/** GET /api/lots and GET /api/tax/{year}. */
export function createTaxFeature(deps: { tax: TaxService }): Feature {
  return { name: 'tax', routes: (app) => taxRoutes(app, deps.tax) };
}
