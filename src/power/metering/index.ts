import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { EloverblikClient, refreshTokenSource, type Sleep } from '../../providers/eloverblik.js';
import { meteringRoutes } from './routes.js';
import { meteringService, type MeteringService } from './service.js';

export interface MeteringOptions {
  /** Tests inject a sleep so the provider's one-minute waits take no time. */
  sleep?: Sleep;
  retries?: number;
}

/** The metering sync against Eloverblik, for the route and for `sync-month`. */
export function createMeteringService(ctx: AppContext, opts: MeteringOptions = {}): MeteringService {
  const client = new EloverblikClient({
    ...providerDeps(ctx, 'eloverblik'),
    tokenBudget: ctx.budgets.eloverblikToken,
    baseUrl: ctx.config.urls.metering,
    timeoutMs: ctx.config.providerTimeoutMs,
    refreshToken: refreshTokenSource(ctx.config),
    health: ctx.health.feed('metering', true),
    sleep: opts.sleep,
    retries: opts.retries,
  });
  return meteringService({ db: ctx.database.db, client, clock: ctx.clock, shutdown: ctx.shutdown });
}

/** Metering points, production and consumption: POST /metering/sync and the private reads. */
export function createMeteringFeature(ctx: AppContext, opts: MeteringOptions = {}): Feature {
  const service = createMeteringService(ctx, opts);
  const job = {
    clock: ctx.clock,
    checkToken: () => refreshTokenSource(ctx.config)(),
    shutdown: ctx.shutdown,
  };
  return { name: 'metering', routes: (app) => meteringRoutes(app, service, job) };
}
