import type { AppContext, Feature } from '../../context.js';
import type { Leadership } from '../leadership.js';
import type { RatesService } from '../rates/service.js';
import { marketRoutes } from './routes.js';
import { DEFAULT_MARKET_OPTIONS, MarketService, type MarketOptions } from './service.js';

/** Spot price, broker quotes and their streams; the pollers run while this process leads. */
export function createMarketFeature(
  ctx: AppContext,
  deps: { rates: RatesService; leadership: Leadership },
  options: Partial<MarketOptions> = {},
): Feature & { market: MarketService } {
  const market = new MarketService(ctx, deps.rates, deps.leadership, {
    ...DEFAULT_MARKET_OPTIONS,
    ...options,
  });
  return {
    name: 'market',
    market,
    routes: (app) => marketRoutes(app, market),
    start: () => market.start(),
    stop: () => market.stop(),
  };
}
