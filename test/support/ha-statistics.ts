import { ALWAYS_LEADER, createLeadership } from '../../src/btc/leadership.js';
import type { Services } from '../../src/context.js';
import { LOCK_KEYS } from '../../src/db/lock-keys.js';
import { createBillFeature } from '../../src/power/bill/index.js';
import { createCostsFeature } from '../../src/power/costs/index.js';
import { createHaStatisticsFeature, type HaStatisticsOptions } from '../../src/power/ha-statistics/index.js';
import type { HaStatisticsService } from '../../src/power/ha-statistics/service.js';
import { createHouseholdCharges, createHouseholdFeature } from '../../src/power/household/index.js';
import { createEloverblikClient, createMeteringFeature } from '../../src/power/metering/index.js';
import { createPriceService, createPricesFeature } from '../../src/power/prices/index.js';
import { powerOnly } from './services.js';

/**
 * The power service as powerService composes it (without solar), with the statistics writer's
 * options shortened; `advisory` uses the metering lock as on a PostgreSQL server (else this
 * process leads). The writer is handed to `got`.
 */
export function haStatisticsServices(
  got: (writer: HaStatisticsService) => void,
  opts: { options?: Partial<HaStatisticsOptions>; advisory?: boolean } = {},
): Partial<Services> {
  return powerOnly((ctx) => {
    const prices = createPriceService(ctx);
    const client = createEloverblikClient(ctx);
    const household = createHouseholdCharges(ctx, { prices, client });
    const lead = opts.advisory
      ? createLeadership(ctx, { key: LOCK_KEYS.meteringSync, intervalMs: 200 })
      : { leadership: ALWAYS_LEADER, feature: { name: 'leadership' } };
    const writer = createHaStatisticsFeature(ctx, { prices, leadership: lead.leadership }, opts.options);
    if (writer.haStatistics) got(writer.haStatistics);
    return [
      lead.feature,
      createHouseholdFeature(ctx, { household }),
      createPricesFeature(ctx, { prices }),
      createMeteringFeature(ctx, {}, { client, leadership: lead.leadership }),
      createCostsFeature(ctx, { prices, household }),
      createBillFeature(ctx, { prices }),
      writer,
    ];
  });
}
