import { createLeadership } from '../btc/leadership.js';
import type { AppContext, Feature } from '../context.js';
import { LOCK_KEYS } from '../db/lock-keys.js';
import { createBillFeature } from './bill/index.js';
import { createCo2Feature, createCo2Service } from './co2/index.js';
import { createCostsFeature } from './costs/index.js';
import { createEvccFeature } from './evcc/index.js';
import { createHaStatisticsFeature } from './ha-statistics/index.js';
import { createChargesReadiness, createHouseholdCharges, createHouseholdFeature } from './household/index.js';
import { createEloverblikClient, createMeteringFeature } from './metering/index.js';
import { createPriceService, createPricesFeature } from './prices/index.js';
import { createSolarFeature } from './solar/index.js';
import { createWindowService, createWindowsFeature } from './windows/index.js';

/** The advisory lock whose holder runs the daily metering sync and the CO₂ feed. */
const METERING_SYNC_LOCK_KEY = LOCK_KEYS.meteringSync;

/**
 * The power service: prices and the home page, metering, solar, the household's charges, what
 * electricity costs, CO₂, the cheapest and greenest windows, evcc's tariffs.
 */
export function powerService(ctx: AppContext): Feature[] {
  // One price service: the costs read the hours it stores and fetches, and share its caches' version
  // and whether the household's charges in them are known yet.
  const prices = createPriceService(ctx, { charges: createChargesReadiness(ctx) });
  // One Eloverblik client: the token endpoint allows two calls a minute, so its token is shared.
  const client = createEloverblikClient(ctx);
  const household = createHouseholdCharges(ctx, { prices, client });
  // The daily metering sync and the CO₂ feed run on one process, the holder of this advisory lock,
  // which also writes the statistics to Home Assistant after each sync.
  const { leadership, feature: leadershipFeature } = createLeadership(ctx, { key: METERING_SYNC_LOCK_KEY });
  const co2 = createCo2Service(ctx);
  const costs = createCostsFeature(ctx, { prices, household });
  const windows = createWindowService(ctx, { prices, co2 });
  return [
    { ...leadershipFeature, name: 'metering-leadership' },
    createHouseholdFeature(ctx, { household }),
    createPricesFeature(ctx, { prices }),
    createMeteringFeature(ctx, {}, { client, leadership }),
    createSolarFeature(ctx),
    costs,
    createBillFeature(ctx, { prices }),
    createCo2Feature(ctx, { co2, leadership }),
    createWindowsFeature({ windows, costs: costs.costs }),
    createEvccFeature(ctx, { windows, co2, household }),
    createHaStatisticsFeature(ctx, { prices, leadership }),
  ];
}
