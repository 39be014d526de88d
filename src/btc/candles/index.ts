import type { FeatureFactory } from '../../context.js';
import { KrakenOhlcClient } from '../../providers/kraken-ohlc.js';
import { leadershipOf } from '../leadership.js';
import { CandlePollers, DEFAULT_CADENCE, type Cadence } from './pollers.js';
import { candleRoutes } from './routes.js';
import { Candles } from './service.js';

/** OHLC candles: the 1-minute, hourly and daily pollers (OHLC_FEED_ENABLED) and their endpoints. */
export function createCandlesFeature(opts: { cadence?: Cadence; minGapMs?: number } = {}): FeatureFactory {
  return (ctx) => {
    const health = ctx.health.feed('ohlc', ctx.config.feeds.ohlc);
    const client = new KrakenOhlcClient({
      baseUrl: ctx.config.urls.ohlc,
      timeoutMs: ctx.config.providerTimeoutMs,
      health,
    });
    const candles = new Candles({ db: ctx.database.db, client, minGapMs: opts.minGapMs ?? 1_000 });
    let pollers: CandlePollers | null = null;
    return {
      name: 'candles',
      routes: (app) => candleRoutes(app, candles),
      start() {
        if (!ctx.config.feeds.ohlc) return;
        // Read at start: the market feature provides leadership when it is created.
        pollers = new CandlePollers(candles, {
          cadence: opts.cadence ?? DEFAULT_CADENCE,
          leadership: leadershipOf(ctx),
          health,
          log: ctx.log.child({ feed: 'ohlc' }),
          shutdown: ctx.shutdown,
        });
        pollers.start();
      },
      stop: () => pollers?.stop(),
    };
  };
}

export const candlesFeature = createCandlesFeature();
