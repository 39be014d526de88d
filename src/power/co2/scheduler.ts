import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import { logFailedRound } from '../../providers/errors.js';
import { ProviderError } from '../../providers/http.js';
import type { Clock } from '../../shared/clock.js';
import type { FeedHealth } from '../../shared/health.js';
import type { Co2Service } from './service.js';

export interface Co2JobDeps {
  clock: Clock;
  log: Logger;
  /** The `co2` feed; the provider calls report their own success and failure in it. */
  health: FeedHealth;
  shutdown: AbortSignal;
}

/**
 * Every 15 minutes (2 minutes after each quarter hour, when the provider has issued its
 * prognosis) the holder of the metering lock stores the realized values since the last one and
 * the prognosis as issued now. A failed round shows in /health and the next one retries.
 */
export function co2Job(service: Co2Service, deps: Co2JobDeps): Job {
  const { health, log, shutdown } = deps;
  return {
    name: 'co2',
    schedule: { cron: '2-59/15 * * * *' },
    lock: 'meteringSync',
    health,
    standby: 'another process fetches the CO₂ values',
    round: async () => {
      try {
        const realized = await service.refreshRealized();
        const forecast = await service.refreshForecast();
        const at = (d: Date | null) => d?.toISOString() ?? 'nothing yet';
        health.detail = `realized through ${at(realized.through)}, forecast through ${at(forecast.through)}`;
      } catch (e) {
        if (shutdown.aborted) return;
        // A provider's failure is already in the feed (its adapter reports to it); anything else is not.
        if (!(e instanceof ProviderError)) health.failure(e, deps.clock.now());
        health.detail = `retrying at the next quarter hour: ${(e as Error).message}`;
        logFailedRound(log, e, 'CO₂ feed round failed; retrying at the next quarter hour');
      }
    },
  };
}
