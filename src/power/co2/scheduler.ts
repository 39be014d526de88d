import { Cron } from 'croner';
import type { Logger } from 'pino';
import { logFailedRound } from '../../providers/errors.js';
import { ProviderError } from '../../providers/http.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import type { Co2Service } from './service.js';

export interface Co2SchedulerDeps {
  clock: Clock;
  log: Logger;
  /** The `co2` feed; the provider calls report their own success and failure in it. */
  health: FeedHealth;
  shutdown: AbortSignal;
  /** Only the leader fetches; the others skip their rounds. */
  isLeader: () => boolean;
}

/**
 * Every 15 minutes (2 minutes after each quarter hour, when the provider has issued its
 * prognosis) the leader stores the realized values since the last one and the prognosis as
 * issued now. A failed round shows in /health and the next one retries.
 */
export class Co2Scheduler {
  private job: Cron | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly service: Co2Service,
    private readonly deps: Co2SchedulerDeps,
  ) {}

  start() {
    this.job = new Cron('2-59/15 * * * *', { timezone: 'Europe/Copenhagen', protect: true }, () =>
      this.tick(),
    );
    void this.tick();
  }

  async stop() {
    this.job?.stop();
    await this.running;
  }

  /** One round; never throws. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round() {
    const { health, log, shutdown } = this.deps;
    if (!this.deps.isLeader()) {
      health.detail = 'another process fetches the CO₂ values';
      return;
    }
    try {
      const realized = await this.service.refreshRealized();
      const forecast = await this.service.refreshForecast();
      const at = (d: Date | null) => d?.toISOString() ?? 'nothing yet';
      health.detail = `realized through ${at(realized.through)}, forecast through ${at(forecast.through)}`;
    } catch (e) {
      if (shutdown.aborted) return;
      // A provider's failure is already in the feed (its adapter reports to it); anything else is not.
      if (!(e instanceof ProviderError)) health.failure(e, this.deps.clock.now());
      health.detail = `retrying at the next quarter hour: ${(e as Error).message}`;
      logFailedRound(log, e, 'CO₂ feed round failed; retrying at the next quarter hour');
    }
  }
}
