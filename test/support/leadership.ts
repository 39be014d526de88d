import type { Leadership } from '../../src/jobs/leadership.js';

/** A leadership the test hands over: `set` tells every watcher, as a lock won or lost does. */
export function switchable(initial: boolean): Leadership & { set(v: boolean): void } {
  let leader = initial;
  const listeners = new Set<(l: boolean) => void>();
  return {
    isLeader: () => leader,
    watch: (l) => {
      listeners.add(l);
      l(leader);
      return () => void listeners.delete(l);
    },
    set: (v) => {
      leader = v;
      for (const l of listeners) l(v);
    },
  };
}
