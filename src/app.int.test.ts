import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { btcOnly } from '../test/support/services.js';
import type { AppContext, Feature } from './context.js';
import { problems } from './http/problem.js';
import { conflict } from './shared/refusal.js';

const TOKEN = 'test-token-0123456789';

/** A small feature standing in for the real ones, to test the mechanics every route shares. */
const probe = (ctx: AppContext): Feature => {
  const feed = ctx.health.feed('probe-feed');
  return {
    name: 'probe',
    routes(app) {
      app.get(
        '/api/probe',
        {
          schema: {
            querystring: Type.Object({ date: Type.String({ format: 'date' }) }),
            response: { 200: Type.Object({ date: Type.String() }), ...problems(400) },
          },
        },
        async (req) => ({ date: req.query.date }),
      );
      app.get(
        '/api/probe/item/:id',
        {
          schema: {
            params: Type.Object({ id: Type.String() }),
            response: { 200: Type.Object({ id: Type.String() }) },
          },
        },
        async (req) => ({ id: req.params.id }),
      );
      app.get(
        '/api/probe/private',
        { config: { private: true }, schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
        async () => ({ ok: true }),
      );
      app.post(
        '/api/probe',
        {
          schema: {
            body: Type.Object({ sats: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
            response: { 200: Type.Object({ sats: Type.Integer() }), ...problems(400, 401, 409) },
          },
        },
        async (req) => {
          if (req.body.sats === 13) throw conflict('sats: 13 is taken');
          feed.failure(new Error('upstream said no'));
          return { sats: req.body.sats };
        },
      );
    },
  };
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKEN: TOKEN }, services: btcOnly((ctx) => [probe(ctx)]) });
});
afterAll(() => t.close());

describe('the app shell', () => {
  it('answers /health with the database and feed state', async () => {
    const res = await t.call('GET', '/health', undefined, { authorization: `Bearer ${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ok',
      services: ['btc', 'power'],
      database: { ok: true },
      feeds: { 'probe-feed': { ok: true, enabled: true } },
    });
  });

  it('serves the OpenAPI document and the reference page', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json<{
      openapi: string;
      paths: Record<string, unknown>;
    }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/probe', '/health']));
    const page = await t.call('GET', '/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('answers unknown routes with problem+json 404', async () => {
    const res = await t.call('GET', '/api/nothing?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'no route for GET /api/nothing',
    });
  });

  it('names the offending field of bad input in a 400', async () => {
    const res = await t.call('GET', '/api/probe?date=2025-02-30');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe('querystring.date: must be a calendar date YYYY-MM-DD');
    const body = await t.call(
      'POST',
      '/api/probe',
      { sats: 1, extra: true },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(body.json().detail).toBe('body.extra: unknown field; the body takes sats');
    const missing = await t.call('POST', '/api/probe', {}, { authorization: `Bearer ${TOKEN}` });
    expect(missing.json().detail).toMatch(/^body\.sats: must have required property/);
    const broken = await t.call('POST', '/api/probe', '{"sats": ', { authorization: `Bearer ${TOKEN}` });
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-type']).toContain('application/problem+json');
  });

  it('answers malformed and overlong paths with problem+json', async () => {
    const long = await t.call('GET', `/api/probe/item/${'x'.repeat(500)}`);
    expect(long.statusCode).toBe(414);
    expect(long.headers['content-type']).toContain('application/problem+json');
    expect(long.json().detail).toMatch(/^path: a path parameter is longer/);
    const bad = await t.call('GET', '/api/probe/item/%zz');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect((await t.call('GET', '/api/probe/item/%F0%9F%98%80')).json()).toEqual({ id: '😀' });
  });

  it('requires the bearer token on writes and private reads only', async () => {
    expect((await t.call('GET', '/api/probe?date=2026-01-01')).statusCode).toBe(200);
    const anonymous = await t.call('POST', '/api/probe', { sats: 5 });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    expect(
      (await t.call('POST', '/api/probe', { sats: 5 }, { authorization: 'Bearer wrong-token-0123456789' }))
        .statusCode,
    ).toBe(401);
    expect((await t.call('GET', '/api/probe/private')).statusCode).toBe(401);
    expect(
      (await t.call('GET', '/api/probe/private', undefined, { authorization: `Bearer ${TOKEN}` })).statusCode,
    ).toBe(200);
    const ok = await t.call('POST', '/api/probe', { sats: 5 }, { authorization: `Bearer ${TOKEN}` });
    expect(ok.json()).toEqual({ sats: 5 });
  });

  it('maps thrown problems and reports a failed feed as degraded', async () => {
    const res = await t.call('POST', '/api/probe', { sats: 13 }, { authorization: `Bearer ${TOKEN}` });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe('sats: 13 is taken');
    const health = (await t.call('GET', '/health', undefined, { authorization: `Bearer ${TOKEN}` })).json();
    expect(health.status).toBe('degraded');
    expect(health.feeds['probe-feed'].last_error).toBe('upstream said no');
  });

  it('exposes Prometheus metrics, each request under its route, the API reference and unmatched paths too', async () => {
    await t.call('GET', '/no/such/path');
    await t.call('GET', '/docs/json');
    await t.call('POST', '/api/probe', { sats: 13 }, { authorization: `Bearer ${TOKEN}` });
    const res = await t.call('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}` });
    expect(res.body).toContain('satwatt_http_request_duration_seconds_bucket');
    for (const labels of [
      'method="GET",route="unmatched",status="404"',
      'method="GET",route="/docs/json",status="200"',
      'method="POST",route="/api/probe",status="409"',
    ])
      expect(res.body).toMatch(
        new RegExp(`satwatt_http_request_duration_seconds_count\\{${labels}\\} [1-9]`),
      );
    expect(res.body).toContain('satwatt_feed_ok{feed="probe-feed"} 0');
  });
});
