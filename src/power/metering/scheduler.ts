import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { FeedHealth } from '../../shared/health.js';
import { EloverblikItemError } from '../../providers/eloverblik.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate } from '../../shared/danish-time.js';
import type { MeteringService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

/** Days one run fetches at most; a longer gap fills in over the following runs. */
export const DAYS_PER_RUN = 31;
/** "NoMeteringPointDataAviliable": the meter has nothing for the day, which is then passed. */
const NO_DATA = 30007;

export interface SyncSchedulerDeps {
  clock: Clock;
  log: Logger;
  health: FeedHealth;
  shutdown: AbortSignal;
  /** False without a metering token: nothing to sync, said in /health. */
  tokenAvailable: () => Promise<boolean>;
}

/**
 * Keeps the metering data current without a cron line: every hour the leader fetches each past
 * day from the one after the last synced up to the day before yesterday (Eloverblik has a day
 * one to three days later), at most 31 a run, one after the other.
 */
export class MeteringSyncScheduler {
  constructor(
    private readonly service: MeteringService,
    private readonly deps: SyncSchedulerDeps,
  ) {}

  /** The hourly sync, at start and at minute 23, on the holder of the metering lock. */
  job(): Job {
    return {
      name: 'metering-sync',
      schedule: { cron: '23 * * * *' },
      lock: 'meteringSync',
      round: () => this.round(),
    };
  }

  /** The days a run would fetch now, in order. */
  async due(): Promise<string[]> {
    const last = await this.service.lastSyncedDay();
    const through = addDays(danishDate(this.deps.clock.now()), -2);
    const first = last === null ? addDays(through, -(DAYS_PER_RUN - 1)) : addDays(last, 1);
    const days: string[] = [];
    for (let d = first; d <= through && days.length < DAYS_PER_RUN; d = addDays(d, 1)) days.push(d);
    return days;
  }

  private async round() {
    const { health, log, shutdown } = this.deps;
    try {
      if (!(await this.deps.tokenAvailable())) {
        health.detail = 'off: no metering token (METERING_TOKEN or .token)';
        return;
      }
      for (const day of await this.due()) {
        if (shutdown.aborted) return;
        try {
          await this.service.sync(day);
        } catch (e) {
          if (!(e instanceof EloverblikItemError && e.code === NO_DATA)) throw e;
        }
        await this.service.markSynced(day);
        health.detail = `last synced day ${day}`;
      }
      health.success(this.deps.clock.now());
      const last = await this.service.lastSyncedDay();
      health.detail = last === null ? 'nothing synced yet' : `last synced day ${last}`;
    } catch (e) {
      if (shutdown.aborted) return;
      health.failure(e, this.deps.clock.now());
      logFailedRound(log, e, 'metering sync failed; the next hourly run goes on from the last synced day');
    }
  }
}
