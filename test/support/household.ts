import { powerService } from '../../src/power/index.js';
import type { HouseholdService } from '../../src/power/household/service.js';
import type { Services } from '../../src/services.js';
import { powerOnly } from './services.js';

/**
 * The power service as a process runs it, handing the test its household charges;
 * `chargesWaitMs` shortens how long a request waits for their first refresh.
 */
export function householdServices(
  got: (household: HouseholdService) => void,
  opts: { chargesWaitMs?: number } = {},
): Partial<Services> {
  return powerOnly((ctx) => {
    const made = powerService(ctx, { chargesWaitMs: opts.chargesWaitMs });
    got(made.services.household);
    return made;
  });
}
