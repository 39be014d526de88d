import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
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
  const market = new MarketService(
    {
      database: ctx.database,
      clock: ctx.clock,
      log: ctx.log,
      health: ctx.health,
      shutdown: ctx.shutdown,
      rates: deps.rates,
      leadership: deps.leadership,
      providers: { krakenWs: providerDeps(ctx, 'krakenWs'), strike: providerDeps(ctx, 'strike') },
      config: ctx.config,
    },
    { ...DEFAULT_MARKET_OPTIONS, ...options },
  );
  return {
    name: 'market',
    market,
    routes: (app) => marketRoutes(app, market),
    start: () => market.start(),
    stop: () => market.stop(),
  };
}
