import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { Leadership } from '../../jobs/leadership.js';
import type { Rates } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

export interface RatesSchedule {
  /** Provider attempts at start before going on without it. */
  startAttempts: number;
  startIntervalMs: number;
  /** Croner pattern of the refresh. */
  refreshPattern: string;
}

export const DEFAULT_RATES_SCHEDULE: RatesSchedule = {
  startAttempts: 5,
  startIntervalMs: 5_000,
  refreshPattern: '7 * * * *',
};

/** The first fetch at start, on every process: a few attempts, then on without the provider. */
export function ratesStartJob(rates: Rates, deps: { log: Logger; schedule: RatesSchedule }): Job {
  const { startAttempts: attempts, startIntervalMs } = deps.schedule;
  let attempt = 0;
  return {
    name: 'rates-start',
    schedule: { everyMs: startIntervalMs },
    round: async (signal) => {
      attempt++;
      try {
        await rates.refresh(0);
        return 'done';
      } catch (e) {
        logFailedRound(deps.log, e, 'rates provider unreachable at start', { attempt, of: attempts });
      }
      if (attempt < attempts) return;
      if (!signal.aborted) deps.log.warn('going on without the rates provider; serving stored rates');
      return 'done';
    },
  };
}

/**
 * The hourly refresh on every process: the leader asks the provider; the others pick up what it
 * stored. A round never throws, so a failing provider leaves the stored rates in place.
 */
export function ratesRefreshJob(
  rates: Rates,
  deps: { leadership: Leadership; log: Logger; schedule: RatesSchedule },
): Job {
  return {
    name: 'rates',
    schedule: { cron: deps.schedule.refreshPattern },
    first: 'on-schedule',
    round: async () => {
      try {
        if (deps.leadership.isLeader()) await rates.refresh();
        else await rates.seed();
      } catch (e) {
        logFailedRound(deps.log, e, 'rates refresh failed; keeping the stored rates');
      }
    },
  };
}
