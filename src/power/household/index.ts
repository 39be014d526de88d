import type { AppContext, Feature } from '../../context.js';
import { ProviderError } from '../../providers/http.js';
import { refreshTokenSource, type EloverblikClient } from '../../providers/eloverblik.js';
import type { PriceService } from '../prices/service.js';
import { householdRoutes } from './routes.js';
import { HouseholdScheduler } from './scheduler.js';
import { HouseholdService } from './service.js';

/** The household's charges: from its meter with a metering token, else from GRID_COMPANY_GLN. */
export function createHouseholdCharges(
  ctx: AppContext,
  deps: { prices: PriceService; client: EloverblikClient },
): HouseholdService {
  const token = refreshTokenSource(ctx.config);
  return new HouseholdService({
    db: ctx.database.db,
    pricelist: (filter, signal, onBusy) => deps.prices.provider.pricelist(filter, signal, onBusy),
    meter: {
      // The token is read when needed, so a .token file written later is found at the next refresh.
      available: () =>
        token().then(
          () => true,
          (e: unknown) => {
            if (e instanceof ProviderError) return false;
            throw e;
          },
        ),
      meteringPoints: (signal) => deps.client.meteringPoints(signal),
      charges: (ids, signal) => deps.client.charges(ids, signal),
    },
    config: ctx.config,
    clock: ctx.clock,
    log: ctx.log,
    signal: ctx.shutdown,
    onChanged: () => deps.prices.chargesChanged(),
  });
}

/** GET /api/charges, and the refresh at start and once a day (with the price feed, whose provider it asks). */
export function createHouseholdFeature(ctx: AppContext, deps: { household: HouseholdService }): Feature {
  const health = ctx.health.feed('household', true);
  const scheduler = new HouseholdScheduler(deps.household, { clock: ctx.clock, log: ctx.log, health });
  return {
    name: 'household',
    routes: (app) => householdRoutes(app, deps.household),
    start: async () => {
      // Stored hours take the stored charges at once: none keeps another household's tariff.
      await deps.household.apply();
      health.detail = deps.household.current().detail;
      if (ctx.config.feeds.price) scheduler.start();
    },
    stop: () => scheduler.stop(),
  };
}
