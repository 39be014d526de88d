import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { niceStep, niceTicks } from './ticks.js';

const NICE = /^[125]$/;
const mantissa = (step: number) => String(step / 10 ** Math.floor(Math.log10(step) + 1e-9)).slice(0, 1);

describe('axis ticks', () => {
  it('rounds a raw step up to 1, 2 or 5 times a power of ten', () => {
    expect([0.7, 1, 1.1, 2, 2.5, 4.9, 5, 5.1, 18.75, 37.5, 101].map(niceStep)).toEqual([
      1, 1, 2, 2, 5, 5, 5, 10, 20, 50, 200,
    ]);
    expect(niceStep(0.013)).toBeCloseTo(0.02, 12);
  });

  it('puts ticks on round values where the old chart had 19, 37, 56, 75', () => {
    // the old axis split 0..75 into quarters
    expect(niceTicks(0, 75).values).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(-12.3, 187.4).values).toEqual([-50, 0, 50, 100, 150, 200]);
    expect(niceTicks(0, 1)).toEqual({ step: 0.5, decimals: 1, values: [0, 0.5, 1] });
  });

  it('writes decimal ticks exactly: 0.3, not 0.30000000000000004', () => {
    expect(niceTicks(0.1, 0.5).values).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(0.1, 0.5).decimals).toBe(1);
  });

  it('gives an empty or inverted range an axis of its own', () => {
    expect(niceTicks(0, 0).values).toEqual([0, 0.5, 1]);
    expect(niceTicks(5, 5).values.length).toBeGreaterThanOrEqual(2);
  });

  it('for any range: equal nice steps that bound it, about the asked number of intervals', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.double({ min: 0.01, max: 10000, noNaN: true }),
        fc.integer({ min: 2, max: 8 }),
        (lo, span, count) => {
          const hi = lo + span;
          const { step, values } = niceTicks(lo, hi, count);
          expect(mantissa(step)).toMatch(NICE);
          expect(values[0]).toBeLessThanOrEqual(lo + step * 1e-9);
          expect(values.at(-1)).toBeGreaterThanOrEqual(hi - step * 1e-9);
          for (let i = 1; i < values.length; i++) expect(values[i]! - values[i - 1]!).toBeCloseTo(step, 9);
          // a nice step is at least the raw one and at most 2.5 times it
          expect(values.length - 1).toBeLessThanOrEqual(count + 2);
          expect(values.length - 1).toBeGreaterThanOrEqual(Math.floor(count / 2.5));
        },
      ),
    );
  });
});
