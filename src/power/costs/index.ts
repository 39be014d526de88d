import type { AppContext, Feature } from '../../context.js';
import type { HouseholdService } from '../household/service.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { costRoutes } from './routes.js';
import { CostService } from './service.js';

/** What electricity costs, on the price service's stored hours and the household's charges. */
export function costServiceOf(
  ctx: AppContext,
  deps: { prices: ElectricityPriceService; household: Pick<HouseholdService, 'current'> },
): CostService {
  return new CostService({
    db: ctx.database.db,
    clock: ctx.clock,
    prices: deps.prices,
    household: () => deps.household.current(),
    config: ctx.config,
  });
}

/** /api/consumer-prices and /api/costs (/api/cheapest is the windows feature's). */
export function createCostsFeature(deps: { costs: CostService }): Feature {
  return { name: 'costs', routes: (app) => costRoutes(app, deps.costs) };
}
