import { Type } from 'typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from '../../test/fakes/all.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { plus } from '../../test/support/services.js';
import { btcService } from '../btc/index.js';
import type { Feature } from '../context.js';
import { RequestTimeout } from './timeout.js';

/**
 * Over real sockets: Fastify's own handler timeout behaves differently there (a request body,
 * once read, cleared it), and inject() does not show that. The slow providers never answer and
 * the provider timeout is a minute, so an answer that arrives came from REQUEST_TIMEOUT_MS.
 */
const TOKEN = 'timeout-test-token-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

let reason: unknown = null;
const probe: Feature = {
  name: 'probe',
  routes(app) {
    app.post('/api/probe/wait', { schema: { body: Type.Object({ n: Type.Integer() }) } }, async (req) => {
      await new Promise((_resolve, reject) =>
        req.deadline.signal.addEventListener('abort', () => {
          reason = req.deadline.signal.reason;
          reject(req.deadline.signal.reason as Error);
        }),
      );
    });
  },
};

let fakes: AllFakes;
let t: TestApp;
let base: string;
beforeAll(async () => {
  const now = new Date('2026-07-03T10:00:00Z');
  fakes = await startAllFakes({ now });
  t = await startTestApp({
    now: now.toISOString(),
    env: {
      ...fakes.env,
      QUOTE_FEED_ENABLED: 'true',
      API_TOKEN: TOKEN,
      REQUEST_TIMEOUT_MS: '1000',
      PROVIDER_TIMEOUT_MS: '60000',
    },
    services: { btc: (ctx) => plus(btcService(ctx), probe) },
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});
beforeEach(() => {
  for (const f of fakes.http) f.heal();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), json: (await res.json()) as never };
}

function expectTimedOut(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status).toBe(503);
  expect(res.type).toContain('application/problem+json');
  expect((res.json as { detail: string }).detail).toMatch(
    /took too long to answer \(REQUEST_TIMEOUT_MS is 1000\)/,
  );
}

async function until(check: () => boolean | Promise<boolean>) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

describe('timeouts: every route answers within REQUEST_TIMEOUT_MS, and its work is told to stop', () => {
  it('answers a GET waiting on a slow provider with 503 (GET /api/currencies/:date)', async () => {
    fakes.frankfurter.failAlways({ kind: 'timeout' });
    expectTimedOut(await call('GET', '/api/currencies/2026-06-10'));
  });

  it('answers a POST with a body waiting on a slow provider with 503 (POST /api/events)', async () => {
    const wallet = await call('POST', '/api/wallets', { name: 'timeout exchange', wallet_type: 'exchange' });
    expect(wallet.status).toBe(201);
    fakes.frankfurter.failAlways({ kind: 'timeout' });
    expectTimedOut(
      await call('POST', '/api/events', {
        type: 'bank_to_exchange',
        occurred_at: '2026-06-11',
        wallet: (wallet.json as { id: number }).id,
        amount: '100.00',
        currency: 'EUR',
      }),
    );
  });

  it('aborts request.deadline.signal of a request with a body, with the timeout as its reason', async () => {
    reason = null;
    expectTimedOut(await call('POST', '/api/probe/wait', { n: 1 }));
    expect(reason).toBeInstanceOf(RequestTimeout);
  });

  it('cancels the provider call of a metering sync and writes nothing', async () => {
    const eloverblik = fakes.eloverblik.server;
    eloverblik.failAlways({ kind: 'timeout' });
    expectTimedOut(await call('POST', '/metering/sync?date=2026-06-01'));
    expect(eloverblik.requests.length).toBeGreaterThan(0);
    // The fake never answers; only the service closing its side ends the connection.
    await until(() => eloverblik.held === 0);
    eloverblik.heal();
    const stored = await call('GET', '/api/consumption?date=2026-06-01');
    expect(stored.json).toEqual([]);
  });

  it('answers the price read-through and a fresh quote with 503 while their providers hang', async () => {
    fakes.eds.server.failAlways({ kind: 'timeout' });
    expectTimedOut(await call('GET', '/api/elprice?date=2026-06-20'));
    expectTimedOut(await call('GET', '/api/prices?date=2026-06-21&area=DK1'));
    fakes.strike.http.failAlways({ kind: 'timeout' });
    expectTimedOut(await call('POST', '/api/quote'));
  });
});
