import type { FastifyError, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { isConnectionLost } from '../db/errors.js';
import { ProviderError } from '../providers/errors.js';
import { Refusal, type RefusalKind } from '../shared/refusal.js';

/** RFC 9457 problem details; every error answer of the API has this shape. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
  },
  { $id: 'Problem', description: 'application/problem+json (RFC 9457)' },
);

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * What the edge itself refuses about HTTP, where no kind of refusal fits (a body's media type, a
 * missing upgrade): thrown only in src/http/ and routes, it becomes problem+json as it is.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** Response schemas for the error statuses a route can give. */
export function problems(...statuses: number[]): Record<number, typeof Problem> {
  return Object.fromEntries(statuses.map((s) => [s, Problem]));
}

/** The one builder of a problem body, for answers sent now and answers stored for a replay. */
export function problemBody(status: number, detail: string, extensions?: Readonly<Record<string, unknown>>) {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, ...extensions };
}

export function sendProblem(
  reply: FastifyReply,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
  extensions?: Readonly<Record<string, unknown>>,
) {
  return reply
    .code(status)
    .headers(headers)
    .type('application/problem+json')
    .send(problemBody(status, detail, extensions));
}

/**
 * Names the offending field: `querystring.date: must match format "date"`. An unknown one is
 * answered with the names `schema` (the part's schema) takes at the top.
 */
export function validationDetail(error: FastifyError, schema?: unknown): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const params = first.params;
  let field = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (typeof params.missingProperty === 'string') field = join(field, params.missingProperty);
  if (typeof params.additionalProperty === 'string')
    return unknownName(where, field, params.additionalProperty, field === '' ? schema : undefined);
  const message =
    allowedValues(error.validation ?? [], first.instancePath) ??
    messageOf(first.keyword, params) ??
    first.message ??
    'is invalid';
  return `${where}${field ? `.${field}` : ''}: ${message}`;
}

function unknownName(where: string, field: string, name: string, schema: unknown): string {
  const query = where === 'querystring';
  const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
  const at = `${where}.${join(field, shown)}: unknown ${query ? 'parameter' : 'field'}`;
  const properties = (schema as { properties?: object } | undefined)?.properties;
  if (properties === undefined) return at;
  const known = Object.keys(properties);
  if (query)
    return `${at}; this route takes ${known.length === 0 ? 'no query parameters' : known.join(', ')}`;
  return known.length === 0 ? at : `${at}; the ${where} takes ${known.join(', ')}`;
}

/** A choice of literals (`DK1 | DK2`) fails once per literal; the answer names them all. */
function allowedValues(errors: NonNullable<FastifyError['validation']>, instancePath: string): string | null {
  const values = errors
    .filter((e) => e.instancePath === instancePath)
    .flatMap((e) => {
      if (e.keyword === 'const') return [e.params.allowedValue];
      if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues))
        return e.params.allowedValues as unknown[];
      return [];
    })
    .map((v) => JSON.stringify(v));
  if (values.length === 0) return null;
  return values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(', ')}`;
}

/** Plainer words for the date keywords than Ajv's own. */
function messageOf(keyword: string, params: Record<string, unknown>): string | null {
  if (keyword === 'format' && params.format === 'date') return 'must be a calendar date YYYY-MM-DD';
  if (keyword === 'formatMinimum') return `must be a day on or after ${String(params.limit)}`;
  if (keyword === 'formatMaximum') return `must be a day on or before ${String(params.limit)}`;
  return null;
}

function join(a: string, b: string) {
  return a ? `${a}.${b}` : b;
}

/** The status of each kind of refusal. */
export const STATUS_OF: Record<RefusalKind, number> = {
  invalid: 400,
  'not-found': 404,
  conflict: 409,
  unprocessable: 422,
  'too-many': 429,
  unavailable: 503,
  'provider-unavailable': 503,
  'provider-failed': 502,
};

export interface ProblemAnswer {
  status: number;
  detail: string;
  headers: Record<string, string>;
  extensions?: Readonly<Record<string, unknown>>;
}

/**
 * The one mapping of a refusal to its answer: a `Refusal` by its kind, with `Retry-After` from its
 * retry time; a provider's failure (a `ProviderError`, a spent budget's `BudgetExhausted`) as the
 * refusal it makes; the edge's own `HttpProblem` as it is. Null for any other error.
 */
export function problemOf(error: unknown): ProblemAnswer | null {
  const refusal = error instanceof ProviderError ? error.refusal() : error;
  if (refusal instanceof Refusal)
    return {
      status: STATUS_OF[refusal.kind],
      detail: refusal.detail,
      headers: refusal.retryAfterS === undefined ? {} : { 'retry-after': String(refusal.retryAfterS) },
      extensions: refusal.extensions,
    };
  if (error instanceof HttpProblem)
    return { status: error.status, detail: error.detail, headers: error.headers };
  return null;
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const problem = problemOf(error);
  if (problem) return sendProblem(reply, problem.status, problem.detail, problem.headers, problem.extensions);
  if (error.validation) {
    const part = error.validationContext as keyof FastifySchema | undefined;
    return sendProblem(reply, 400, validationDetail(error, part && request.routeOptions.schema?.[part]));
  }
  if (isConnectionLost(error)) {
    request.log.warn({ err: error.message }, 'database connection lost during a request');
    return sendProblem(
      reply,
      503,
      'the database connection was lost; retry the request (a write with its Idempotency-Key is applied at most once)',
      { 'retry-after': '1' },
    );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return sendProblem(reply, status, error.message);
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, 500, 'internal error; see the service log');
}
