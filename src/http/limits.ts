import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { HttpProblem } from './problem.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Security headers everywhere (the home page included), CORS closed unless origins are
 * configured, and a per-client rate limit on writes only: reads are cheap and cached.
 */
export async function registerLimits(app: FastifyInstance, limits: Config['limits']): Promise<void> {
  await app.register(helmet, {
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
  await app.register(cors, { origin: limits.corsOrigins.length > 0 ? [...limits.corsOrigins] : false });
  await app.register(rateLimit, {
    global: true,
    max: limits.writesPerMinute,
    timeWindow: 60_000,
    allowList: (request) => !WRITE_METHODS.has(request.method),
    errorResponseBuilder: (_request, context) =>
      new HttpProblem(
        429,
        `too many write requests: at most ${context.max} a minute; retry in ${context.after}`,
        {
          'retry-after': String(Math.ceil(context.ttl / 1000)),
        },
      ),
  });
}
