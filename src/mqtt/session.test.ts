import { describe, expect, it } from 'vitest';
import { reconnectDelay } from './session.js';

const opts = { initialBackoffMs: 1_000, maxBackoffMs: 60_000 };

describe('the reconnect delay', () => {
  it('doubles with each failure in a row up to the ceiling', () => {
    const top = (n: number) => reconnectDelay(n, opts, () => 1);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map(top)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('takes a random share of up to half off, so that clients spread out', () => {
    expect(reconnectDelay(3, opts, () => 0)).toBe(4_000);
    expect(reconnectDelay(3, opts, () => 0.5)).toBe(6_000);
    const seen = new Set(Array.from({ length: 50 }, () => reconnectDelay(6, opts, Math.random)));
    expect(seen.size).toBeGreaterThan(10);
    for (const d of seen) expect(d >= 30_000 && d <= 60_000).toBe(true);
  });
});
