import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { FrankfurterClient } from '../../providers/frankfurter.js';
import type { Leadership } from '../leadership.js';
import { ratesRoutes } from './routes.js';
import { DEFAULT_RATES_SCHEDULE, RatesScheduler, type RatesSchedule } from './scheduler.js';
import { Rates } from './service.js';

/** The rates service that the btc service shares: /api/currencies, the ledger and the spot feed use it. */
export function createRatesService(ctx: AppContext): Rates {
  const client = new FrankfurterClient({
    ...providerDeps(ctx, 'frankfurter'),
    baseUrl: ctx.config.urls.rates,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed('rates', ctx.config.feeds.rates),
  });
  return new Rates({ db: ctx.database.db, client, clock: ctx.clock, log: ctx.log, shutdown: ctx.shutdown });
}

export interface RatesFeature extends Feature {
  /** The hourly refresh, callable directly (tests cannot wait an hour). */
  tick(): Promise<void>;
}

/** Currency rates: /api/currencies/:date and the refresh (RATES_FEED_ENABLED). */
export function createRatesFeature(
  ctx: AppContext,
  deps: { rates: Rates; leadership: Leadership },
  schedule: Partial<RatesSchedule> = {},
): RatesFeature {
  const scheduler = new RatesScheduler(deps.rates, {
    leadership: deps.leadership,
    schedule: { ...DEFAULT_RATES_SCHEDULE, ...schedule },
    log: ctx.log.child({ feed: 'rates' }),
    shutdown: ctx.shutdown,
  });
  return {
    name: 'rates',
    tick: () => scheduler.tick(),
    routes: (app) => ratesRoutes(app, deps.rates),
    async start() {
      await deps.rates.seed();
      if (ctx.config.feeds.rates) scheduler.start();
    },
    stop: () => scheduler.stop(),
  };
}
