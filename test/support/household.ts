import type { Services } from '../../src/context.js';
import { createBillFeature } from '../../src/power/bill/index.js';
import { createCo2Service } from '../../src/power/co2/index.js';
import { createCostsFeature } from '../../src/power/costs/index.js';
import {
  createChargesReadiness,
  createHouseholdCharges,
  createHouseholdFeature,
} from '../../src/power/household/index.js';
import type { HouseholdService } from '../../src/power/household/service.js';
import { createEloverblikClient, createMeteringFeature } from '../../src/power/metering/index.js';
import { createPriceService, createPricesFeature } from '../../src/power/prices/index.js';
import { createWindowService, createWindowsFeature } from '../../src/power/windows/index.js';
import { powerOnly } from './services.js';

/**
 * The power service as powerService composes it (without solar, CO₂'s feed, evcc and the
 * statistics), handing the test its household
 * charges; `chargesWaitMs` shortens how long a request waits for their first refresh.
 */
export function householdServices(
  got: (household: HouseholdService) => void,
  opts: { chargesWaitMs?: number } = {},
): Partial<Services> {
  return powerOnly((ctx) => {
    const prices = createPriceService(ctx, {
      charges: createChargesReadiness(ctx, { waitMs: opts.chargesWaitMs }),
    });
    const client = createEloverblikClient(ctx);
    const household = createHouseholdCharges(ctx, { prices, client });
    got(household);
    const costs = createCostsFeature(ctx, { prices, household });
    const windows = createWindowService(ctx, { prices, co2: createCo2Service(ctx) });
    return [
      createHouseholdFeature(ctx, { household }),
      createPricesFeature(ctx, { prices }),
      createMeteringFeature(ctx, {}, { client }),
      costs,
      createBillFeature(ctx, { prices }),
      createWindowsFeature({ windows, costs: costs.costs }),
    ];
  });
}
