import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HealthRegistry } from '../shared/health.js';
import { problems } from './problem.js';

/** Prometheus text at /metrics: process metrics, HTTP latency per route, and feed state. */
export function registerMetrics(app: FastifyInstance, health: HealthRegistry): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'satwatt_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'satwatt_feed_ok',
    help: '1 when the feed has not failed since its last success',
    labelNames: ['feed'] as const,
    registers: [registry],
    collect() {
      for (const f of health.all()) if (f.enabled) this.set({ feed: f.name }, f.ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'satwatt_feed_last_success_timestamp_seconds',
    help: 'Unix time of the last successful poll or message',
    labelNames: ['feed'] as const,
    registers: [registry],
    collect() {
      for (const f of health.all())
        if (f.lastSuccessAt) this.set({ feed: f.name }, f.lastSuccessAt.getTime() / 1000);
    },
  });
  const counters = ['failures', 'reconnects', 'rejected'] as const;
  for (const key of counters) {
    new Counter({
      name: `satwatt_feed_${key}_total`,
      help: `Feed ${key} since start`,
      labelNames: ['feed'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const f of health.all()) if (f[key] > 0) this.inc({ feed: f.name }, f[key]);
      },
    });
  }
  // Children cached per route and status: building label sets on every request showed in the benchmarks.
  const children = new Map<string, ReturnType<typeof duration.labels>>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let child = children.get(key);
    if (!child) {
      child = duration.labels(request.method, route, String(reply.statusCode));
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  // It counts ledger writes per route and status, so with a token set it needs the token.
  app.get(
    '/metrics',
    {
      config: { private: true },
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics: requests by route and status, feed failures and refusals, the process',
        security: [{ bearer: [] }],
        produces: ['text/plain'],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...problems(400, 401, 429),
        },
      },
    },
    async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
  return registry;
}
