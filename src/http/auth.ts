import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import { sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A read that reveals the household's holdings, so it needs the token like a write. */
    private?: boolean;
  }
  interface FastifyRequest {
    /** The caller showed the token, or no token is configured (then every caller is local). */
    authenticated: boolean;
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WINDOW_MS = 60_000;
/** Addresses remembered at most; past it the oldest go first, so a flood cannot grow memory. */
const MAX_ADDRESSES = 10_000;

export interface AuthOptions {
  token: string | null;
  /** Wrong or missing-where-needed tokens per address per minute before 429. */
  failuresPerMinute: number;
  clock: Clock;
}

/**
 * Bearer token on every write and every private read. Without a configured token the config
 * refused to start unless HOST is loopback, so every caller is local and is let through (the
 * open-mode guard refuses what a browser could send from elsewhere). A token shown anywhere,
 * even where none is needed, must be right. Wrong tokens count per client address; past the
 * limit the address gets 429 with Retry-After until its minute is over, right token or not.
 */
export function bearerAuth(opts: AuthOptions) {
  const expected = opts.token === null ? null : digest(opts.token);
  const failures = new Map<string, { since: number; count: number }>();

  const blockedFor = (ip: string, now: number): number => {
    const f = failures.get(ip);
    if (!f || now - f.since >= WINDOW_MS) return 0;
    return f.count >= opts.failuresPerMinute ? f.since + WINDOW_MS - now : 0;
  };
  const fail = (ip: string, now: number) => {
    const f = failures.get(ip);
    if (f && now - f.since < WINDOW_MS) {
      f.count++;
      return;
    }
    failures.delete(ip);
    if (failures.size >= MAX_ADDRESSES) failures.delete(failures.keys().next().value!);
    failures.set(ip, { since: now, count: 1 });
  };

  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected === null) {
      request.authenticated = true;
      return;
    }
    const header = request.headers.authorization;
    const needs = WRITE_METHODS.has(request.method) || request.routeOptions.config?.private === true;
    if (header === undefined && !needs) return;
    const now = opts.clock.now().getTime();
    const wait = blockedFor(request.ip, now);
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      return sendProblem(reply, 429, `too many wrong tokens from this address; retry in ${s} s`, {
        'retry-after': String(s),
      });
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match?.[1]) {
      if (header !== undefined) fail(request.ip, now);
      return sendProblem(reply, 401, 'this endpoint needs an Authorization: Bearer token', {
        'www-authenticate': 'Bearer',
      });
    }
    // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
    if (!timingSafeEqual(digest(match[1]), expected)) {
      fail(request.ip, now);
      return sendProblem(reply, 401, 'the bearer token is not valid', { 'www-authenticate': 'Bearer' });
    }
    request.authenticated = true;
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
