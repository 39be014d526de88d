import type { AppContext, Feature } from '../context.js';
import { AdvisoryLeadership } from './advisory-leadership.js';

/**
 * Whether this process runs the btc pollers. With several processes on one PostgreSQL server
 * only the holder of an advisory lock polls; on the embedded database, which has one process,
 * this process always leads.
 */
export interface Leadership {
  isLeader(): boolean;
  /** Calls back at once with the current state and on every change; returns the unsubscribe function. */
  watch(listener: (leader: boolean) => void): () => void;
}

export const ALWAYS_LEADER: Leadership = {
  isLeader: () => true,
  watch: (listener) => {
    listener(true);
    return () => {};
  },
};

/**
 * The btc service's leadership (or, with another `key`, that of another task done by one process
 * only, named in the logs by `name`) and the feature that holds it: mount it before the pollers
 * that watch it.
 */
export function createLeadership(
  ctx: AppContext,
  opts: { intervalMs?: number; key?: number; name?: string } = {},
): { leadership: Leadership; feature: Feature } {
  if (!ctx.config.database || ctx.database.kind !== 'postgres')
    return { leadership: ALWAYS_LEADER, feature: { name: 'leadership' } };
  const lock = new AdvisoryLeadership(ctx.config.database, {
    log: opts.name ? ctx.log.child({ leadership: opts.name }) : ctx.log,
    intervalMs: opts.intervalMs,
    key: opts.key,
  });
  return {
    leadership: lock,
    feature: { name: 'leadership', start: () => lock.start(), stop: () => lock.stop() },
  };
}
