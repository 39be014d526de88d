import type { FastifyInstance, FastifySchema, preParsingHookHandler } from 'fastify';
import { Type } from 'typebox';
import { invalid } from '../shared/refusal.js';
import { Problem } from './problem.js';

/** A route as registered: its method and URL pattern. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on the app after refuseUnreadInput, HEAD routes included. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/**
 * Input a route does not read is refused, never silently ignored: a client that sends
 * `?format=xyz` or a JSON body to a route that takes neither would otherwise get an answer to
 * a question it did not ask. One hook, for every route of every feature, so that a new route
 * cannot forget it:
 *
 * - the query string is closed: a route's querystring schema takes no parameter it does not
 *   name (unless it says `additionalProperties` itself), and a route without one takes none;
 *   an unknown parameter is a 400 naming it (validationDetail lists the ones the route takes);
 * - a route without a body schema takes no body: a request announcing one (a Content-Length
 *   above 0, or any Transfer-Encoding) is a 400 naming `body`, before the body is read.
 *
 * A CORS preflight, which carries the query string of the request it asks about, is answered
 * by @fastify/cors in its onRequest hook, before validation.
 */
export function refuseUnreadInput(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url ?? route.path });
    const schema: FastifySchema = (route.schema ??= {});
    schema.querystring = closed(schema.querystring);
    // every route can answer these 400s now, and its document says so
    const response = schema.response as Record<string, unknown> | undefined;
    if (response && !('400' in response)) response[400] = Problem;
    if (schema.body !== undefined) return;
    const before = route.preParsing ? [route.preParsing].flat() : [];
    if (!before.includes(refuseBody)) route.preParsing = [refuseBody, ...before];
  });
}

/** The schema with additionalProperties false where it says nothing; an empty one where there is none. */
function closed(querystring: FastifySchema['querystring']): FastifySchema['querystring'] {
  if (querystring === undefined) return Type.Object({}, { additionalProperties: false });
  const q = querystring as { additionalProperties?: unknown };
  return q.additionalProperties === undefined ? { ...q, additionalProperties: false } : querystring;
}

/** A callback hook: it runs on every request of most routes, and a promise each showed in throughput. */
const refuseBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const length = request.headers['content-length'];
  const announced =
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!announced) return done(null, payload);
  const params = Object.keys(
    (request.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties ?? {},
  );
  const where = params.length > 0 ? `; its parameters go in the query string (${params.join(', ')})` : '';
  done(invalid(`body: ${request.method} ${request.routeOptions.url} takes no request body${where}`));
};
