import type { AppContext, Feature } from '../../context.js';
import { providerDeps } from '../../providers/budget.js';
import { EloverblikClient, refreshTokenSource, type Sleep } from '../../providers/eloverblik.js';
import { meteringRoutes } from './routes.js';
import { MeteringSyncScheduler } from './scheduler.js';
import { MeteringService } from './service.js';

export interface MeteringOptions {
  /** Tests inject a sleep so the provider's one-minute waits take no time. */
  sleep?: Sleep;
  retries?: number;
}

/** The one Eloverblik client of a process: its data access token is shared by every user. */
export function createEloverblikClient(ctx: AppContext, opts: MeteringOptions = {}): EloverblikClient {
  return new EloverblikClient({
    ...providerDeps(ctx, 'eloverblik'),
    tokenBudget: ctx.budgets.eloverblikToken,
    baseUrl: ctx.config.urls.metering,
    timeoutMs: ctx.config.providerTimeoutMs,
    refreshToken: refreshTokenSource(ctx.config),
    health: ctx.health.feed('metering', true),
    sleep: opts.sleep,
    retries: opts.retries,
  });
}

/** The metering sync against Eloverblik, for the route and for `sync-month`. */
export function createMeteringService(
  ctx: AppContext,
  opts: MeteringOptions = {},
  client = createEloverblikClient(ctx, opts),
): MeteringService {
  return new MeteringService({
    db: ctx.database.db,
    client,
    clock: ctx.clock,
    shutdown: ctx.shutdown,
    log: ctx.log,
  });
}

/**
 * Metering points, production and consumption: POST /metering/sync, the private reads, and the
 * daily sync on the leader.
 */
export function createMeteringFeature(
  ctx: AppContext,
  opts: MeteringOptions = {},
  deps: { client?: EloverblikClient } = {},
): Feature {
  const service = createMeteringService(ctx, opts, deps.client ?? createEloverblikClient(ctx, opts));
  const token = refreshTokenSource(ctx.config);
  const scheduler = new MeteringSyncScheduler(service, {
    clock: ctx.clock,
    log: ctx.log,
    health: ctx.health.feed('metering-sync', true),
    shutdown: ctx.shutdown,
    tokenAvailable: () =>
      token().then(
        () => true,
        () => false,
      ),
  });
  const job = { clock: ctx.clock, checkToken: () => token(), shutdown: ctx.shutdown };
  return {
    name: 'metering',
    routes: (app) => meteringRoutes(app, service, job),
    start: () => {
      if (!ctx.config.feeds.meteringSync)
        ctx.health.feed('metering-sync', true).detail = 'off (METERING_SYNC_ENABLED=false)';
    },
    jobs: ctx.config.feeds.meteringSync ? [scheduler.job()] : [],
  };
}
