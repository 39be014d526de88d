import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A read that reveals the household's holdings, so it needs the token like a write. */
    private?: boolean;
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Bearer token on every write and every private read. Without a configured token the config
 * refused to start unless HOST is loopback, so then every caller is local and is let through.
 */
export function bearerAuth(token: string | null) {
  const expected = token === null ? null : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected === null) return;
    const needs = WRITE_METHODS.has(request.method) || request.routeOptions.config?.private === true;
    if (!needs) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1])
      return sendProblem(reply, 401, 'this endpoint needs an Authorization: Bearer token', {
        'www-authenticate': 'Bearer',
      });
    // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
    if (!timingSafeEqual(digest(match[1]), expected))
      return sendProblem(reply, 401, 'the bearer token is not valid', { 'www-authenticate': 'Bearer' });
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
