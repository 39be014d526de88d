import { Big } from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, danishDaySteps } from '../../shared/danish-time.js';
import { QUARTER_MS, asQuarters, ceilQuarter, floorQuarter, lowestRun, type Slot } from './search.js';

/** Every candidate start tried in turn: the obvious O(slots × n) answer the sliding sum must equal. */
function bruteForce(slots: Slot[], n: number, from: number, to: number) {
  let best: { start: number; sum: Big } | null = null;
  for (let i = 0; i + n <= slots.length; i++) {
    if (slots[i]!.start < from || slots[i + n - 1]!.start + QUARTER_MS > to) continue;
    let sum = new Big(0);
    let consecutive = true;
    for (let k = 0; k < n; k++) {
      if (k > 0 && slots[i + k]!.start - slots[i + k - 1]!.start !== QUARTER_MS) consecutive = false;
      sum = sum.plus(slots[i + k]!.value);
    }
    if (consecutive && (best === null || sum.lt(best.sum))) best = { start: slots[i]!.start, sum };
  }
  return best;
}

/** The search as the service runs it: the slots of [from, to), then the lowest run. */
function search(slots: Slot[], n: number, from: number, to: number) {
  const inRange = slots.filter((s) => s.start >= from && s.start < to);
  const run = lowestRun(inRange, n);
  return run && { start: inRange[run.first]!.start, sum: run.sum };
}

/**
 * Two consecutive Danish days, so that windows cross midnight: a winter day (96 quarters), both
 * clock changes (92 and 100), in the hourly era before 2025-10-01 as well, and the switch from
 * hourly to quarter-hour prices.
 */
const FIRST_DAYS = [
  '2026-01-15',
  '2026-03-28',
  '2026-03-29',
  '2026-10-24',
  '2026-10-25',
  '2024-10-27',
  '2025-03-30',
  '2025-09-30',
];

/** A decimal price of up to 6 decimals, negative now and then, as the provider's prices are. */
const price = fc.integer({ min: -500_000, max: 4_000_000 }).map((v) => new Big(v).div(1_000_000));

const priceDays = fc
  .constantFrom(...FIRST_DAYS)
  .chain((first) => {
    const days = [first, addDays(first, 1)];
    const periods = days.flatMap((d) =>
      danishDaySteps(d, d < '2025-10-01' ? 60 : 15).map((t) => ({
        time_dk: t,
        minutes: d < '2025-10-01' ? 60 : 15,
      })),
    );
    return fc.record({
      periods: fc.constant(periods),
      values: fc.array(price, { minLength: periods.length, maxLength: periods.length }),
      // about one period in twelve missing, as a day not yet (fully) published leaves it
      missing: fc.array(fc.integer({ min: 0, max: 11 }), {
        minLength: periods.length,
        maxLength: periods.length,
      }),
      n: fc.integer({ min: 1, max: 48 }),
      fromAt: fc.integer({ min: 0, max: 100 }),
      toAt: fc.integer({ min: 0, max: 100 }),
    });
  })
  .map(({ periods, values, missing, n, fromAt, toAt }) => {
    const kept = periods.map((p, i) => ({ ...p, value: values[i]! })).filter((_, i) => missing[i] !== 0);
    const slots = asQuarters(kept).map((q) => ({ start: q.time_dk.getTime(), value: q.value }));
    const first = periods[0]!.time_dk.getTime();
    const last = periods.at(-1)!.time_dk.getTime() + periods.at(-1)!.minutes * 60_000;
    const at = (pct: number) => floorQuarter(first + ((last - first) * pct) / 100);
    const [from, to] = [at(fromAt), at(toAt)].sort((a, b) => a - b);
    return { slots, n, from: from!, to: to! };
  });

describe('the lowest run of consecutive quarter hours', () => {
  it('equals a brute-force search over random price days, DST days and hourly days included', () => {
    fc.assert(
      fc.property(priceDays, ({ slots, n, from, to }) => {
        const expected = bruteForce(slots, n, from, to);
        const found = search(slots, n, from, to);
        if (expected === null) {
          expect(found).toBeNull();
          return;
        }
        expect(found?.start).toBe(expected.start);
        expect(found!.sum.eq(expected.sum)).toBe(true);
        expect(found!.sum.div(n).eq(expected.sum.div(n))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('finds a window that crosses midnight', () => {
    const steps = [...danishDaySteps('2026-01-15', 15), ...danishDaySteps('2026-01-16', 15)];
    // cheap from 23:30 to 00:30 Danish time, dear elsewhere
    const cheapFrom = Date.parse('2026-01-15T22:30:00Z');
    const slots = steps.map((t) => ({
      start: t.getTime(),
      value: new Big(t.getTime() >= cheapFrom && t.getTime() < cheapFrom + 4 * QUARTER_MS ? '0.1' : '2'),
    }));
    const run = lowestRun(slots, 4)!;
    expect(new Date(slots[run.first]!.start).toISOString()).toBe('2026-01-15T22:30:00.000Z');
    expect(run.sum.toString()).toBe('0.4');
  });

  it('walks the 92 quarters of the spring day and the 100 of the autumn day, and never bridges a gap', () => {
    for (const [day, count] of [
      ['2026-03-29', 92],
      ['2026-10-25', 100],
    ] as const) {
      const slots = danishDaySteps(day, 15).map((t, i) => ({ start: t.getTime(), value: new Big(i) }));
      expect(slots).toHaveLength(count);
      expect(lowestRun(slots, count)?.sum.toString()).toBe(String((count * (count - 1)) / 2));
      expect(lowestRun(slots, count + 1)).toBeNull();
      // a missing quarter splits the day: the two parts are 49 and 50 quarters long
      const split = slots.filter((_, i) => i !== 49);
      expect(lowestRun(split, 51)).toBeNull();
      expect(lowestRun(split, 49)?.first).toBe(0);
    }
  });

  it('gives the earliest of equal windows', () => {
    const slots = [3, 1, 1, 3, 1, 1, 3].map((v, i) => ({ start: i * QUARTER_MS, value: new Big(v) }));
    expect(lowestRun(slots, 2)).toEqual({ first: 1, sum: new Big(2) });
  });

  it('makes an hourly price four quarters of its value', () => {
    const hour = { time_dk: new Date('2025-09-30T10:00:00Z'), minutes: 60, value: '0.7' };
    const quarter = { time_dk: new Date('2025-10-01T10:00:00Z'), minutes: 15, value: '0.2' };
    expect(asQuarters([hour, quarter]).map((q) => [q.time_dk.toISOString(), q.value])).toEqual([
      ['2025-09-30T10:00:00.000Z', '0.7'],
      ['2025-09-30T10:15:00.000Z', '0.7'],
      ['2025-09-30T10:30:00.000Z', '0.7'],
      ['2025-09-30T10:45:00.000Z', '0.7'],
      ['2025-10-01T10:00:00.000Z', '0.2'],
    ]);
  });

  it('rounds instants to quarter hours: up for a start, down for an end', () => {
    const t = Date.parse('2026-01-15T17:20:00Z');
    expect(new Date(ceilQuarter(t)).toISOString()).toBe('2026-01-15T17:30:00.000Z');
    expect(new Date(floorQuarter(t)).toISOString()).toBe('2026-01-15T17:15:00.000Z');
    expect(ceilQuarter(Date.parse('2026-01-15T17:15:00Z'))).toBe(Date.parse('2026-01-15T17:15:00Z'));
  });
});
