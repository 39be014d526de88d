import { Cron } from 'croner';
import type { AppContext } from '../../context.js';
import type { FeedHealth } from '../../shared/health.js';
import { addDays, danishHour } from '../../shared/danish-time.js';
import type { PriceService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

/** The day-ahead auction results reach Energi Data Service from about 13:00 Danish time. */
const PUBLISH_HOUR = 13;

/**
 * Keeps today and, from 13:00, tomorrow stored; the cron only wakes it, ctx.clock decides.
 * The household's charges have their own schedule (household/scheduler.ts).
 */
export class PriceScheduler {
  private job: Cron | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly service: PriceService,
    private readonly health: FeedHealth,
  ) {}

  start() {
    this.job = new Cron('*/5 * * * *', { timezone: 'Europe/Copenhagen', protect: true }, () => this.tick());
    void this.tick();
  }

  async stop() {
    this.job?.stop();
    await this.running;
  }

  /** One round; never throws, a failure shows in /health and the next round retries. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round() {
    const now = this.ctx.clock.now();
    const today = this.service.today();
    const days = danishHour(now) >= PUBLISH_HOUR ? [today, addDays(today, 1)] : [today];
    const missing: string[] = [];
    try {
      for (const day of days) if (!(await this.service.ensureDay(day))) missing.push(day);
      this.health.detail = missing.length
        ? `waiting for ${missing.join(', ')}`
        : `complete through ${days.at(-1)}`;
    } catch (e) {
      this.health.detail = `retrying: ${(e as Error).message}`;
      logFailedRound(this.ctx.log, e, 'price feed round failed; retrying at the next round');
    }
  }
}
