import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { btcOnly } from '../../test/support/services.js';
import type { Feature } from '../context.js';

let aborted = false;
const probe = (): Feature => ({
  name: 'probe',
  routes(app) {
    app.post('/api/probe', { schema: { body: Type.Object({ n: Type.Integer() }) } }, async (req) => ({
      n: req.body.n,
    }));
    app.get('/api/slow', async (req) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      aborted = req.deadline.signal.aborted;
      return { late: true };
    });
  },
});

let t: TestApp;
let open: TestApp;
beforeAll(async () => {
  const env = { WRITE_RATE_LIMIT: '3', BODY_LIMIT_BYTES: '1024', REQUEST_TIMEOUT_MS: '1000' };
  t = await startTestApp({ env, services: btcOnly(() => [probe()]) });
  open = await startTestApp({
    env: { CORS_ORIGINS: 'https://app.example' },
    services: btcOnly(() => [probe()]),
  });
});
afterAll(async () => {
  await t.close();
  await open.close();
});

describe('limits', () => {
  it('limits writes per client, not reads, with a problem and Retry-After', async () => {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await t.call('POST', '/api/probe', { n: i })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const limited = await t.call('POST', '/api/probe', { n: 9 });
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(limited.json().detail).toMatch(/at most 3 a minute/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) expect((await t.call('GET', '/health')).statusCode).toBe(200);
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await open.call('POST', '/api/probe', JSON.stringify({ n: 1, pad: 'x'.repeat(2_000_000) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, title: 'Content Too Large' });
  });

  it('answers 503 when a request takes longer than the timeout, and cancels its work', async () => {
    const res = await t.call('GET', '/api/slow');
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/took too long/);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(aborted).toBe(true);
  });

  it('keeps CORS closed unless origins are configured', async () => {
    const closed = await t.call('GET', '/health', undefined, { origin: 'https://app.example' });
    expect(closed.headers['access-control-allow-origin']).toBeUndefined();
    const allowed = await open.call('GET', '/health', undefined, { origin: 'https://app.example' });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    const other = await open.call('GET', '/health', undefined, { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a CORS preflight that carries the query string of the request it asks about', async () => {
    // every route refuses a query parameter it does not take; @fastify/cors answers the preflight first
    const preflight = await open.app.inject({
      method: 'OPTIONS',
      url: '/api/probe?date=2026-07-01&anything=1',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('sends security headers on HTML pages, only nosniff on JSON, and still serves the API reference', async () => {
    const json = await t.call('GET', '/health');
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    expect(json.headers['content-security-policy']).toBeUndefined();
    const res = await t.call('GET', '/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});
