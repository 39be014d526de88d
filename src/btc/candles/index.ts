import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { KrakenOhlcClient } from '../../providers/kraken-ohlc.js';
import { candleJobs, DEFAULT_CADENCE, type Cadence } from './scheduler.js';
import { candleRoutes } from './routes.js';
import { CandleService } from './service.js';

export interface CandlesOptions {
  cadence?: Cadence;
  minGapMs?: number;
}

/** OHLC candles: the 1-minute, hourly and daily pollers (OHLC_FEED_ENABLED) and their endpoints. */
export function createCandlesFeature(ctx: AppContext, opts: CandlesOptions = {}): Feature {
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
  const jobs = () =>
    candleJobs(candles, {
      cadence: opts.cadence ?? DEFAULT_CADENCE,
      health,
      log: ctx.log.child({ feed: 'ohlc' }),
    });
  return {
    name: 'candles',
    routes: (app) => candleRoutes(app, candles),
    jobs: ctx.config.feeds.ohlc ? jobs() : [],
  };
}
