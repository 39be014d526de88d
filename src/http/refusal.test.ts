import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { Refusal, type RefusalKind } from '../shared/refusal.js';
import { errorHandler } from './problem.js';

/** A service's refusal becomes problem+json at the edge, with the status of its kind. */
describe('a refusal thrown below a route', () => {
  it.each([
    ['invalid', 400],
    ['not-found', 404],
    ['conflict', 409],
    ['unprocessable', 422],
    ['too-many', 429],
    ['unavailable', 503],
  ] as [RefusalKind, number][])('%s answers %i with its detail', async (kind, status) => {
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    app.get('/x', () => {
      throw new Refusal(kind, `refused as ${kind}`, kind === 'unavailable' ? 7 : undefined);
    });
    const res = await app.inject('/x');
    await app.close();
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status, detail: `refused as ${kind}` });
    expect(res.headers['retry-after']).toBe(kind === 'unavailable' ? '7' : undefined);
  });
});
