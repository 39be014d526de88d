import type { AppContext, Feature } from '../../context.js';
import type { HouseholdService } from '../household/service.js';
import type { PriceService } from '../prices/service.js';
import { costRoutes } from './routes.js';
import { CostService } from './service.js';

/** /api/consumer-prices and /api/costs, on the price service's stored hours (/api/cheapest is the windows feature's). */
export function createCostsFeature(
  ctx: AppContext,
  deps: { prices: PriceService; household: Pick<HouseholdService, 'current'> },
): Feature & { costs: CostService; prices: PriceService } {
  const service = new CostService({
    db: ctx.database.db,
    clock: ctx.clock,
    prices: deps.prices,
    household: () => deps.household.current(),
    config: ctx.config,
  });
  return { name: 'costs', costs: service, prices: deps.prices, routes: (app) => costRoutes(app, service) };
}
