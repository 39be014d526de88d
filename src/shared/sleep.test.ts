import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('ends when the signal aborts, and at once when it was aborted before', async () => {
    const controller = new AbortController();
    const t0 = performance.now();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await waiting;
    await sleep(60_000, controller.signal);
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
