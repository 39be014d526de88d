import { describe, expect, it } from 'vitest';
import { levelOf, thresholds } from './levels.js';

describe('price levels of a day', () => {
  it('calls the cheapest quarter of the hours low and the dearest quarter high', () => {
    const values = [8, 1, 7, 2, 6, 3, 5, 4];
    const t = thresholds(values);
    expect(t).toEqual({ low: 3, high: 7 });
    expect(values.map((v) => levelOf(v, t))).toEqual([
      'high',
      'low',
      'high',
      'low',
      'mid',
      'low',
      'mid',
      'mid',
    ]);
  });

  it('ranks only the known values, and leaves an unknown one without a level', () => {
    const t = thresholds([null, 10, 20, null, 30, 40]);
    expect(t).toEqual({ low: 20, high: 40 });
    expect(levelOf(null, t)).toBeNull();
    expect(levelOf(-5, t)).toBe('low');
  });

  it('calls no hour cheap or dear when all cost the same, or nothing is known', () => {
    expect(thresholds([5, 5, 5])).toBeNull();
    expect(levelOf(5, null)).toBe('mid');
    expect(thresholds([null, null])).toBeNull();
    expect(thresholds([])).toBeNull();
  });

  it('does not reorder the values it is given', () => {
    const values = [3, 1, 2, 4];
    thresholds(values);
    expect(values).toEqual([3, 1, 2, 4]);
  });
});
