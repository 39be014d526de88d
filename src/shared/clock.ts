export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved; for tests. */
export function fixedClock(
  at: Date | string,
): Clock & { set(to: Date | string): void; advance(ms: number): void } {
  let t = new Date(at).getTime();
  return {
    now: () => new Date(t),
    set: (to) => void (t = new Date(to).getTime()),
    advance: (ms) => void (t += ms),
  };
}
