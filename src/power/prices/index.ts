import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { EnergiDataService } from '../../providers/energidataservice.js';
import type { ChargesReadiness } from '../household/readiness.js';
import { loadHomePage } from './page.js';
import { priceRoutes } from './routes.js';
import { PriceScheduler } from './scheduler.js';
import { PriceService } from './service.js';

/**
 * Day-ahead prices with tariffs from Energi Data Service, for the feature and for `backfill-prices`;
 * `charges` says whether the household's charges its hours carry are known (always, without one).
 */
export function createPriceService(ctx: AppContext, deps: { charges?: ChargesReadiness } = {}): PriceService {
  const provider = new EnergiDataService({
    ...providerDeps(ctx, 'energidataservice'),
    baseUrl: ctx.config.urls.price,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed('prices', ctx.config.feeds.price),
  });
  return new PriceService({
    db: ctx.database.db,
    clock: ctx.clock,
    shutdown: ctx.shutdown,
    provider,
    charges: deps.charges,
  });
}

/** /api/elprice, /api/prices, the home page, and the scheduler that keeps today and tomorrow stored. */
export function createPricesFeature(
  ctx: AppContext,
  deps: { prices: PriceService } = { prices: createPriceService(ctx) },
): Feature {
  const health = ctx.health.feed('prices', ctx.config.feeds.price);
  const service = deps.prices;
  const scheduler = new PriceScheduler(ctx, service, health);
  return {
    name: 'prices',
    routes: (app) => priceRoutes(app, service, loadHomePage(), ctx.shutdown),
    start: () => {
      if (ctx.config.feeds.price) scheduler.start();
      else health.detail = 'off (PRICE_FEED_ENABLED=false)';
    },
    stop: () => scheduler.stop(),
  };
}
