import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../src/db/connect.js';
import type { TestApp } from '../support/app.js';
import { nonSnakeKeys } from '../support/snake-case.js';
import { invalidObject, invalidValue, ODD_PATH_SEGMENTS, valid, type JsonSchema } from './arbitraries.js';
import { unreadInput } from './unread.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
export interface Route {
  method: string;
  path: string;
  op: Operation;
}

export interface FuzzRequest {
  route: Route;
  kind: 'valid' | 'invalid';
  url: string;
  body?: string;
  contentType?: string;
  /** The start of the 400's detail this request must get: the input it names. */
  refusal?: string;
}

/** Every operation of the app's OpenAPI document but those whose path `skip` matches. */
export function routesOf(doc: { paths: Record<string, Record<string, Operation>> }, skip?: RegExp): Route[] {
  const out: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (skip?.test(path)) continue;
    for (const [method, op] of Object.entries(ops)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

const jsonBody = (op: Operation) => op.requestBody?.content['application/json']?.schema;
/** A route that takes a file (POST /api/imports): text/csv, with the document's example beside random text. */
const csvBody = (op: Operation) => op.requestBody?.content['text/csv'];

/** The URL of a route with these path and query values. */
export function urlFor(route: Route, path: Record<string, unknown>, q: Record<string, unknown> = {}): string {
  return fill(route.path, path) + query(q);
}

/** The route's JSON body schema, if it takes one. */
export const bodySchemaOf = (route: Route) => jsonBody(route.op);

function fill(path: string, values: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(scalar(values[name] ?? 'x')));
}

const scalar = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function query(values: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values))
    if (v !== undefined) q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function paramsObject(params: Parameter[], where: 'path' | 'query'): JsonSchema {
  const ps = params.filter((p) => p.in === where);
  return {
    type: 'object',
    properties: Object.fromEntries(ps.map((p) => [p.name, p.schema])),
    required: ps.filter((p) => p.required || where === 'path').map((p) => p.name),
  };
}

/** Requests the route's schema accepts, and requests it must reject. */
export function requestsFor(route: Route): {
  valid: fc.Arbitrary<FuzzRequest>;
  invalid: fc.Arbitrary<FuzzRequest>;
} {
  const params = route.op.parameters ?? [];
  const pathSchema = paramsObject(params, 'path');
  const querySchema = paramsObject(params, 'query');
  const body = jsonBody(route.op);
  const build = (
    kind: FuzzRequest['kind'],
    p: unknown,
    q: unknown,
    b: unknown,
    raw?: { body: string; type: string },
  ): FuzzRequest => ({
    route,
    kind,
    url: fill(route.path, p as Record<string, unknown>) + query((q ?? {}) as Record<string, unknown>),
    body: raw ? raw.body : b === undefined ? undefined : JSON.stringify(b),
    contentType: raw ? raw.type : b === undefined ? undefined : 'application/json',
  });
  const validBody = body ? valid(body) : fc.constant(undefined);
  const csv = csvBody(route.op);
  const csvText = csv
    ? fc.oneof(valid(csv.schema), fc.constant(typeof csv.example === 'string' ? csv.example : ''))
    : null;
  const validReq = csvText
    ? fc
        .tuple(valid(pathSchema), valid(querySchema), csvText)
        .map(([p, q, text]) => build('valid', p, q, undefined, { body: text as string, type: 'text/csv' }))
    : fc.tuple(valid(pathSchema), valid(querySchema), validBody).map(([p, q, b]) => build('valid', p, q, b));

  const broken: fc.Arbitrary<FuzzRequest>[] = [];
  const pathNames = Object.keys(pathSchema.properties ?? {});
  if (pathNames.length > 0) {
    broken.push(
      fc
        .tuple(
          valid(pathSchema),
          fc.constantFrom(...pathNames),
          fc.constantFrom(...ODD_PATH_SEGMENTS),
          valid(querySchema),
          validBody,
        )
        .map(([p, name, odd, q, b]) => ({
          ...build('invalid', p, q, b),
          url:
            route.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
              n === name ? odd : encodeURIComponent(String((p as Record<string, unknown>)[n])),
            ) + query(q as Record<string, unknown>),
        })),
    );
  }
  if (Object.keys(querySchema.properties ?? {}).length > 0) {
    // Any query parameter may be the broken one, not one picked once for the whole run.
    broken.push(
      fc.constantFrom(...Object.entries(querySchema.properties ?? {})).chain(([name, schema]) =>
        fc
          .tuple(valid(pathSchema), valid(querySchema), invalidValue(schema), validReq)
          .map(([p, q, bad, v]) => ({
            ...v,
            ...build('invalid', p, { ...(q as object), [name]: bad }, undefined),
            body: v.body,
            contentType: v.contentType,
          })),
      ),
    );
  }
  if (csvText) {
    broken.push(
      fc
        .tuple(
          valid(pathSchema),
          valid(querySchema),
          fc.constantFrom(
            { body: '{"a": 1}', type: 'application/json' },
            { body: '<xml/>', type: 'application/xml' },
            { body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
            { body: '\u0000\u0000,\u0000\n\u0000', type: 'text/csv' },
            { body: '"unclosed,quote\n1,2', type: 'text/csv' },
            { body: '', type: 'text/csv' },
          ),
        )
        .map(([p, q, raw]) => build('invalid', p, q, undefined, raw)),
    );
  }
  if (body) {
    broken.push(
      fc
        .tuple(valid(pathSchema), valid(querySchema), invalidObject(body))
        .map(([p, q, b]) => build('invalid', p, q, b)),
    );
    broken.push(
      fc
        .tuple(
          valid(pathSchema),
          valid(querySchema),
          fc.constantFrom(
            { body: '{"unterminated": ', type: 'application/json' },
            { body: 'not json at all', type: 'application/json' },
            { body: '<xml/>', type: 'application/xml' },
            { body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
            { body: '', type: 'application/json' },
            { body: JSON.stringify({ pad: 'x'.repeat(2_000_000) }), type: 'application/json' },
          ),
        )
        .map(([p, q, raw]) => build('invalid', p, q, undefined, raw)),
    );
  }
  broken.push(
    ...unreadInput(validReq, {
      query: Object.keys(querySchema.properties ?? {}),
      body: route.op.requestBody !== undefined,
    }),
  );
  return { valid: validReq, invalid: fc.oneof(...broken) };
}

const ajv = new Ajv({ strict: false, allErrors: false });
// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
(formats as unknown as { default: (a: Ajv) => void }).default(ajv);
const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
  },
};

/** Why an answer breaks the contract, or null when it keeps it. */
export function contractViolation(req: FuzzRequest, res: LightMyRequestResponse): string | null {
  const where = `${req.route.method} ${req.url.slice(0, 120)} → ${res.statusCode}`;
  if (res.statusCode >= 500) return `${where}: server error ${res.body.slice(0, 300)}`;
  const declared = req.route.op.responses[String(res.statusCode)];
  if (req.refusal !== undefined && res.statusCode !== 400)
    return `${where}: not 400 ${res.body.slice(0, 200)}`;
  if (res.statusCode >= 400) {
    if (!String(res.headers['content-type']).includes('application/problem+json'))
      return `${where}: not problem+json`;
    if (!ajv.validate(problemSchema, res.json()))
      return `${where}: not a problem body ${res.body.slice(0, 200)}`;
    const { detail } = res.json<{ detail: string }>();
    if (detail.trim() === '') return `${where}: empty detail`;
    if (req.refusal !== undefined && !detail.startsWith(req.refusal))
      return `${where}: the detail does not name ${req.refusal}: ${detail}`;
    return snakeViolation(where, res.json(), declared);
  }
  if (!declared) return `${where}: status not declared in the route's schema`;
  // A route that answers CSV as well (format=csv) declares text/csv beside its JSON.
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (type !== '' && type !== 'application/json')
    return declared.content?.[type]
      ? csvViolation(req, res, type)
      : `${where}: ${type} is not a declared content type`;
  const schema = declared.content?.['application/json']?.schema;
  if (schema && !ajv.validate(schema, res.json()))
    return `${where}: body does not match schema: ${ajv.errorsText()}`;
  return res.body === '' ? null : snakeViolation(where, res.json(), declared);
}

/** Every key of a JSON answer is snake_case, nested ones too; a record's keys (feed names) are data. */
function snakeViolation(where: string, body: unknown, declared: Operation['responses'][string] | undefined) {
  const bad = nonSnakeKeys(body, declared?.content?.['application/json']?.schema);
  return bad.length === 0 ? null : `${where}: keys not in snake_case: ${bad.slice(0, 5).join(', ')}`;
}

/**
 * A CSV answer only when format=csv was asked, and then with a header row of field names:
 * separated by `,`, or with csv_locale=da by `;` after a byte-order mark.
 */
function csvViolation(req: FuzzRequest, res: LightMyRequestResponse, type: string): string | null {
  if (type !== 'text/csv') return null;
  const where = `${req.route.method} ${req.url.slice(0, 120)}`;
  if (!/[?&]format=csv(&|$)/.test(req.url)) return `${where}: CSV that was not asked for`;
  const header = res.body.split('\r\n', 1)[0] ?? '';
  const danish = /[?&]csv_locale=da(&|$)/.test(req.url);
  const names = danish ? /^\uFEFF[a-z_0-9]+(;[a-z_0-9]+)*$/ : /^[a-z_0-9]+(,[a-z_0-9]+)*$/;
  return names.test(header) ? null : `${where}: CSV without a header row`;
}

/** A digest of every row of every table in the service schemas: equal digests, equal data. */
export async function databaseDigest(database: Database): Promise<string> {
  const tables = await sql<{ name: string }>`
    select format('%I.%I', table_schema, table_name) as name from information_schema.tables
    where table_schema in ('btc', 'power') and table_type = 'BASE TABLE' order by 1`.execute(database.db);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const r = await sql<{
      d: string | null;
    }>`select md5(string_agg(t::text, '|' order by t::text)) as d from ${sql.raw(name)} t`.execute(
      database.db,
    );
    parts.push(`${name}:${r.rows[0]?.d ?? 'empty'}`);
  }
  return parts.join('\n');
}

export async function send(app: TestApp, req: FuzzRequest, token: string): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: req.route.method as 'GET',
    url: req.url,
    payload: req.body,
    headers: {
      authorization: `Bearer ${token}`,
      ...(req.contentType ? { 'content-type': req.contentType } : {}),
    },
  });
}
