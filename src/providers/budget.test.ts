import { describe, expect, it } from 'vitest';
import { HealthRegistry } from '../shared/health.js';
import { fixedClock } from '../shared/clock.js';
import { BUDGET_LIMITS, BudgetExhausted, CallBudget, createProviderBudgets } from './budget.js';
import { problemOf } from '../http/problem.js';

/** A clock whose monotonic scale moves only when the test says so. */
function manualClock() {
  let ms = 0;
  return { now: () => new Date(0), monotonicMs: () => ms, move: (by: number) => void (ms += by) };
}

describe('CallBudget', () => {
  it('lets at most `calls` start in any window of `perMs`, then frees the oldest slot first', () => {
    const clock = manualClock();
    const b = new CallBudget('p', { calls: 3, perMs: 1_000, source: 'test' }, clock);
    expect([b.tryTake(), b.tryTake()]).toEqual([0, 0]);
    clock.move(400);
    expect(b.tryTake()).toBe(0);
    expect(b.tryTake()).toBe(600); // the first call leaves the window at 1000
    clock.move(600);
    // Both calls made at 0 have left the window at 1000: two slots.
    expect([b.tryTake(), b.tryTake()]).toEqual([0, 0]);
    expect(b.tryTake()).toBe(400); // the call made at 400 leaves at 1400
  });

  it('refuses at once with the wait as Retry-After, counting the refusal in the feed', async () => {
    const clock = manualClock();
    const health = new HealthRegistry(fixedClock('2026-07-03T10:00:00Z'));
    const budgets = createProviderBudgets(clock, health, {
      energidataservice: { calls: 1, perMs: 10_000, source: 'test' },
    });
    await budgets.energidataservice.take('refuse');
    clock.move(2_500);
    const e = await budgets.energidataservice.take('refuse').then(
      () => null,
      (x: unknown) => x as BudgetExhausted,
    );
    expect(e).toBeInstanceOf(BudgetExhausted);
    expect(problemOf(e)).toMatchObject({ status: 503, headers: { 'retry-after': '8' } });
    expect(health.feed('prices').budgetRefusals).toBe(1);
    expect(budgets.energidataservice.refused).toBe(1);
  });

  it("keeps its reserve from a client's read, and gives it to the household's work", async () => {
    const clock = manualClock();
    const b = new CallBudget('p', { calls: 5, perMs: 10_000, reserve: 2, source: 'test' }, clock);
    for (let i = 0; i < 3; i++) {
      await b.take('refuse');
      clock.move(1_000);
    }
    const e = await b.take('refuse').then(
      () => null,
      (x: unknown) => x as BudgetExhausted,
    );
    expect(e?.message).toMatch(/budget for reads spent \(3 of 5 calls per 10 s; 2 kept for the household/);
    // the read's share frees when its first call leaves the window, at 10 s
    expect(problemOf(e)!.headers).toEqual({ 'retry-after': '7' });
    await b.take('wait');
    await b.take('wait');
    expect(b.tryTake()).toBe(7_000);
  });

  it('makes a background caller wait for the next slot', async () => {
    const b = new CallBudget('p', { calls: 2, perMs: 300, source: 'test' }, fixedClock('2026-01-01'));
    const started = performance.now();
    for (let i = 0; i < 5; i++) await b.take('wait');
    // Five calls at two per 300 ms: the fifth starts no sooner than 600 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(595);
  });

  it('stops waiting when the caller aborts', async () => {
    const b = new CallBudget('p', { calls: 1, perMs: 60_000, source: 'test' }, fixedClock('2026-01-01'));
    await b.take('wait');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(b.take('wait', controller.signal)).rejects.toThrow(/cancelled/);
  });

  it('keeps everyone away while the provider asked to be left alone (429 Retry-After)', () => {
    const clock = manualClock();
    const b = new CallBudget('p', { calls: 100, perMs: 1_000, source: 'test' }, clock);
    b.pause(300_000);
    expect(b.tryTake()).toBe(300_000);
    clock.move(300_000);
    expect(b.tryTake()).toBe(0);
  });

  it("leaves its headroom to the household's own requests: background work waits, a request takes it at once", async () => {
    const clock = manualClock();
    const b = new CallBudget('p', { calls: 6, perMs: 300, headroom: 2, source: 'test' }, clock);
    for (let i = 0; i < 4; i++) await b.take('wait');
    // a background caller now waits for the window; the headroom stays free
    const background = b.take('wait');
    let waited = true;
    void background.then(() => (waited = false));
    await b.take('owner');
    await b.take('owner');
    // every slot is taken now: a request waits too (never refused for our own load)
    const request = b.take('owner');
    await new Promise((r) => setTimeout(r, 20));
    expect(waited).toBe(true);
    clock.move(300);
    await Promise.all([background, request]);
  });

  it("refuses a household's request at once only while the provider itself asked us to wait", async () => {
    const clock = manualClock();
    const b = new CallBudget('p', { calls: 6, perMs: 10_000, headroom: 2, source: 'test' }, clock);
    b.pause(30_000);
    const e = await b.take('owner').then(
      () => null,
      (x: unknown) => x as BudgetExhausted,
    );
    expect(e?.message).toMatch(/the provider asked us to wait \(Retry-After\); try again in 30 s/);
    expect(problemOf(e)).toMatchObject({ status: 503, headers: { 'retry-after': '30' } });
    // a pause about to end (a timer's hair) is waited out
    clock.move(29_500);
    const late = b.take('owner');
    clock.move(500);
    await late;
  });

  it('refuses a budget whose reserve and headroom leave no slot', () => {
    expect(
      () =>
        new CallBudget('p', { calls: 4, perMs: 1_000, reserve: 2, headroom: 2, source: 't' }, manualClock()),
    ).toThrow(/reserve and headroom are whole numbers, together below its calls/);
  });

  it('stays inside each published limit', () => {
    // Energi Data Service blocks an address after 40 requests in 10 s; Eloverblik allows 120 a minute.
    expect(
      BUDGET_LIMITS.energidataservice.calls / (BUDGET_LIMITS.energidataservice.perMs / 10_000),
    ).toBeLessThan(40);
    expect(BUDGET_LIMITS.eloverblik.calls / (BUDGET_LIMITS.eloverblik.perMs / 60_000)).toBeLessThan(120);
    expect(
      BUDGET_LIMITS.eloverblikToken.calls / (BUDGET_LIMITS.eloverblikToken.perMs / 60_000),
    ).toBeLessThanOrEqual(2);
    expect(BUDGET_LIMITS.strike.calls / (BUDGET_LIMITS.strike.perMs / 60_000)).toBeLessThan(250);
    expect(BUDGET_LIMITS.krakenRest.calls / (BUDGET_LIMITS.krakenRest.perMs / 1_000)).toBeLessThanOrEqual(1);
  });
});
