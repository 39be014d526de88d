import type { AppContext, Feature } from '../../context.js';
import type { Co2Service } from '../co2/service.js';
import type { CostService } from '../costs/service.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { windowRoutes } from './routes.js';
import { WindowService } from './service.js';

/** The window service on the price service's stored quarters and the CO₂ values. */
export function createWindowService(
  ctx: AppContext,
  deps: { prices: ElectricityPriceService; co2: Co2Service },
) {
  return new WindowService({
    db: ctx.database.db,
    clock: ctx.clock,
    prices: deps.prices,
    co2: deps.co2,
    config: ctx.config,
  });
}

/** /api/cheapest (the quarter-hour form and the whole-hour form) and /api/greenest. */
export function createWindowsFeature(deps: { windows: WindowService; costs: CostService }): Feature {
  return { name: 'windows', routes: (app) => windowRoutes(app, deps.windows, deps.costs) };
}
