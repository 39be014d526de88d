import type { ChainService } from './service.js';

/** A background job as the runtime runs it: a name, a schedule, who runs it, and one round. */
export interface ChainJob {
  name: string;
  /** Cron pattern, in Danish time. */
  schedule: string;
  /** Only the process holding the btc poller lock runs it. */
  leaderOnly: true;
  /** The first round after becoming the leader waits this long, out of the way of a starting process. */
  firstRunDelayMs: number;
  /** One round; it stops at shutdown (the service's scans hear it) and never throws. */
  run(): Promise<void>;
}

/** Every watched wallet scanned at minute 41 of every hour, on the leader. */
export function chainScanJob(service: ChainService, firstRunDelayMs = 30_000): ChainJob {
  return {
    name: 'chain-scan',
    schedule: '41 * * * *',
    leaderOnly: true,
    firstRunDelayMs,
    run: async () => {
      await service.scanAll();
    },
  };
}
