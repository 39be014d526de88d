import type { AppContext, Feature } from '../../context.js';
import { ProviderError } from '../../providers/http.js';
import { refreshTokenSource, type EloverblikClient } from '../../providers/eloverblik.js';
import type { EnergiDataService } from '../../providers/energidataservice.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { ChargesReadiness } from './readiness.js';
import { householdRoutes } from './routes.js';
import { householdJob } from './scheduler.js';
import { HouseholdService } from './service.js';

/**
 * Whether the household's charges are known, shared by every answer that carries them. With the
 * refresh scheduled (PRICE_FEED_ENABLED) they are not until the start has found them stored or
 * the first refresh has loaded them, so a request that comes meanwhile waits for them.
 */
export function createChargesReadiness(ctx: AppContext, opts: { waitMs?: number } = {}): ChargesReadiness {
  return new ChargesReadiness(
    { clock: ctx.clock, waitMs: opts.waitMs, shutdown: ctx.shutdown },
    ctx.config.feeds.dayAhead ? { state: 'loading', since: ctx.clock.now() } : { state: 'known' },
  );
}

/** The household's charges: from its meter with a metering token, else from GRID_COMPANY_GLN. */
export function createHouseholdCharges(
  ctx: AppContext,
  deps: {
    /** The price lists of the grid companies (Energi Data Service's DatahubPricelist). */
    provider: Pick<EnergiDataService, 'pricelist'>;
    prices: Pick<ElectricityPriceService, 'chargesChanged' | 'charges'>;
    client: EloverblikClient;
  },
): HouseholdService {
  const token = refreshTokenSource(ctx.config);
  return new HouseholdService({
    db: ctx.database.db,
    pricelist: (filter, signal, onBusy) => deps.provider.pricelist(filter, signal, onBusy),
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
    readiness: deps.prices.charges,
  });
}

/** GET /api/charges, and the refresh at start and once a day (with the price feed, whose provider it asks). */
export function createHouseholdFeature(ctx: AppContext, deps: { household: HouseholdService }): Feature {
  const health = ctx.health.feed('household', true);
  const { household } = deps;
  // Said from the moment the process answers, not from when the feature starts.
  health.starting = !household.readiness.known;
  health.detail = household.readiness.describe();
  return {
    name: 'household',
    routes: (app) => householdRoutes(app, household),
    start: async () => {
      // Stored hours take the stored charges at once: none keeps another household's tariff.
      await household.apply();
      health.starting = !household.readiness.known;
      health.detail = household.readiness.describe() ?? household.current().detail;
    },
    jobs: ctx.config.feeds.dayAhead
      ? [householdJob(household, { clock: ctx.clock, log: ctx.log, health })]
      : [],
  };
}
