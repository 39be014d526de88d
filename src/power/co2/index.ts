import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { Co2Provider } from '../../providers/energidataservice-co2.js';
import { co2Routes } from './routes.js';
import { co2Job } from './scheduler.js';
import { Co2Service } from './service.js';

/** The CO₂ service on Energi Data Service, under the provider's one call budget, reporting in the `co2` feed. */
export function createCo2Service(
  ctx: AppContext,
  /** Tests shorten the retries' backoff. */
  opts: { retries?: number; initialDelayMs?: number } = {},
): Co2Service {
  const provider = new Co2Provider({
    ...providerDeps(ctx, 'energidataservice'),
    baseUrl: ctx.config.urls.price,
    timeoutMs: ctx.config.providerTimeoutMs,
    health: ctx.health.feed('co2', ctx.config.feeds.co2),
    ...opts,
  });
  return new Co2Service({
    db: ctx.database.db,
    clock: ctx.clock,
    provider,
    shutdown: ctx.shutdown,
    config: ctx.config,
  });
}

/** GET /api/co2, and the leader's fetch of the realized values and the prognosis every quarter hour. */
export function createCo2Feature(ctx: AppContext, deps: { co2: Co2Service }): Feature {
  const health = ctx.health.feed('co2', ctx.config.feeds.co2);
  const on = ctx.config.feeds.co2;
  return {
    name: 'co2',
    routes: (app) => co2Routes(app, deps.co2),
    start: () => {
      if (!on) health.detail = 'off (CO2_FEED_ENABLED=false)';
    },
    jobs: on ? [co2Job(deps.co2, { clock: ctx.clock, log: ctx.log, health, shutdown: ctx.shutdown })] : [],
  };
}
