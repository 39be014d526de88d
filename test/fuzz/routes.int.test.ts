import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from '../fakes/all.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { roomyBudgets } from '../support/providers.js';
import {
  contractViolation,
  databaseDigest,
  requestsFor,
  routesOf,
  send,
  type FuzzRequest,
  type Route,
} from './driver.js';

/**
 * Every route, driven by requests generated from its own schema, with every provider faked and
 * healthy. A fixed seed keeps CI repeatable; FUZZ_RUNS and FUZZ_SEED widen or vary the search.
 * The feeds stay off so that nothing but the requests writes to the database.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const TOKEN = 'fuzz-token-0123456789abcdef';
/** A stream's valid request would stream until the client goes; its refusals come before it starts. */
const STREAMS = /\/stream\//;
/**
 * Jobs run a command's real work, a backfill of decades for a valid request; their valid requests
 * run end to end in test/remote.e2e.test.ts, their invalid ones here.
 */
const JOBS = /^\/api\/jobs\//;

/** The documented 503s while the feeds are off: no price, quote or CO₂ value has arrived yet. */
const DOCUMENTED_503: [string, RegExp][] = [
  ['GET /api/price/latest', /no spot price has arrived yet/],
  ['GET /api/evcc/co2', /no CO₂ value from now on is stored yet/],
  ['GET /api/greenest', /no CO₂ value from now on is stored yet/],
  ['GET /api/quote/latest', /no quote has been obtained yet/],
  ['POST /api/quote', /the quote feed is off/],
];

function documented(req: FuzzRequest, status: number, detail: string): boolean {
  const key = `${req.route.method} ${req.route.path}`;
  return status === 503 && DOCUMENTED_503.some(([k, why]) => k === key && why.test(detail));
}

let t: TestApp;
let fakes: AllFakes;
let routes: Route[];
beforeAll(async () => {
  const now = new Date('2026-07-03T10:00:00Z');
  fakes = await startAllFakes({ now });
  t = await startTestApp({
    now: now.toISOString(),
    env: { ...fakes.env, API_TOKEN: TOKEN, WRITE_RATE_LIMIT: '1000000' },
    // Requests, not the providers' call budgets, are under test (test/budgets.int.test.ts has those).
    budgetLimits: roomyBudgets(),
  });
  routes = routesOf(t.app.swagger() as never);
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

async function check(req: FuzzRequest): Promise<number> {
  const res = await send(t, req, TOKEN);
  if (res.statusCode >= 500 && documented(req, res.statusCode, res.json<{ detail: string }>().detail))
    return res.statusCode;
  const why = contractViolation(req, res);
  if (why) throw new Error(why);
  return res.statusCode;
}

describe('fuzzing every route from its schema', { timeout: 600_000 }, () => {
  it('covers the routes of both services', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      'GET /health',
      'GET /api/currencies/{date}',
      'GET /api/exch-hour',
      'POST /metering/sync',
      'GET /api/charges',
      'GET /api/bill',
      'GET /api/consumer-prices',
      'GET /api/consumption',
      'GET /api/stream/price',
      'GET /api/stream/price/sse',
      'GET /api/cheapest',
      'GET /api/greenest',
      'GET /api/co2',
      'GET /api/evcc/grid',
      'GET /api/evcc/feedin',
      'GET /api/evcc/co2',
    ])
      expect(names).toContain(expected);
  });

  it('answers generated valid requests with a declared 2xx or a problem, never a 5xx', async () => {
    for (const route of routes.filter((r) => !JOBS.test(r.path) && !STREAMS.test(r.path))) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route).valid, async (req) => void (await check(req))),
        { numRuns: RUNS, seed: SEED },
      );
    }
  });

  it('rejects generated invalid requests with a 4xx problem and writes nothing', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route).invalid, async (req) => {
          const before = await databaseDigest(t.db.database);
          const status = await check(req);
          if (status >= 400)
            expect(await databaseDigest(t.db.database), `${req.route.method} ${req.url}`).toBe(before);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    expect((await t.call('GET', '/health')).statusCode).toBe(200);
  });
});
