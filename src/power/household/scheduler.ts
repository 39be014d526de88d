import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { FeedHealth } from '../../shared/health.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import type { HouseholdService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

const QUARTER_MS = 15 * 60_000;

/** Refreshes the household's charges at start and once per Danish day; a failed round is retried 15 minutes later. */
export function householdJob(
  service: HouseholdService,
  deps: { clock: Clock; log: Logger; health: FeedHealth },
): Job {
  const { clock, log, health } = deps;
  let doneFor: string | null = null;
  return {
    name: 'household',
    schedule: { cron: '*/15 * * * *' },
    round: async () => {
      const today = danishDate(clock.now());
      if (doneFor === today) return;
      const readiness = service.readiness;
      try {
        const r = await service.refresh();
        doneFor = today;
        health.success(clock.now());
        log.info(r, 'household charges refreshed');
      } catch (e) {
        // While nothing is known, a refused request learns when the next round comes: the next quarter hour.
        const now = clock.now().getTime();
        readiness.failed(e, new Date((Math.floor(now / QUARTER_MS) + 1) * QUARTER_MS));
        health.failure(e, clock.now());
        logFailedRound(log, e, 'household charges: refresh failed; retrying in 15 minutes');
      }
      health.starting = false;
      health.detail = readiness.describe() ?? service.current().detail;
    },
  };
}
