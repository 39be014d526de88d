import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { FeedHealth } from '../../shared/health.js';
import type { ChainService } from './service.js';

/** Every watched wallet scanned at minute 41 of every hour, on the holder of the btc poller lock. */
export function chainScanJob(
  service: ChainService,
  deps: { health: FeedHealth; log: Logger; firstRunDelayMs?: number },
): Job {
  return {
    name: 'chain-scan',
    schedule: { cron: '41 * * * *' },
    lock: 'btcPollers',
    health: deps.health,
    standby: 'standby: another process holds the poller lock',
    // the first round after gaining the lead waits, out of the way of a starting process
    first: { afterMs: deps.firstRunDelayMs ?? 30_000 },
    // the service's scans hear the stop
    round: async () => {
      await service.scanAll();
    },
    failed: (e) => deps.log.warn({ err: e }, 'chain-scan failed; the next round tries again'),
  };
}
