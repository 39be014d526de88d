import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { FrankfurterClient } from '../../providers/frankfurter.js';
import { ratesRoutes } from './routes.js';
import { DEFAULT_RATES_SCHEDULE, ratesRefreshJob, ratesStartJob, type RatesSchedule } from './scheduler.js';
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

/** Currency rates: /api/currencies/:date and the refresh (RATES_FEED_ENABLED). */
export function createRatesFeature(
  ctx: AppContext,
  deps: { rates: Rates },
  schedule: Partial<RatesSchedule> = {},
): Feature {
  const log = ctx.log.child({ feed: 'rates' });
  const full = { ...DEFAULT_RATES_SCHEDULE, ...schedule };
  const jobs = () => [
    ratesStartJob(deps.rates, { log, schedule: full }),
    ratesRefreshJob(deps.rates, { leadership: ctx.leadership.of('btcPollers'), log, schedule: full }),
  ];
  return {
    name: 'rates',
    routes: (app) => ratesRoutes(app, deps.rates),
    start: () => deps.rates.seed(),
    jobs: ctx.config.feeds.rates ? jobs() : [],
  };
}
