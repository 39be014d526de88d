import { describe, expect, it } from 'vitest';
import { remember } from './service.js';

describe('the bounded maps of the price service (answers, and the last fetch of each day)', () => {
  it('never holds more than its cap; the least recently set entry goes first', () => {
    const m = new Map<string, number>();
    for (let i = 0; i < 5_000; i++) remember(m, `day-${i}`, i, 1_000);
    expect(m.size).toBe(1_000);
    expect(m.has('day-3999')).toBe(false);
    expect(m.has('day-4000')).toBe(true);
    remember(m, 'day-4000', -1, 1_000); // set again: now the most recent
    remember(m, 'new', 0, 1_000);
    expect(m.has('day-4000')).toBe(true);
    expect(m.has('day-4001')).toBe(false);
    expect(m.size).toBe(1_000);
  });
});
