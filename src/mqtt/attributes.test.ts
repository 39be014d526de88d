import { Big } from 'big.js';
import { describe, expect, it } from 'vitest';
import { danishDaySteps } from '../shared/danish-time.js';
import { HA_ATTRIBUTES_LIMIT, dayAttributes, type DayIntervals } from './attributes.js';

/** A day of quarter hours at `value(i)`. */
const day = (date: string, value: (i: number) => Big | null): DayIntervals => {
  const steps = danishDaySteps(date, 15);
  return {
    intervals: steps.map((t, i) => ({ start: t.getTime(), end: t.getTime() + 900_000, value: value(i) })),
    complete: true,
  };
};
// the longest values a price takes: negative, with all its decimals
const longest = (i: number) => new Big(-1.23456789).minus(i / 1e5);

describe("a day sensor's attributes", () => {
  it('fit Home Assistant’s 16 KB for a 100-quarter day and the 96 after it, at the longest values', () => {
    const json = dayAttributes(day('2026-10-25', longest), day('2026-10-26', longest), 4);
    expect(Buffer.byteLength(json)).toBeLessThan(HA_ATTRIBUTES_LIMIT - 512);
    const a = JSON.parse(json) as { raw_today: unknown[]; raw_tomorrow: unknown[] };
    expect([a.raw_today.length, a.raw_tomorrow.length]).toEqual([100, 96]);
    // and the 96 before one
    expect(
      Buffer.byteLength(dayAttributes(day('2026-10-24', longest), day('2026-10-25', longest), 4)),
    ).toBeLessThan(HA_ATTRIBUTES_LIMIT - 512);
  });

  it('tell the two 02:00 of the autumn change apart, in UTC to the minute', () => {
    const a = JSON.parse(
      dayAttributes(
        day('2026-10-25', () => new Big(1)),
        { intervals: [], complete: false },
        4,
      ),
    ) as {
      raw_today: { start: string; end: string }[];
      tomorrow_valid: boolean;
    };
    expect(a.raw_today[8]).toMatchObject({ start: '2026-10-25T00:00Z', end: '2026-10-25T00:15Z' }); // 02:00+02:00
    expect(a.raw_today[12]).toMatchObject({ start: '2026-10-25T01:00Z' }); // 02:00+01:00
    expect(a.raw_today.at(-1)).toMatchObject({ end: '2026-10-25T23:00Z' });
    expect(a.tomorrow_valid).toBe(false);
  });

  it('round values half away from zero, and leave a missing one null and out of min, max and mean', () => {
    const values = [new Big('0.12345'), new Big('-0.00005'), null, new Big('2')];
    const a = JSON.parse(
      dayAttributes(
        {
          intervals: values.map((v, i) => ({ start: i * 900_000, end: (i + 1) * 900_000, value: v })),
          complete: false,
        },
        { intervals: [], complete: false },
        4,
      ),
    ) as Record<string, unknown>;
    expect(a.today).toEqual([0.1235, -0.0001, null, 2]);
    expect([a.min, a.max, a.mean]).toEqual([-0.0001, 2, 0.7078]);
  });
});
