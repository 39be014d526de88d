import { Cron } from 'croner';
import type { Feature, FeatureFactory } from '../../context.js';
import { FrankfurterClient } from '../../providers/frankfurter.js';
import { leadershipOf } from '../leadership.js';
import { provideRates } from './contract.js';
import { ratesRoutes } from './routes.js';
import { Rates } from './service.js';
import { sleep } from '../../shared/sleep.js';

export interface RatesFeatureOptions {
  /** Provider attempts at start before going on without it. */
  startAttempts?: number;
  startIntervalMs?: number;
  /** Croner pattern of the refresh; hourly by default. */
  refreshPattern?: string;
}

/** The feature, with the hourly tick callable directly (tests cannot wait an hour). */
export interface RatesFeature extends Feature {
  tick(): Promise<void>;
}

/** Currency rates: /api/currencies/:date, the hourly refresh, and ratesOf(ctx) for the rest of btc. */
export function createRatesFeature(opts: RatesFeatureOptions = {}): FeatureFactory {
  const attempts = opts.startAttempts ?? 5;
  const intervalMs = opts.startIntervalMs ?? 5_000;
  return (ctx) => {
    const health = ctx.health.feed('rates', ctx.config.feeds.rates);
    const client = new FrankfurterClient({
      baseUrl: ctx.config.urls.rates,
      timeoutMs: ctx.config.providerTimeoutMs,
      health,
    });
    const rates = new Rates({
      db: ctx.database.db,
      client,
      clock: ctx.clock,
      log: ctx.log,
      shutdown: ctx.shutdown,
    });
    provideRates(ctx, rates);
    const log = ctx.log.child({ feed: 'rates' });
    let job: Cron | null = null;
    let starting: Promise<void> | null = null;

    // The leader asks the provider; the other processes pick up what it stored.
    const refresh = async () => {
      try {
        if (leadershipOf(ctx).isLeader()) await rates.refresh();
        else await rates.seed();
      } catch (e) {
        log.warn({ err: e }, 'rates refresh failed; keeping the stored rates');
      }
    };

    const firstFetch = async () => {
      for (let i = 1; i <= attempts && !ctx.shutdown.aborted; i++) {
        try {
          await rates.refresh(0);
          return;
        } catch (e) {
          log.warn({ err: e, attempt: i, of: attempts }, 'rates provider unreachable at start');
        }
        if (i < attempts) await sleep(intervalMs, ctx.shutdown);
      }
      if (!ctx.shutdown.aborted) log.warn('going on without the rates provider; serving stored rates');
    };

    const feature: RatesFeature = {
      name: 'rates',
      tick: refresh,
      routes: (app) => ratesRoutes(app, rates),
      async start() {
        await rates.seed();
        if (!ctx.config.feeds.rates) return;
        starting = firstFetch();
        job = new Cron(opts.refreshPattern ?? '7 * * * *', { protect: true }, refresh);
      },
      async stop() {
        job?.stop();
        await starting;
      },
    };
    return feature;
  };
}

export const ratesFeature = createRatesFeature();
