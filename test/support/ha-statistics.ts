import { powerService } from '../../src/power/index.js';
import type { HaStatisticsOptions } from '../../src/power/ha-statistics/index.js';
import type { HaStatisticsService } from '../../src/power/ha-statistics/service.js';
import type { Services } from '../../src/services.js';
import { powerOnly } from './services.js';

/**
 * The power service as a process runs it, with the statistics writer's options shortened; the
 * writer (with HA_URL) is handed to `got`.
 */
export function haStatisticsServices(
  got: (writer: HaStatisticsService) => void,
  opts: { options?: Partial<HaStatisticsOptions> } = {},
): Partial<Services> {
  return powerOnly((ctx) => {
    const made = powerService(ctx, { haStatistics: opts.options });
    if (made.services.haStatistics) got(made.services.haStatistics);
    return made;
  });
}
