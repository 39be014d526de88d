import {
  BUDGET_LIMITS,
  CallBudget,
  type BudgetLimit,
  type ProviderName,
} from '../../src/providers/budget.js';
import type { ProviderDeps } from '../../src/providers/http.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';

/** A budget that a test does not notice unless it narrows it. */
export const ROOMY: BudgetLimit = { calls: 10_000, perMs: 1_000, source: 'test' };

/** Every provider's budget roomy, for tests whose subject is not the budgets. */
export function roomyBudgets(): Record<ProviderName, BudgetLimit> {
  return Object.fromEntries(Object.keys(BUDGET_LIMITS).map((k) => [k, ROOMY])) as Record<
    ProviderName,
    BudgetLimit
  >;
}

/** What an adapter built directly in a test is given: a budget of its own, roomy by default, and 16 MiB bodies. */
export function testDeps(
  provider: string,
  o: { limit?: BudgetLimit; clock?: Clock; maxBytes?: number } = {},
): ProviderDeps {
  const clock = o.clock ?? systemClock;
  return {
    clock,
    budget: new CallBudget(provider, o.limit ?? ROOMY, clock),
    maxBytes: o.maxBytes ?? 16 * 1024 * 1024,
  };
}
