import { performance } from 'node:perf_hooks';

export interface Clock {
  /** The wall-clock instant: what is stored and shown. */
  now(): Date;
  /** Milliseconds on a monotonic scale, for spacing and throttling that must not jump with the wall clock. */
  monotonicMs(): number;
}

export const systemClock: Clock = { now: () => new Date(), monotonicMs: () => performance.now() };

/**
 * A clock whose wall time stands still until moved; for tests. Its monotonic scale is real
 * elapsed time, so throttles and spacing still behave as they do in production.
 */
export function fixedClock(
  at: Date | string,
): Clock & { set(to: Date | string): void; advance(ms: number): void; skip(ms: number): void } {
  let t = new Date(at).getTime();
  let skipped = 0;
  return {
    now: () => new Date(t),
    monotonicMs: () => performance.now() + skipped,
    set: (to) => void (t = new Date(to).getTime()),
    advance: (ms) => void (t += ms),
    /**
     * Moves the monotonic scale on by `ms` at once, as a test's sleep that takes no time must,
     * so that budgets and pauses see the time pass; the wall time stands still as always.
     */
    skip: (ms) => void (skipped += ms),
  };
}
