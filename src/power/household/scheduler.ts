import { Cron } from 'croner';
import type { FeedHealth } from '../../shared/health.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import type { Logger } from 'pino';
import type { HouseholdService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

const QUARTER_MS = 15 * 60_000;

/** Refreshes the household's charges at start and once per Danish day; a failed round is retried 15 minutes later. */
export class HouseholdScheduler {
  private job: Cron | null = null;
  private running: Promise<void> | null = null;
  private doneFor: string | null = null;

  constructor(
    private readonly service: HouseholdService,
    private readonly deps: { clock: Clock; log: Logger; health: FeedHealth },
  ) {}

  start() {
    this.job = new Cron('*/15 * * * *', { timezone: 'Europe/Copenhagen', protect: true }, () => this.tick());
    void this.tick();
  }

  async stop() {
    this.job?.stop();
    await this.running;
  }

  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round() {
    const today = danishDate(this.deps.clock.now());
    if (this.doneFor === today) return;
    const { health } = this.deps;
    const readiness = this.service.readiness;
    try {
      const r = await this.service.refresh();
      this.doneFor = today;
      health.success(this.deps.clock.now());
      this.deps.log.info(r, 'household charges refreshed');
    } catch (e) {
      // While nothing is known, a refused request learns when the next round comes: the next quarter hour.
      const now = this.deps.clock.now().getTime();
      readiness.failed(e, new Date((Math.floor(now / QUARTER_MS) + 1) * QUARTER_MS));
      health.failure(e, this.deps.clock.now());
      logFailedRound(this.deps.log, e, 'household charges: refresh failed; retrying in 15 minutes');
    }
    health.starting = false;
    health.detail = readiness.describe() ?? this.service.current().detail;
  }
}
