import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { BudgetExhausted } from '../providers/budget.js';
import { ProviderError } from '../providers/errors.js';
import { Refusal, type RefusalKind } from '../shared/refusal.js';
import { errorHandler } from './problem.js';

async function answerTo(error: Error) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  app.get('/x', () => {
    throw error;
  });
  const res = await app.inject('/x');
  await app.close();
  return res;
}

/** A service's refusal becomes problem+json at the edge, with the status of its kind. */
describe('a refusal thrown below a route', () => {
  it.each([
    ['invalid', 400],
    ['not-found', 404],
    ['conflict', 409],
    ['unprocessable', 422],
    ['too-many', 429],
    ['unavailable', 503],
    ['provider-unavailable', 503],
    ['provider-failed', 502],
  ] as [RefusalKind, number][])('%s answers %i with its detail', async (kind, status) => {
    const retries = kind === 'unavailable' || kind === 'provider-unavailable';
    const res = await answerTo(new Refusal(kind, `refused as ${kind}`, retries ? 7 : undefined));
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status, detail: `refused as ${kind}` });
    expect(res.headers['retry-after']).toBe(retries ? '7' : undefined);
  });

  it('carries its extension members in the body, beside the four of every problem', async () => {
    const res = await answerTo(
      new Refusal('unprocessable', 'nothing was imported', undefined, { problems: [{ line: 2 }] }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'nothing was imported',
      problems: [{ line: 2 }],
    });
  });
});

/** A provider's failure that reaches the edge is the refusal it makes: unavailable, or failed. */
describe('a provider failure thrown below a route', () => {
  it.each([
    ['gave no answer', undefined, 503],
    ['asked to wait (429)', 429, 503],
    ['was down (503)', 503, 503],
    ['answered an error (500)', 500, 502],
    ['answered something malformed', 200, 502],
  ] as [string, number | undefined, number][])(
    'one that %s answers %i',
    async (_, providerStatus, status) => {
      const e = new ProviderError('thing', 'it went wrong', {
        status: providerStatus,
        transient: false,
        retryAfterMs: 2_500,
      });
      const res = await answerTo(e);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({
        status,
        detail: 'the thing provider is unavailable (it went wrong)',
      });
      // when to ask again matters only while the provider is unavailable
      expect(res.headers['retry-after']).toBe(status === 503 ? '3' : undefined);
    },
  );

  it('a spent call budget answers 503 with its Retry-After', async () => {
    const res = await answerTo(
      new BudgetExhausted('thing', 8_000, { calls: 5, perMs: 60_000, source: 'a test' }),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('8');
    expect(res.json()).toMatchObject({
      detail: expect.stringContaining('the thing provider is unavailable'),
    });
  });

  it('an answer too large to read is a failed provider, not an unavailable one', async () => {
    const e = new ProviderError('thing', 'answer larger than 10 bytes', {
      badAnswer: true,
      transient: false,
    });
    const res = await answerTo(e);
    expect(res.statusCode).toBe(502);
  });
});
