import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes, type RegisteredRoute } from '../../src/http/strict-input.js';
import { startAllFakes, type AllFakes } from '../fakes/all.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { roomyBudgets } from '../support/providers.js';
import { isSnakeCase, nonSnakeSchemaNames } from '../support/snake-case.js';
import { valid, type JsonSchema } from './arbitraries.js';
import { databaseDigest, paramsObject, type Parameter } from './driver.js';

/**
 * Every route the app registers, found in Fastify's own list (so a route missing from the
 * OpenAPI document is walked too): input it does not read is a 400 naming it and writes
 * nothing, and the document describes it, with a summary and snake_case fields.
 */
const TOKEN = 'fuzz-token-0123456789abcdef';
const SEED = 20261122;
/** The API reference's own pages and files (Swagger UI): the viewer of the document, not in it. */
const VIEWER = /^\/docs(\/|$)/;

interface Operation {
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

let t: TestApp;
let fakes: AllFakes;
let doc: Doc;
let routes: RegisteredRoute[];
beforeAll(async () => {
  const now = new Date('2026-07-03T10:00:00Z');
  fakes = await startAllFakes({ now });
  t = await startTestApp({
    now: now.toISOString(),
    env: { ...fakes.env, API_TOKEN: TOKEN },
    budgetLimits: roomyBudgets(),
  });
  doc = t.app.swagger() as unknown as Doc;
  routes = [...registeredRoutes(t.app)];
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const operationOf = (r: RegisteredRoute): Operation | undefined =>
  doc.paths[openApiPath(r.url)]?.[(r.method === 'HEAD' ? 'GET' : r.method).toLowerCase()];
const sample = <T>(a: fc.Arbitrary<T>): T => fc.sample(a, { seed: SEED, numRuns: 1 })[0]!;
const label = (r: RegisteredRoute) => `${r.method} ${r.url}`;

/** A request the route takes, but for `extra` in its query string and `body` in place of its own. */
async function send(
  r: RegisteredRoute,
  extra: Record<string, string>,
  body?: { payload: string; type: string },
): Promise<LightMyRequestResponse> {
  const op = operationOf(r);
  const params = op?.parameters ?? [];
  const path = sample(valid(paramsObject(params, 'path'))) as Record<string, unknown>;
  const query = sample(valid(paramsObject(params, 'query'))) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const url = r.url
    .replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(text(path[name] ?? 'x')))
    .replace('*', 'x');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, ...extra })) search.set(k, text(v));
  const own = op?.requestBody?.content;
  const json = own?.['application/json']?.schema;
  const payload =
    body ??
    (json
      ? { payload: JSON.stringify(sample(valid(json))), type: 'application/json' }
      : own?.['text/csv']
        ? { payload: 'date,type\n', type: 'text/csv' }
        : undefined);
  return t.app.inject({
    method: r.method as 'GET',
    url: `${url}?${search.toString()}`,
    payload: payload?.payload,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(payload ? { 'content-type': payload.type } : {}),
    },
  });
}

/** Why an answer is not the 400 naming `name`, or null. A HEAD answer has no body to name it in. */
function notRefused(r: RegisteredRoute, res: LightMyRequestResponse, name: string): string | null {
  const what = `${label(r)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  if (res.statusCode !== 400) return `not 400: ${what}`;
  if (!String(res.headers['content-type']).includes('application/problem+json'))
    return `not a problem: ${what}`;
  if (r.method === 'HEAD') return null;
  return res.json<{ detail: string }>().detail.startsWith(name)
    ? null
    : `detail does not name ${name}: ${what}`;
}

describe('input a route does not read is refused', () => {
  it('walks the routes of both services, the page, the streams, the reference and the process', () => {
    const names = routes.map(label);
    for (const expected of [
      'GET /api/solar',
      'POST /metering/sync',
      'GET /api/backup',
      'GET /health',
      'GET /metrics',
      'GET /',
      'GET /page/:version/:file',
      'GET /api/stream/price',
      'GET /api/stream/price/sse',
      'HEAD /api/elprice',
      'GET /openapi.json',
      'GET /docs/static/*',
    ])
      expect(names).toContain(expected);
  });

  it('answers an unknown query parameter with a 400 naming it, on every route, and writes nothing', async () => {
    const before = await databaseDigest(t.db.database);
    const found: string[] = [];
    expect(routes.map(label)).toContain('GET /api/solar');
    for (const r of routes) {
      const takes = new Set((operationOf(r)?.parameters ?? []).map((p) => p.name));
      for (const name of ['unexpected_param_xyz', 'format', 'csv_locale', 'callback'].filter(
        (n) => !takes.has(n),
      )) {
        const why = notRefused(r, await send(r, { [name]: 'xyz' }), `querystring.${name}: unknown parameter`);
        if (why) found.push(why);
      }
    }
    expect(found).toEqual([]);
    expect(await databaseDigest(t.db.database)).toBe(before);
  });

  it('answers a body on every route that takes none with a 400 naming it, and writes nothing', async () => {
    const before = await databaseDigest(t.db.database);
    const syncs = fakes.eloverblik.server.requests.length;
    const bodies = [
      { payload: JSON.stringify({ date: '2026-07-01' }), type: 'application/json' },
      { payload: '{}', type: 'application/json' },
      { payload: 'date=2026-07-01', type: 'application/x-www-form-urlencoded' },
      { payload: 'hello', type: 'text/plain' },
    ];
    const found: string[] = [];
    const bodiless = routes.filter((r) => operationOf(r)?.requestBody === undefined);
    expect(bodiless.map(label)).toEqual(
      expect.arrayContaining([
        'POST /metering/sync',
        'POST /api/quote',
        'DELETE /api/events/:id',
        'GET /api/solar',
      ]),
    );
    for (const r of bodiless)
      for (const body of bodies) {
        const why = notRefused(r, await send(r, {}, body), 'body: ');
        if (why) found.push(`${body.type}: ${why}`);
      }
    expect(found).toEqual([]);
    expect(await databaseDigest(t.db.database)).toBe(before);
    expect(fakes.eloverblik.server.requests.length, 'the metering sync called Eloverblik').toBe(syncs);
  });

  it('tells a client of /metering/sync where its date goes', async () => {
    const res = await t.call(
      'POST',
      '/metering/sync',
      { date: '2026-07-01' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(res.json().detail).toBe(
      'body: POST /metering/sync takes no request body; its parameters go in the query string (date)',
    );
    const solar = await t.call('GET', '/api/solar?format=xyz', undefined, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect([solar.statusCode, solar.json().detail]).toEqual([
      400,
      'querystring.format: unknown parameter; this route takes date',
    ]);
  });

  it('answers a WebSocket stream asked without an upgrade with 426, a problem', async () => {
    for (const url of ['/api/stream/price', '/api/stream/quote']) {
      const res = await t.call('GET', url);
      expect([url, res.statusCode, res.headers.upgrade]).toEqual([url, 426, 'websocket']);
      expect(res.json().detail).toBe(`${url} is a WebSocket stream: connect with Upgrade: websocket`);
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents every registered route, and only those', () => {
    const served = routes.filter((r) => r.method !== 'HEAD' && !VIEWER.test(r.url));
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(served.map((r) => `${r.method} ${openApiPath(r.url)}`).sort()).toEqual(documented.sort());
  });

  it('gives every operation a summary', () => {
    const missing = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.summary?.trim())
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('describes the streams with the message each sends', () => {
    const message = (path: string, status: string, type: string) =>
      doc.paths[path]?.get?.responses[status]?.content?.[type]?.schema as JsonSchema | undefined;
    expect(Object.keys(message('/api/stream/price', '101', 'application/json')?.properties ?? {})).toEqual([
      'at',
      'btc_usd',
      'btc_eur',
      'btc_dkk',
      'rates',
    ]);
    expect(message('/api/stream/quote', '101', 'application/json')?.properties).toHaveProperty('quote_sats');
    expect(message('/api/stream/price/sse', '200', 'text/event-stream')?.properties).toHaveProperty(
      'btc_dkk',
    );
  });

  it('names every field, parameter and message field in snake_case', () => {
    const found: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const at = `${method.toUpperCase()} ${path}`;
        for (const [status, r] of Object.entries(op.responses))
          for (const [type, c] of Object.entries(r.content ?? {}))
            found.push(...nonSnakeSchemaNames(c.schema, `${at} ${status} ${type}`));
        for (const [type, c] of Object.entries(op.requestBody?.content ?? {}))
          found.push(...nonSnakeSchemaNames(c.schema, `${at} body ${type}`));
        for (const p of op.parameters ?? [])
          if (p.in !== 'header' && !isSnakeCase(p.name)) found.push(`${at} ${p.in}.${p.name}`);
      }
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
      found.push(...nonSnakeSchemaNames(schema, `components.${name}`));
    expect(found).toEqual([]);
  });
});
