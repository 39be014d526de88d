import type { AppContext, Feature } from '../../context.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { billRoutes } from './routes.js';
import { BillService } from './service.js';

/** GET /api/bill: a month of the household's metered consumption priced line by line. */
export function createBillFeature(ctx: AppContext, deps: { prices: ElectricityPriceService }): Feature {
  const service = new BillService({
    db: ctx.database.db,
    clock: ctx.clock,
    fillDays: (days: string[], signal?: AbortSignal) => deps.prices.fillDays(days, signal),
    charges: deps.prices.charges,
    config: ctx.config,
  });
  return {
    name: 'bill',
    routes: (app) => billRoutes(app, service),
  };
}
