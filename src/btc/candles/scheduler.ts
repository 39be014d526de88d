import type { Logger } from 'pino';
import type { Job } from '../../jobs/job.js';
import type { FeedHealth } from '../../shared/health.js';
import type { CandleKind, CandleService } from './service.js';
import { logFailedRound } from '../../providers/errors.js';

export type Cadence = Record<CandleKind, number>;

/** 1-minute candles every 15 s (seed); hourly every 5 minutes; daily hourly. */
export const DEFAULT_CADENCE: Cadence = { minute: 15_000, hour: 5 * 60_000, day: 60 * 60_000 };
/** Consecutive failures stretch a poller's wait, doubling, up to this. */
const MAX_BACKOFF_MS = 5 * 60_000;

/** One poller per interval, each a job of the process that holds the btc poller lock. */
export function candleJobs(
  candles: CandleService,
  deps: { cadence: Cadence; health: FeedHealth; log: Logger },
): Job[] {
  return (Object.keys(deps.cadence) as CandleKind[]).map((kind) => {
    const every = deps.cadence[kind];
    return {
      name: `candles-${kind}`,
      schedule: {
        everyMs: every,
        afterFailure: (failures) => Math.min(every * 2 ** failures, Math.max(every, MAX_BACKOFF_MS)),
      },
      lock: 'btcPollers',
      health: deps.health,
      standby: 'another process polls',
      round: async (signal) => {
        const written = await candles.pollAll(kind, signal);
        deps.log.debug({ kind, written }, 'candles polled');
      },
      failed: (e, { failures }) => logFailedRound(deps.log, e, 'candle poll failed', { kind, failures }),
    };
  });
}
