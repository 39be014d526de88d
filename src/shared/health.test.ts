import { describe, expect, it } from 'vitest';
import { fixedClock } from '../shared/clock.js';
import { FeedHealth } from './health.js';

describe('FeedHealth', () => {
  it('is not ok from a rejected answer until an answer is taken whole, and says how many and why', () => {
    const clock = fixedClock('2026-07-03T10:00:00Z');
    const feed = new FeedHealth('quote', true, clock);
    feed.success();
    expect(feed.ok).toBe(true);
    feed.reject('quote INCLUSIVE for 55 EUR: fee 60.00 on 55 is outside 0..25 % of it');
    expect(feed.ok).toBe(false);
    expect(feed.toJSON()).toMatchObject({
      ok: false,
      rejected: 1,
      last_rejected: expect.stringMatching(/fee 60\.00/),
      last_rejected_at: '2026-07-03T10:00:00.000Z',
    });
    clock.advance(10_000);
    feed.success();
    expect(feed.ok).toBe(true);
    expect(feed.rejected).toBe(1);
  });
});
