import type { Big } from 'big.js';

export const QUARTER_MS = 900_000;

/** A quarter hour (its start, ms since the epoch) and the value a window is ranked on. */
export interface Slot {
  start: number;
  value: Big;
}

/** The first slot of the run found and the sum of its values. */
export interface Run {
  first: number;
  sum: Big;
}

/**
 * The `n` consecutive quarter hours with the lowest sum of values, in one pass with a sliding
 * sum: a run never bridges a missing quarter (a slot must start 15 minutes after the one before
 * it), and of equal sums the earliest wins. `slots` are in time order. Null when no `n`
 * consecutive slots exist.
 */
export function lowestRun(slots: readonly Slot[], n: number): Run | null {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`a run is 1 or more slots, not ${n}`);
  let best: Run | null = null;
  let run = 0;
  let sum: Big | null = null;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    if (i === 0 || slot.start - slots[i - 1]!.start !== QUARTER_MS) {
      run = 0;
      sum = null;
    }
    run++;
    sum = sum === null ? slot.value : sum.plus(slot.value);
    if (run > n) sum = sum.minus(slots[i - n]!.value);
    if (run >= n && (best === null || sum.lt(best.sum))) best = { first: i - n + 1, sum };
  }
  return best;
}

/**
 * Periods of 15 or 60 minutes as quarter hours: an hour (a price before 2025-10-01) becomes four
 * quarters at its value, each a copy of it with its own start.
 */
export function asQuarters<T extends { time_dk: Date; minutes: number }>(periods: readonly T[]): T[] {
  const out: T[] = [];
  for (const p of periods)
    for (let i = 0; i < p.minutes / 15; i++)
      out.push(i === 0 ? p : { ...p, time_dk: new Date(p.time_dk.getTime() + i * QUARTER_MS) });
  return out;
}

/** The instant rounded up to the next quarter hour (itself when on one). */
export const ceilQuarter = (t: number) => Math.ceil(t / QUARTER_MS) * QUARTER_MS;
/** The instant rounded down to the quarter hour it lies in. */
export const floorQuarter = (t: number) => Math.floor(t / QUARTER_MS) * QUARTER_MS;
