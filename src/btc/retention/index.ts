import type { AppContext, Feature } from '../../context.js';
import type { Leadership } from '../leadership.js';
import { DEFAULT_RETENTION_PATTERN, RetentionScheduler } from './scheduler.js';
import { DEFAULT_RETENTION_OPTIONS, RetentionService, type RetentionOptions } from './service.js';

/**
 * Bounded growth of the btc feed tables (quotes, 1-minute candles, idempotency keys): pruned
 * daily by the leader, in small batches. See docs/btc.md, Retention.
 */
export function createRetentionFeature(
  ctx: AppContext,
  deps: { leadership: Leadership },
  opts: Partial<RetentionOptions> & { pattern?: string; firstRunDelayMs?: number } = {},
): Feature & { retention: RetentionService } {
  const retention = new RetentionService(
    {
      db: ctx.database.db,
      kind: ctx.database.kind,
      clock: ctx.clock,
      retention: ctx.config.retention,
      shutdown: ctx.shutdown,
    },
    { ...DEFAULT_RETENTION_OPTIONS, ...opts },
  );
  const scheduler = new RetentionScheduler(retention, {
    leadership: deps.leadership,
    log: ctx.log.child({ feature: 'retention' }),
    pattern: opts.pattern ?? DEFAULT_RETENTION_PATTERN,
    firstRunDelayMs: opts.firstRunDelayMs ?? 60_000,
    shutdown: ctx.shutdown,
  });
  return {
    name: 'retention',
    retention,
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
  };
}
