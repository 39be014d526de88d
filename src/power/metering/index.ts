import type { AppContext, FeatureFactory } from '../../context.js';
import { EloverblikClient, refreshTokenSource, type Sleep } from '../../providers/eloverblik.js';
import { meteringRoutes } from './routes.js';
import { meteringService } from './service.js';

export interface MeteringOptions {
  /** Tests inject a sleep so the provider's one-minute waits take no time. */
  sleep?: Sleep;
  retries?: number;
}

export function eloverblikClient(ctx: AppContext, opts: MeteringOptions = {}): EloverblikClient {
  return new EloverblikClient({
    baseUrl: ctx.config.urls.metering,
    timeoutMs: ctx.config.providerTimeoutMs,
    refreshToken: refreshTokenSource(ctx.config),
    health: ctx.health.feed('metering', true),
    sleep: opts.sleep,
    retries: opts.retries,
  });
}

export function meteringServiceFor(ctx: AppContext, opts: MeteringOptions = {}) {
  return meteringService({
    db: ctx.database.db,
    client: eloverblikClient(ctx, opts),
    clock: ctx.clock,
    shutdown: ctx.shutdown,
  });
}

export function meteringFeature(opts: MeteringOptions = {}): FeatureFactory {
  return (ctx) => {
    const service = meteringServiceFor(ctx, opts);
    return { name: 'metering', routes: (app) => meteringRoutes(app, service) };
  };
}
