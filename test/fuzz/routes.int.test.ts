import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { contractViolation, databaseDigest, requestsFor, routesOf, send, type Route } from './driver.js';

/**
 * Every route, driven by requests generated from its own schema. A fixed seed keeps CI
 * repeatable; FUZZ_RUNS and FUZZ_SEED widen or vary the search.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const TOKEN = 'fuzz-token-0123456789abcdef';
const STREAMS = /\/stream\//;

let t: TestApp;
let routes: Route[];
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKEN: TOKEN, WRITE_RATE_LIMIT: '1000000' } });
  routes = routesOf(t.app.swagger() as never, STREAMS);
});
afterAll(() => t.close());

describe('fuzzing every route from its schema', () => {
  it('finds routes to fuzz', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain('GET /health');
  });

  it('answers generated valid requests with a declared 2xx or a problem, never a 5xx', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route).valid, async (req) => {
          const res = await send(t, req, TOKEN);
          const why = contractViolation(req, res);
          if (why) throw new Error(why);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
  });

  it('rejects generated invalid requests with a 4xx problem and writes nothing', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route).invalid, async (req) => {
          const before = await databaseDigest(t.db.database);
          const res = await send(t, req, TOKEN);
          const why = contractViolation(req, res);
          if (why) throw new Error(why);
          if (res.statusCode >= 400) expect(await databaseDigest(t.db.database)).toBe(before);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    expect((await t.call('GET', '/health')).statusCode).toBe(200);
  });
});
