import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { RetentionService } from './service.js';

/** Once a day at 03:17 Danish time, and once a minute after this process becomes the leader. */
export const DEFAULT_RETENTION_PATTERN = '17 3 * * *';

/** Retention on the holder of the btc poller lock; a failed run is tried again the next day. */
export function retentionJob(
  retention: RetentionService,
  deps: {
    log: Logger;
    pattern: string;
    /** The first run waits this long after gaining the lead, out of the way of a starting process. */
    firstRunDelayMs: number;
  },
): Job {
  return {
    name: 'retention',
    schedule: { cron: deps.pattern },
    lock: 'btcPollers',
    first: { afterMs: deps.firstRunDelayMs },
    round: async (signal) => {
      const started = performance.now();
      const r = await retention.run(signal);
      deps.log.info({ ...r, ms: Math.round(performance.now() - started) }, 'retention: done');
    },
    failed: (e) => deps.log.warn({ err: e }, 'retention failed; trying again tomorrow'),
  };
}
