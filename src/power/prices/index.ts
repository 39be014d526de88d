import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { EnergiDataService } from '../../providers/energidataservice.js';
import type { ChargesReadiness } from '../household/readiness.js';
import { loadHomePage } from './page.js';
import { priceRoutes } from './routes.js';
import { priceJob } from './scheduler.js';
import { ElectricityPriceService } from './service.js';

/** Energi Data Service's day-ahead prices and price lists, reporting in the `prices` feed. */
export function createPriceProvider(ctx: AppContext): EnergiDataService {
  return new EnergiDataService({
    ...providerDeps(ctx, 'energidataservice'),
    baseUrl: ctx.config.urls.price,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed('prices', ctx.config.feeds.dayAhead),
  });
}

/**
 * Day-ahead prices with tariffs from Energi Data Service, for the feature and for `backfill-prices`;
 * `charges` says whether the household's charges its hours carry are known (always, without one).
 */
export function createElectricityPriceService(
  ctx: AppContext,
  deps: { provider?: EnergiDataService; charges?: ChargesReadiness } = {},
): ElectricityPriceService {
  return new ElectricityPriceService({
    db: ctx.database.db,
    clock: ctx.clock,
    shutdown: ctx.shutdown,
    provider: deps.provider ?? createPriceProvider(ctx),
    charges: deps.charges,
  });
}

/** /api/elprice, /api/prices, the home page, and the job that keeps today and tomorrow stored. */
export function createPricesFeature(
  ctx: AppContext,
  deps: { prices: ElectricityPriceService } = { prices: createElectricityPriceService(ctx) },
): Feature {
  const health = ctx.health.feed('prices', ctx.config.feeds.dayAhead);
  const service = deps.prices;
  const on = ctx.config.feeds.dayAhead;
  return {
    name: 'prices',
    routes: (app) => priceRoutes(app, service, loadHomePage(), ctx.shutdown),
    start: () => {
      if (!on) health.detail = 'off (PRICE_FEED_ENABLED=false)';
    },
    jobs: on ? [priceJob(service, { clock: ctx.clock, log: ctx.log, health })] : [],
  };
}
