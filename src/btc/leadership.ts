import type { AppContext } from '../context.js';

/**
 * Whether this process runs the btc pollers. With several processes on one PostgreSQL server
 * only the leader polls; the market feature provides the advisory-lock implementation. Until one
 * is provided (and always on the embedded database, which has one process) this process leads.
 */
export interface Leadership {
  isLeader(): boolean;
  /** Calls back at once with the current state and on every change; returns the unsubscribe function. */
  watch(listener: (leader: boolean) => void): () => void;
}

const ALWAYS: Leadership = {
  isLeader: () => true,
  watch: (listener) => {
    listener(true);
    return () => {};
  },
};

const registry = new WeakMap<AppContext, Leadership>();

export function provideLeadership(ctx: AppContext, leadership: Leadership): void {
  registry.set(ctx, leadership);
}

export function leadershipOf(ctx: AppContext): Leadership {
  return registry.get(ctx) ?? ALWAYS;
}
