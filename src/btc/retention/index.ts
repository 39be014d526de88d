import type { AppContext, Feature } from '../../context.js';
import { DEFAULT_RETENTION_PATTERN, retentionJob } from './scheduler.js';
import { DEFAULT_RETENTION_OPTIONS, RetentionService, type RetentionOptions } from './service.js';

export interface RetentionFeatureOptions extends Partial<RetentionOptions> {
  pattern?: string;
  firstRunDelayMs?: number;
}

export function retentionServiceOf(ctx: AppContext, opts: Partial<RetentionOptions> = {}): RetentionService {
  return new RetentionService(
    {
      db: ctx.database.db,
      kind: ctx.database.kind,
      clock: ctx.clock,
      retention: ctx.config.retention,
      shutdown: ctx.shutdown,
    },
    { ...DEFAULT_RETENTION_OPTIONS, ...opts },
  );
}

/**
 * Bounded growth of the btc feed tables (quotes, 1-minute candles, idempotency keys): pruned
 * daily by the leader, in small batches. See docs/btc.md, Retention.
 */
export function createRetentionFeature(
  ctx: AppContext,
  deps: { retention: RetentionService },
  opts: Pick<RetentionFeatureOptions, 'pattern' | 'firstRunDelayMs'> = {},
): Feature {
  const job = retentionJob(deps.retention, {
    log: ctx.log.child({ feature: 'retention' }),
    pattern: opts.pattern ?? DEFAULT_RETENTION_PATTERN,
    firstRunDelayMs: opts.firstRunDelayMs ?? 60_000,
  });
  return { name: 'retention', jobs: [job] };
}
