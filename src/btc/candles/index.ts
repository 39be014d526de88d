import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { KrakenOhlcClient } from '../../providers/kraken-ohlc.js';
import type { Leadership } from '../leadership.js';
import { CandlePollers, DEFAULT_CADENCE, type Cadence } from './scheduler.js';
import { candleRoutes } from './routes.js';
import { CandleService } from './service.js';

export interface CandlesOptions {
  cadence?: Cadence;
  minGapMs?: number;
}

/** OHLC candles: the 1-minute, hourly and daily pollers (OHLC_FEED_ENABLED) and their endpoints. */
export function createCandlesFeature(
  ctx: AppContext,
  deps: { leadership: Leadership },
  opts: CandlesOptions = {},
): Feature {
  const health = ctx.health.feed('ohlc', ctx.config.feeds.ohlc);
  const client = new KrakenOhlcClient({
    ...providerDeps(ctx, 'krakenRest'),
    baseUrl: ctx.config.urls.ohlc,
    timeoutMs: ctx.config.providerTimeoutMs,
    health,
  });
  const candles = new CandleService({
    db: ctx.database.db,
    client,
    clock: ctx.clock,
    minGapMs: opts.minGapMs ?? 1_000,
  });
  const pollers = new CandlePollers(candles, {
    cadence: opts.cadence ?? DEFAULT_CADENCE,
    leadership: deps.leadership,
    health,
    log: ctx.log.child({ feed: 'ohlc' }),
    shutdown: ctx.shutdown,
  });
  return {
    name: 'candles',
    routes: (app) => candleRoutes(app, candles),
    start: () => {
      if (ctx.config.feeds.ohlc) pollers.start();
    },
    stop: () => pollers.stop(),
  };
}
