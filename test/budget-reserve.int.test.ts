import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_LIMITS } from '../src/providers/budget.js';
import { addDays } from '../src/shared/danish-time.js';
import { fixedClock } from '../src/shared/clock.js';
import { startFakeFrankfurter } from './fakes/frankfurter.js';
import type { FakeHttpServer } from './fakes/http.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * Anonymous readers of days whose rates are not stored spend the rates provider's budget; the
 * household's write that needs rates of its own still gets its call at once, from the reserve.
 */
const TOKEN = 'test-token-reserve-0123';
const LIMIT = BUDGET_LIMITS.frankfurter;

describe('the rates budget under anonymous readers', () => {
  let fake: FakeHttpServer;
  let t: TestApp;
  // The budget's scale stands still, so its window cannot slide under the test however slow the
  // machine: a write that waited for a slot would wait until its request timed out (503).
  const clock = { ...fixedClock('2026-07-03T10:00:00Z'), monotonicMs: () => 0 };

  beforeAll(async () => {
    fake = await startFakeFrankfurter({ latest: '2026-07-03' });
    t = await startTestApp({
      clock,
      env: {
        API_TOKEN: TOKEN,
        RATES_FEED_URL: fake.url,
        PROVIDER_TIMEOUT_MS: '30000',
        REQUEST_TIMEOUT_MS: '5000',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('two anonymous loops get 503 with Retry-After before the reserve; an authenticated event is written at once', async () => {
    const statuses: number[] = [];
    const refused: Awaited<ReturnType<TestApp['call']>>[] = [];
    const loop = async (from: string) => {
      for (let i = 0; i < LIMIT.calls; i++) {
        const res = await t.call('GET', `/api/currencies/${addDays(from, i)}`);
        statuses.push(res.statusCode);
        if (res.statusCode === 503) refused.push(res);
      }
    };
    await Promise.all([loop('2020-03-02'), loop('2021-03-01')]);

    const auth = { authorization: `Bearer ${TOKEN}` };
    const wallets = (await t.call('GET', '/api/wallets', undefined, auth)).json<
      { id: number; wallet_type: string }[]
    >();
    const exchange = wallets.find((w) => w.wallet_type === 'exchange')!.id;
    const event = await t.call(
      'POST',
      '/api/events',
      {
        type: 'bank_to_exchange',
        occurred_at: '2019-05-06',
        wallet: exchange,
        amount: '100',
        currency: 'DKK',
      },
      auth,
    );
    expect(event.statusCode, event.body).toBe(201);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT.calls - LIMIT.reserve);
    expect(statuses.filter((s) => s === 503)).toHaveLength(LIMIT.calls + LIMIT.reserve);
    expect(fake.requests).toHaveLength(LIMIT.calls - LIMIT.reserve + 1);
    for (const res of refused) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toMatch(/budget for reads spent/);
    }
  });
});
