import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Config } from './config.js';
import type { App, AppContext, Feature } from './context.js';
import { registerBearerAuth } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerLimits } from './http/limits.js';
import { registerMetrics } from './http/metrics.js';
import { openModeGuard } from './http/open-mode.js';
import { lazySerializers } from './http/lazy-compile.js';
import { Problem, errorHandler, problems, sendProblem } from './http/problem.js';
import { registerRequestTimeout } from './http/timeout.js';
import { refuseUnreadInput } from './http/strict-input.js';
import { Nullable } from './http/types.js';
import { requireUtf8 } from './http/utf8.js';
import { validatorCompiler } from './http/validation.js';
import { createBackupFeature } from './ops/backup/index.js';
import { createMqttFeature, type MqttOptions } from './mqtt/index.js';
import { composeServices, mqttSources, type ServiceRecord, type Services } from './services.js';
import { SATWATT_VERSION } from './shared/version.js';

export interface BuiltApp {
  app: App;
  features: Feature[];
  /** The services of this process by name. */
  services: ServiceRecord;
}

/**
 * One Fastify server; each service is its own encapsulated plugin on it, so a process can
 * mount both (the default) or one. /health, /metrics and /docs belong to the server.
 */
export async function buildApp(
  ctx: AppContext,
  services: Services,
  mqtt: Partial<MqttOptions> = {},
): Promise<BuiltApp> {
  const app = Fastify({
    // pino's Logger and Fastify's logger type differ only in typing; the instance is the same.
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    bodyLimit: ctx.config.limits.bodyBytes,
    // response serializers built on a route's first answer, not at start, but /health's
    schemaController: { compilersFactory: { buildSerializer: lazySerializers(new Set(['/health'])) } },
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    clientErrorHandler,
    // Errors found while routing (an undecodable path, an overlong parameter) skip the error handler.
    frameworkErrors: (error, _request, reply) => {
      void sendProblem(
        reply,
        error.statusCode ?? 400,
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'path: a path parameter is longer than 100 characters'
          : `path: ${error.message.slice(0, 200)}`,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler());
  requireUtf8(app);
  registerRequestTimeout(app, ctx.config.limits.requestTimeoutMs);
  app.decorateRequest('authenticated', false);
  if (ctx.config.apiToken === null) app.addHook('onRequest', openModeGuard(ctx.config.limits.corsOrigins));

  refuseUnreadInput(app);
  app.addSchema(Problem);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, `no route for ${request.method} ${request.url.split('?')[0]}`),
  );
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'satwatt',
        version: SATWATT_VERSION,
        description: 'Bitcoin and Danish electricity data for one household.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await registerLimits(app, ctx.config.limits);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // Swagger UI sets a few inline styles; scripts stay restricted to its own files.
    transformStaticCSP: (header) =>
      header.replace("style-src 'self' https:", "style-src 'self' https: 'unsafe-inline'"),
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  // @fastify/websocket hides its routes from the OpenAPI document; the streams are part of the API.
  app.addHook('onRoute', (route) => {
    if (route.websocket && route.schema) route.schema.hide = false;
  });
  registerBearerAuth(app, {
    token: ctx.config.apiToken,
    failuresPerMinute: ctx.config.limits.authFailuresPerMinute,
    clock: ctx.clock,
  });
  registerMetrics(app, ctx.health);
  registerHealth(app, ctx);

  const composed = composeServices(ctx, services);
  const features: Feature[] = [];
  for (const made of composed.features) {
    features.push(...made);
    await app.register(async (scope) => {
      for (const f of made) await f.routes?.(scope);
    });
  }
  // Backups belong to the process, whichever services it runs.
  const backup = createBackupFeature(ctx);
  features.push(backup);
  await app.register(async (scope) => backup.routes?.(scope));
  // last: it publishes what the others answer, so it starts after them and stops first
  features.push(createMqttFeature(ctx, mqttSources(composed.record), mqtt));
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['reference'],
        summary: 'This OpenAPI 3.1 document (browsable at /docs)',
        response: {
          // in OpenAPI's own field names (securitySchemes), not the API's
          200: {
            description: 'the document',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          },
          ...problems(400),
        },
      },
    },
    async () => app.swagger() as unknown as Record<string, unknown>,
  );
  return { app, features, services: composed.record };
}

/** Fastify takes a list of proxies as one comma-separated string, and a hop count as a function. */
function trustProxyOption(trust: Config['trustProxy']) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return typeof trust === 'object' ? trust.join(',') : trust;
}

/** Every field but `ok` only for a caller with the token (or when none is configured). */
const FeedState = Type.Object({
  ok: Type.Boolean(),
  starting: Type.Optional(Type.Boolean()),
  enabled: Type.Optional(Type.Boolean()),
  connected: Type.Optional(Nullable(Type.Boolean())),
  last_success_at: Type.Optional(Nullable(Type.String())),
  last_message_at: Type.Optional(Nullable(Type.String())),
  last_error_at: Type.Optional(Nullable(Type.String())),
  last_error: Type.Optional(Nullable(Type.String())),
  failures: Type.Optional(Type.Integer()),
  reconnects: Type.Optional(Type.Integer()),
  detail: Type.Optional(Nullable(Type.String())),
  budget_refusals: Type.Optional(Type.Integer()),
  rejected: Type.Optional(Type.Integer()),
  last_rejected: Type.Optional(Nullable(Type.String())),
  last_rejected_at: Type.Optional(Nullable(Type.String())),
});
const HealthResponse = Type.Object({
  status: Type.Enum(['ok', 'starting', 'degraded', 'down']),
  services: Type.Optional(Type.Array(Type.String())),
  uptime_s: Type.Optional(Type.Integer()),
  database: Type.Optional(
    Type.Object({
      kind: Type.String(),
      ok: Type.Boolean(),
      error: Nullable(Type.String()),
      latency_ms: Type.Number(),
    }),
  ),
  feeds: Type.Record(Type.String(), FeedState),
});

function registerHealth(app: App, ctx: AppContext) {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'State of the database and of each feed',
        description:
          "Without the token (when API_TOKEN is set) only `status` and each feed's `ok`; errors, " +
          'addresses and details need the token.',
        response: { 200: HealthResponse, 503: HealthResponse, ...problems(401, 429) },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      let dbError: string | null = null;
      try {
        await ctx.database.check();
      } catch (e) {
        dbError = (e as Error).message;
      }
      const all = ctx.health.all();
      const degraded = all.some((f) => !f.ok && !f.starting);
      const starting = all.some((f) => f.starting);
      const status: Static<typeof HealthResponse>['status'] = dbError
        ? 'down'
        : degraded
          ? 'degraded'
          : starting
            ? 'starting'
            : 'ok';
      reply.code(dbError ? 503 : 200);
      if (!request.authenticated)
        return {
          status,
          // `starting` only while it is: the open answer says as little as it can
          feeds: Object.fromEntries(
            all.map((f) => [f.name, f.starting ? { ok: f.ok, starting: true } : { ok: f.ok }]),
          ),
        };
      return {
        status,
        services: [...ctx.config.services],
        uptime_s: Math.round(process.uptime()),
        database: {
          kind: ctx.database.kind,
          ok: dbError === null,
          error: dbError,
          latency_ms: Number((performance.now() - started).toFixed(2)),
        },
        feeds: Object.fromEntries(all.map((f) => [f.name, f.toJSON()])),
      };
    },
  );
}
