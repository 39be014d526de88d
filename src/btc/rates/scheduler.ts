import { Cron } from 'croner';
import type { Logger } from 'pino';
import { sleep } from '../../shared/sleep.js';
import type { Leadership } from '../leadership.js';
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

/**
 * The first fetch at start (a few attempts, then on without the provider) and the hourly
 * refresh: the leader asks the provider; the other processes pick up what it stored.
 */
export class RatesScheduler {
  private job: Cron | null = null;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly rates: Rates,
    private readonly deps: {
      leadership: Leadership;
      schedule: RatesSchedule;
      log: Logger;
      shutdown: AbortSignal;
    },
  ) {}

  start(): void {
    this.starting = this.firstFetch();
    this.job = new Cron(this.deps.schedule.refreshPattern, { protect: true }, () => this.tick());
  }

  async stop(): Promise<void> {
    this.job?.stop();
    await this.starting;
  }

  /** One refresh; never throws, so a failing provider leaves the stored rates in place. */
  async tick(): Promise<void> {
    try {
      if (this.deps.leadership.isLeader()) await this.rates.refresh();
      else await this.rates.seed();
    } catch (e) {
      logFailedRound(this.deps.log, e, 'rates refresh failed; keeping the stored rates');
    }
  }

  private async firstFetch(): Promise<void> {
    const { startAttempts: attempts, startIntervalMs } = this.deps.schedule;
    const { log, shutdown } = this.deps;
    for (let i = 1; i <= attempts && !shutdown.aborted; i++) {
      try {
        await this.rates.refresh(0);
        return;
      } catch (e) {
        logFailedRound(log, e, 'rates provider unreachable at start', { attempt: i, of: attempts });
      }
      if (i < attempts) await sleep(startIntervalMs, shutdown);
    }
    if (!shutdown.aborted) log.warn('going on without the rates provider; serving stored rates');
  }
}
