import type { AppContext, FeatureFactory } from '../../context.js';
import { backfillCommand } from './command.js';
import { EnergiDataService } from '../../providers/energidataservice.js';
import { loadHomePage } from './page.js';
import { priceRoutes } from './routes.js';
import { PriceScheduler } from './scheduler.js';
import { PriceService } from './service.js';

export function makePriceService(ctx: AppContext): PriceService {
  const provider = new EnergiDataService({
    baseUrl: ctx.config.urls.price,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed('prices', ctx.config.feeds.price),
  });
  return new PriceService(ctx, provider);
}

export const backfillPrices = backfillCommand(makePriceService);

export const pricesFeature: FeatureFactory = (ctx) => {
  const health = ctx.health.feed('prices', ctx.config.feeds.price);
  const service = makePriceService(ctx);
  const scheduler = new PriceScheduler(ctx, service, health);
  return {
    name: 'prices',
    routes: (app) => priceRoutes(app, service, loadHomePage()),
    start: () => {
      if (ctx.config.feeds.price) scheduler.start();
      else health.detail = 'off (PRICE_FEED_ENABLED=false)';
    },
    stop: () => scheduler.stop(),
  };
};
