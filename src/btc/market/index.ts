import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import type { RatesService } from '../rates/service.js';
import { marketRoutes } from './routes.js';
import { DEFAULT_MARKET_OPTIONS, MarketService, type MarketOptions } from './service.js';
import { DEFAULT_STREAM_OPTIONS, MarketStreams, type StreamOptions } from './streams.js';

/** The market service on the context, converting with `rates`. */
export function marketServiceOf(
  ctx: AppContext,
  deps: { rates: RatesService },
  options: Partial<MarketOptions> = {},
): MarketService {
  return new MarketService(
    {
      database: ctx.database,
      clock: ctx.clock,
      log: ctx.log,
      health: ctx.health,
      shutdown: ctx.shutdown,
      rates: deps.rates,
      providers: { krakenWs: providerDeps(ctx, 'krakenWs'), strike: providerDeps(ctx, 'strike') },
      config: ctx.config,
    },
    { ...DEFAULT_MARKET_OPTIONS, ...options },
  );
}

/** The price and quote streams of `market`, for its routes. */
export function marketStreamsOf(
  ctx: AppContext,
  market: MarketService,
  options: Partial<StreamOptions> = {},
): MarketStreams {
  return new MarketStreams(
    market,
    { clock: ctx.clock, limits: ctx.config.streams },
    { ...DEFAULT_STREAM_OPTIONS, ...options },
  );
}

/** Spot price, broker quotes and their streams; the pollers run while this process leads. */
export function createMarketFeature(deps: { market: MarketService; streams: MarketStreams }): Feature {
  const { market, streams } = deps;
  return {
    name: 'market',
    routes: (app) => marketRoutes(app, market, streams),
    start: () => market.start(),
    stop: async () => {
      await market.stop();
      streams.close();
    },
    jobs: market.jobs(),
  };
}
