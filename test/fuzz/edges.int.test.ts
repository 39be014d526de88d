import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from '../fakes/all.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { roomyBudgets } from '../support/providers.js';
import { valid, type JsonSchema } from './arbitraries.js';
import { bodySchemaOf, databaseDigest, paramsObject, routesOf, urlFor, type Route } from './driver.js';
import {
  EXACT_MONEY_JSON,
  HOSTILE_DAYS,
  MONEY_JSON,
  isMoney,
  NEGATIVE_ZERO,
  NUMBER_JSON,
  NUMBER_TEXT,
  dayAfter,
  dayBefore,
  isDate,
  mustRefuseNumber,
  tamperedCursors,
  typeOf,
} from './hostile.js';

/**
 * Every numeric, date and cursor parameter of every route (query, path and JSON body, found in
 * the app's own OpenAPI document), sent each hostile value of its class. A refused value must be
 * a 400 problem naming the parameter, and leave every table as it was; nothing may be a 5xx.
 */
const TOKEN = 'fuzz-token-0123456789abcdef';
const SEED = 20261122;
const STREAMS = /\/stream\//;

let t: TestApp;
let fakes: AllFakes;
let routes: Route[];
beforeAll(async () => {
  const now = new Date('2026-07-03T10:00:00Z');
  fakes = await startAllFakes({ now });
  // Requests, not the providers' call budgets, are under test (test/budgets.int.test.ts has those).
  t = await startTestApp({
    now: now.toISOString(),
    env: { ...fakes.env, API_TOKEN: TOKEN },
    budgetLimits: roomyBudgets(),
  });
  routes = routesOf(t.app.swagger() as never, STREAMS);
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

interface Target {
  route: Route;
  where: 'path' | 'query' | 'body';
  name: string;
  schema: JsonSchema;
  /** The body the parameter belongs to: the route's, or the branch of its oneOf that has it. */
  body?: JsonSchema;
}

/** Every top-level parameter of every route that `pick` selects. */
function targets(pick: (s: JsonSchema) => boolean): Target[] {
  return routes.flatMap((route) => {
    const params = route.op.parameters ?? [];
    const body = bodySchemaOf(route);
    // A body documented as a oneOf (an event, one branch per type) is each branch in turn.
    const bodies = body ? (body.oneOf ?? [body]) : [];
    return [
      ...params
        .filter((p) => (p.in === 'path' || p.in === 'query') && pick(p.schema))
        .map((p) => ({ route, where: p.in as 'path' | 'query', name: p.name, schema: p.schema })),
      ...bodies.flatMap((b) =>
        Object.entries(b.properties ?? {})
          .filter(([, s]) => pick(s))
          .map(([name, schema]) => ({ route, where: 'body' as const, name, schema, body: b })),
      ),
    ];
  });
}

const sample = <T>(a: fc.Arbitrary<T>): T => fc.sample(a, { seed: SEED, numRuns: 1 })[0]!;

/** A valid request of the route with `raw` in place of one parameter (raw JSON text in a body). */
function request(target: Target, raw: string) {
  const { route, where, name } = target;
  const params = route.op.parameters ?? [];
  const path = sample(valid(paramsObject(params, 'path'))) as Record<string, unknown>;
  const q = sample(valid(paramsObject(params, 'query'))) as Record<string, unknown>;
  const bodySchema = target.body ?? bodySchemaOf(route);
  const body = bodySchema ? (sample(valid(bodySchema)) as Record<string, unknown>) : undefined;
  if (where === 'query') q[name] = raw;
  let url = urlFor(route, path, q);
  if (where === 'path') url = urlFor(route, { ...path, [name]: raw }, q);
  let payload = body === undefined ? undefined : JSON.stringify(body);
  if (where === 'body') payload = JSON.stringify({ ...body, [name]: '\u0000' }).replace('"\\u0000"', raw);
  // A route that takes a file gets one, so that only the parameter under test can be wrong.
  const csv = route.op.requestBody?.content['text/csv'];
  if (csv) return { method: route.method as 'GET', url, payload: IMPORT_FILE, type: 'text/csv' };
  return { method: route.method as 'GET', url, payload, type: 'application/json' };
}

const IMPORT_FILE = 'date,type,sats,fee_sats,amount,currency,reference\n';

function send(r: ReturnType<typeof request>): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: r.method,
    url: r.url,
    payload: r.payload,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(r.payload === undefined ? {} : { 'content-type': r.type }),
    },
  });
}

const label = (x: Target) => `${x.route.method} ${x.route.path} ${x.where}.${x.name}`;
const prefix = { path: 'params', query: 'querystring', body: 'body' } as const;

/**
 * Sends each value; those `refuse` marks must be a 400 problem naming the parameter, and none
 * may be a 5xx or change a table. Returns what went wrong, so a run reports every defect at once.
 */
async function problemsOf(
  target: Target,
  values: string[],
  refuse: (v: string) => boolean = () => true,
): Promise<string[]> {
  const found: string[] = [];
  const before = await databaseDigest(t.db.database);
  // The values to refuse first, then the digest: a value taken (a valid event body) may write.
  const ordered = [...values.filter((v) => refuse(v)), ...values.filter((v) => !refuse(v))];
  let checked = false;
  const checkDigest = async () => {
    if (!checked && (await databaseDigest(t.db.database)) !== before)
      found.push(`${label(target)} wrote to the database`);
    checked = true;
  };
  for (const value of ordered) {
    if (!refuse(value)) await checkDigest();
    const res = await send(request(target, value));
    const what = `${label(target)} = ${JSON.stringify(value).slice(0, 40)} → ${res.statusCode} ${res.body.slice(0, 160)}`;
    if (res.statusCode >= 500) found.push(`server error: ${what}`);
    if (res.statusCode >= 500 || !refuse(value)) continue;
    // The router refuses an overlong path parameter before any schema sees it.
    const expected = target.where === 'path' && value.length > 100 ? 414 : 400;
    if (res.statusCode !== expected) found.push(`not ${expected}: ${what}`);
    else if (!String(res.headers['content-type']).includes('application/problem+json'))
      found.push(`not problem+json: ${what}`);
    else if (
      expected === 400 &&
      !res.json<{ detail: string }>().detail.includes(`${prefix[target.where]}.${target.name}`)
    )
      found.push(`detail does not name ${prefix[target.where]}.${target.name}: ${what}`);
  }
  await checkDigest();
  return found;
}

describe('numbers: non-finite, overflowing, fractional and exponent forms are a 400 naming the parameter', () => {
  const numeric = () => targets((s) => typeOf(s) !== null);

  it('finds the numeric parameters of both services', () => {
    const names = numeric().map(label);
    for (const expected of [
      'GET /api/exch-minute query.limit',
      'GET /api/events query.limit',
      'GET /api/events query.wallet',
      'GET /api/wallets/{id} path.id',
      'POST /api/events body.sats',
      'GET /api/deposits query.limit',
      'GET /api/buys query.limit',
      'GET /api/cheapest query.hours',
      'GET /api/cheapest query.minutes',
      'GET /api/greenest query.minutes',
      'POST /api/imports query.exchange',
      'POST /api/imports query.to_wallet',
      'PUT /api/events/{id} body.fee_sats',
    ])
      expect(names).toContain(expected);
  });

  it('in the query and the path, written as text', async () => {
    const found: string[] = [];
    for (const target of numeric().filter((x) => x.where !== 'body'))
      for (const [cls, values] of Object.entries(NUMBER_TEXT))
        found.push(
          ...(await problemsOf(target, [...values], (v) => mustRefuseNumber(target.schema, cls, v))),
        );
    expect(found).toEqual([]);
  });

  it('in JSON bodies, written as JSON numbers', async () => {
    const found: string[] = [];
    for (const target of numeric().filter((x) => x.where === 'body'))
      for (const [cls, values] of Object.entries(NUMBER_JSON))
        found.push(
          ...(await problemsOf(target, [...values], (v) => mustRefuseNumber(target.schema, cls, v))),
        );
    expect(found).toEqual([]);
  });

  it('negative zero is zero: taken or refused, never a server error', async () => {
    const found: string[] = [];
    for (const target of numeric())
      found.push(
        ...(await problemsOf(target, target.where === 'body' ? ['-0', '-0.0'] : NEGATIVE_ZERO, () => false)),
      );
    expect(found).toEqual([]);
  });
});

describe('money: a value a float would alter, or that is no positive decimal of at most 8 decimals, is a 400 naming the field', () => {
  const money = () => targets(isMoney);

  it('finds the money fields of the ledger', () => {
    const names = money().map(label);
    for (const expected of ['POST /api/events body.amount', 'PUT /api/events/{id} body.amount'])
      expect(names).toContain(expected);
  });

  it('refuses every hostile amount, and takes or refuses the exact ones without a server error', async () => {
    const found: string[] = [];
    for (const target of money()) {
      for (const values of Object.values(MONEY_JSON)) found.push(...(await problemsOf(target, [...values])));
      found.push(...(await problemsOf(target, EXACT_MONEY_JSON, () => false)));
    }
    expect(found).toEqual([]);
  });
});

describe('dates: years 0000 and 9999, impossible days and days outside their range are a 400 naming the parameter', () => {
  const dates = () => targets(isDate);

  it('finds the date parameters of both services', () => {
    const names = dates().map(label);
    for (const expected of [
      'GET /api/elprice query.date',
      'GET /api/prices query.date',
      'GET /api/events query.from',
      'GET /api/deposits query.to',
      'GET /api/production query.date',
      'GET /api/solar query.date',
      'POST /metering/sync query.date',
      'GET /api/currencies/{date} path.date',
      'POST /api/events body.occurred_at',
      'GET /api/consumer-prices query.date',
      'GET /api/cheapest query.date',
      'GET /api/co2 query.date',
      'GET /api/costs query.from',
      'GET /api/costs query.to',
      'GET /api/quote/premium query.from',
      'GET /api/portfolio query.at',
      'GET /api/charges query.date',
    ])
      expect(names).toContain(expected);
  });

  it('refuses every hostile day, and the days just outside the range the schema states', async () => {
    const asJson = (x: Target, days: string[]) =>
      x.where === 'body' ? days.map((d) => JSON.stringify(d)) : days;
    const found: string[] = [];
    for (const target of dates()) {
      found.push(...(await problemsOf(target, asJson(target, Object.values(HOSTILE_DAYS).flat()))));
      const { formatMinimum: min, formatMaximum: max } = target.schema;
      if (!min || !max) found.push(`${label(target)} states no range of days`);
      else found.push(...(await problemsOf(target, asJson(target, [dayBefore(min), dayAfter(max)]))));
    }
    expect(found).toEqual([]);
  });

  it('takes the first and the last day of the range without a server error', async () => {
    const found: string[] = [];
    // a job's valid request runs a command's real work (a backfill of decades); test/remote.e2e.test.ts runs them
    for (const target of dates().filter((x) => !x.route.path.startsWith('/api/jobs/'))) {
      const { formatMinimum: min, formatMaximum: max } = target.schema;
      const days = [min, max].filter((d) => d !== undefined);
      for (const day of days) {
        const res = await send(request(target, target.where === 'body' ? JSON.stringify(day) : day));
        if (res.statusCode >= 500)
          found.push(`${label(target)} = ${day} → ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('cursors: a tampered cursor is a 400 naming it, never a server error', () => {
  it('tampers with a real cursor of every route that pages', async () => {
    const wallet = await t.call(
      'POST',
      '/api/wallets',
      { name: 'fuzz exchange', wallet_type: 'exchange' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(wallet.statusCode).toBe(201);
    for (const day of ['2026-01-05', '2026-01-06', '2026-01-07']) {
      const e = await t.call(
        'POST',
        '/api/events',
        {
          type: 'bank_to_exchange',
          occurred_at: day,
          wallet: wallet.json().id,
          amount: '10.50',
          currency: 'EUR',
        },
        { authorization: `Bearer ${TOKEN}` },
      );
      expect(e.statusCode, e.body).toBe(201);
    }
    const cold = await t.call(
      'POST',
      '/api/wallets',
      { name: 'fuzz cold wallet', wallet_type: 'wallet' },
      { authorization: `Bearer ${TOKEN}` },
    );
    for (const day of ['2026-01-05', '2026-01-06', '2026-01-07']) {
      const e = await t.call(
        'POST',
        '/api/events',
        {
          type: 'exchange_to_wallet',
          occurred_at: day,
          from_wallet: wallet.json().id,
          to_wallet: cold.json().id,
          sats: 1000,
          fee_sats: 0,
          amount: '10.50',
          currency: 'EUR',
        },
        { authorization: `Bearer ${TOKEN}` },
      );
      expect(e.statusCode, e.body).toBe(201);
    }
    const paging = targets((s) => s.type === 'string').filter(
      (x) => x.where === 'query' && x.name === 'cursor',
    );
    expect(paging.map(label)).toEqual(
      expect.arrayContaining([
        'GET /api/events query.cursor',
        'GET /api/deposits query.cursor',
        'GET /api/buys query.cursor',
      ]),
    );
    const found: string[] = [];
    for (const target of paging) {
      const first = await t.call('GET', urlFor(target.route, {}, { limit: 1 }), undefined, {
        authorization: `Bearer ${TOKEN}`,
      });
      const real = first.json<{ next_cursor: string | null }>().next_cursor;
      expect(real, `${label(target)}: the first page gave no cursor`).toBeTypeOf('string');
      const next = await t.call('GET', urlFor(target.route, {}, { limit: 1, cursor: real }), undefined, {
        authorization: `Bearer ${TOKEN}`,
      });
      expect(next.statusCode, next.body).toBe(200);
      const { mustRefuse, mayPass } = tamperedCursors(real!);
      found.push(
        ...(await problemsOf(target, mustRefuse)),
        ...(await problemsOf(target, mayPass, () => false)),
      );
    }
    expect(found).toEqual([]);
  });
});
