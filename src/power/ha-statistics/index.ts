import type { Leadership } from '../../btc/leadership.js';
import type { AppContext, Feature } from '../../context.js';
import type { PriceService } from '../prices/service.js';
import { DEFAULT_HA_STATISTICS_OPTIONS, HaStatisticsService, type HaStatisticsOptions } from './service.js';

export { DEFAULT_HA_STATISTICS_OPTIONS, type HaStatisticsOptions } from './service.js';

/**
 * The metered consumption and production and their cost, written to Home Assistant as long-term
 * statistics (docs/homeassistant.md). Off (a disabled `ha-statistics` feed in /health) without
 * HA_URL. Only the holder of `leadership` (the metering sync's) writes.
 */
export function createHaStatisticsFeature(
  ctx: AppContext,
  deps: { prices: Pick<PriceService, 'fillDays'>; leadership: Leadership },
  options: Partial<HaStatisticsOptions> = {},
): Feature & { haStatistics?: HaStatisticsService } {
  const ha = ctx.config.homeAssistant;
  const health = ctx.health.feed('ha-statistics', ha !== null);
  if (!ha) {
    health.detail = 'off: HA_URL is not set';
    return { name: 'ha-statistics' };
  }
  const service = new HaStatisticsService(
    {
      db: ctx.database.db,
      database: ctx.database,
      clock: ctx.clock,
      log: ctx.log.child({ feature: 'ha-statistics' }),
      health,
      shutdown: ctx.shutdown,
      leadership: deps.leadership,
      homeAssistant: ha,
      pricing: {
        area: ctx.config.priceArea,
        markup: ctx.config.supplierMarkupDkkKwh,
        vatRate: ctx.config.vatRate,
      },
      maxBytes: ctx.config.providerMaxBytes,
      fillDays: (days, signal) => deps.prices.fillDays(days, signal),
    },
    { ...DEFAULT_HA_STATISTICS_OPTIONS, ...options },
  );
  return {
    name: 'ha-statistics',
    haStatistics: service,
    // Home Assistant is never waited for: the first round runs in the background
    start: () => service.start(),
    stop: () => service.stop(),
  };
}
