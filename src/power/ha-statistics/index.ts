import type { AppContext, Feature } from '../../context.js';
import type { ElectricityPriceService } from '../prices/service.js';
import { DEFAULT_HA_STATISTICS_OPTIONS, HaStatisticsService, type HaStatisticsOptions } from './service.js';

export { DEFAULT_HA_STATISTICS_OPTIONS, type HaStatisticsOptions } from './service.js';

/** The statistics writer, or null without HA_URL (a disabled `ha-statistics` feed in /health). */
export function haStatisticsServiceOf(
  ctx: AppContext,
  deps: { prices: Pick<ElectricityPriceService, 'fillDays'> },
  options: Partial<HaStatisticsOptions> = {},
): HaStatisticsService | null {
  const ha = ctx.config.homeAssistant;
  const health = ctx.health.feed('ha-statistics', ha !== null);
  if (!ha) {
    health.detail = 'off: HA_URL is not set';
    return null;
  }
  return new HaStatisticsService(
    {
      db: ctx.database.db,
      database: ctx.database,
      clock: ctx.clock,
      log: ctx.log.child({ feature: 'ha-statistics' }),
      health,
      shutdown: ctx.shutdown,
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
}

/**
 * The metered consumption and production and their cost, written to Home Assistant as long-term
 * statistics (docs/homeassistant.md) by the holder of the metering lock; nothing without HA_URL.
 */
export function createHaStatisticsFeature(deps: { haStatistics: HaStatisticsService | null }): Feature {
  const service = deps.haStatistics;
  if (!service) return { name: 'ha-statistics' };
  return {
    name: 'ha-statistics',
    start: () => service.start(),
    stop: () => service.stop(),
    // Home Assistant is never waited for: the first round runs in the background
    jobs: [service.job()],
  };
}
