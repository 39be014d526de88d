import type { AppContext, Feature } from '../../context.js';
import type { Co2Service } from '../co2/service.js';
import type { HouseholdService } from '../household/service.js';
import type { WindowService } from '../windows/service.js';
import { evccRoutes } from './routes.js';
import { EvccService } from './service.js';

/** /api/evcc/grid, /api/evcc/feedin and /api/evcc/co2: evcc's custom tariffs (docs/evcc.md). */
export function createEvccFeature(
  ctx: AppContext,
  deps: { windows: WindowService; co2: Co2Service; household: Pick<HouseholdService, 'current'> },
): Feature {
  const service = new EvccService({
    db: ctx.database.db,
    clock: ctx.clock,
    windows: deps.windows,
    co2: deps.co2,
    household: () => deps.household.current(),
    config: ctx.config,
  });
  return { name: 'evcc', routes: (app) => evccRoutes(app, service) };
}
