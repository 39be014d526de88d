import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import { addDays, danishHour } from '../../shared/danish-time.js';
import type { ElectricityPriceService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

/** The day-ahead auction results reach Energi Data Service from about 13:00 Danish time. */
const PUBLISH_HOUR = 13;

/**
 * Keeps today and, from 13:00, tomorrow stored, on every process; the schedule only wakes it,
 * the clock decides. A round never throws: a failure shows in /health and the next round retries.
 * The household's charges have their own job (household/scheduler.ts).
 */
export function priceJob(
  service: Pick<ElectricityPriceService, 'today' | 'ensureDay'>,
  deps: { clock: Clock; log: Logger; health: FeedHealth },
): Job {
  const { clock, log, health } = deps;
  return {
    name: 'prices',
    schedule: { cron: '*/5 * * * *' },
    round: async () => {
      const now = clock.now();
      const today = service.today();
      const days = danishHour(now) >= PUBLISH_HOUR ? [today, addDays(today, 1)] : [today];
      const missing: string[] = [];
      try {
        for (const day of days) if (!(await service.ensureDay(day))) missing.push(day);
        health.detail = missing.length
          ? `waiting for ${missing.join(', ')}`
          : `complete through ${days.at(-1)}`;
      } catch (e) {
        health.detail = `retrying: ${(e as Error).message}`;
        logFailedRound(log, e, 'price feed round failed; retrying at the next round');
      }
    },
  };
}
