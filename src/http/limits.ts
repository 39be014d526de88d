import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { Refusal } from '../shared/refusal.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Security headers on the HTML pages (home page, API reference), CORS closed unless origins are
 * configured, and a per-client rate limit on writes only: reads are cheap and cached.
 */
export async function registerLimits(app: FastifyInstance, limits: Config['limits']): Promise<void> {
  // Security headers belong on what a browser renders: the HTML pages. JSON answers get only
  // nosniff; running helmet's dozen header writers on every API request halved read throughput.
  app.addHook('onRoute', (route) => {
    if (route.url === '/' || route.url.startsWith('/docs')) route.helmet = {};
  });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
  await app.register(helmet, {
    global: false,
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
      },
    },
  });
  if (limits.corsOrigins.length > 0) await app.register(cors, { origin: [...limits.corsOrigins] });
  // Reads get no limiter hook at all, rather than one that lets them through on every request.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => WRITE_METHODS.has(m))) route.config = { ...route.config, rateLimit: false };
  });
  await app.register(rateLimit, {
    global: true,
    max: limits.writesPerMinute,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, context) =>
      new Refusal(
        'too-many',
        `too many write requests: at most ${context.max} a minute; retry in ${context.after}`,
        Math.ceil(context.ttl / 1000),
      ),
  });
}
