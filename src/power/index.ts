import type { AppContext, Composition } from '../context.js';
import { createBillFeature } from './bill/index.js';
import { createCo2Feature, createCo2Service } from './co2/index.js';
import type { Co2Service } from './co2/service.js';
import { costServiceOf, createCostsFeature } from './costs/index.js';
import type { CostService } from './costs/service.js';
import { createEvccFeature } from './evcc/index.js';
import {
  createHaStatisticsFeature,
  haStatisticsServiceOf,
  type HaStatisticsOptions,
} from './ha-statistics/index.js';
import type { HaStatisticsService } from './ha-statistics/service.js';
import { createChargesReadiness, createHouseholdCharges, createHouseholdFeature } from './household/index.js';
import type { HouseholdService } from './household/service.js';
import { createEloverblikClient, createMeteringFeature } from './metering/index.js';
import { createPriceProvider, createElectricityPriceService, createPricesFeature } from './prices/index.js';
import type { ElectricityPriceService } from './prices/service.js';
import { createSolarFeature } from './solar/index.js';
import { createWindowService, createWindowsFeature } from './windows/index.js';
import type { WindowService } from './windows/service.js';

/** The power services by name. */
export interface PowerServices {
  prices: ElectricityPriceService;
  household: HouseholdService;
  costs: CostService;
  co2: Co2Service;
  windows: WindowService;
  /** Null without HA_URL. */
  haStatistics: HaStatisticsService | null;
}

export interface PowerOptions {
  /** How long a request waits for the household's charges' first refresh. */
  chargesWaitMs?: number;
  haStatistics?: Partial<HaStatisticsOptions>;
}

/**
 * The power service: prices and the home page, metering, solar, the household's charges, what
 * electricity costs, CO₂, the cheapest and greenest windows, evcc's tariffs, the statistics in
 * Home Assistant. The metering sync, the CO₂ feed and the statistics are jobs of the metering
 * lock, which the runtime holds.
 */
export function powerService(ctx: AppContext, opts: PowerOptions = {}): Composition<PowerServices> {
  // One Energi Data Service adapter for the prices and the grid companies' price lists.
  const provider = createPriceProvider(ctx);
  // One price service: the costs read the hours it stores and fetches, and share its caches' version
  // and whether the household's charges in them are known yet.
  const charges = createChargesReadiness(ctx, { waitMs: opts.chargesWaitMs });
  const prices = createElectricityPriceService(ctx, { provider, charges });
  // One Eloverblik client: the token endpoint allows two calls a minute, so its token is shared.
  const client = createEloverblikClient(ctx);
  const household = createHouseholdCharges(ctx, { provider, prices, client });
  const co2 = createCo2Service(ctx);
  const costs = costServiceOf(ctx, { prices, household });
  const windows = createWindowService(ctx, { prices, co2 });
  const haStatistics = haStatisticsServiceOf(ctx, { prices }, opts.haStatistics);
  return {
    features: [
      createHouseholdFeature(ctx, { household }),
      createPricesFeature(ctx, { prices }),
      createMeteringFeature(ctx, {}, { client }),
      createSolarFeature(ctx),
      createCostsFeature({ costs }),
      createBillFeature(ctx, { prices }),
      createCo2Feature(ctx, { co2 }),
      createWindowsFeature({ windows, costs }),
      createEvccFeature(ctx, { windows, co2, household }),
      createHaStatisticsFeature({ haStatistics }),
    ],
    services: { prices, household, costs, co2, windows, haStatistics },
  };
}
