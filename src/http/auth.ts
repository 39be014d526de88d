import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
/** Addresses remembered at most; past it the least recently seen go first, so a flood cannot grow memory. */
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
export function registerBearerAuth(app: FastifyInstance, opts: AuthOptions): void {
  const expected = opts.token === null ? null : digest(opts.token);
  const failures = new LRUCache<string, { since: number; count: number }>({ max: MAX_ADDRESSES });

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
    failures.set(ip, { since: now, count: 1 });
  };

  /** Why the request is refused, as the problem to answer; null when it may go on. */
  const refusal = (request: FastifyRequest, header: string | undefined): AuthFailure | null => {
    const now = opts.clock.now().getTime();
    const wait = blockedFor(request.ip, now);
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      return [429, `too many wrong tokens from this address; retry in ${s} s`, { 'retry-after': String(s) }];
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match?.[1]) {
      if (header !== undefined) fail(request.ip, now);
      return [401, 'this endpoint needs an Authorization: Bearer token', { 'www-authenticate': 'Bearer' }];
    }
    // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
    if (!timingSafeEqual(digest(match[1]), expected!)) {
      fail(request.ip, now);
      return [401, 'the bearer token is not valid', { 'www-authenticate': 'Bearer' }];
    }
    return null;
  };

  const check = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const refused = refusal(request, request.headers.authorization);
    if (refused) return void sendProblem(reply, ...refused);
    request.authenticated = true;
    done();
  };

  // Callback hooks, and the private flag read once per route: this runs on every request, and a
  // promise per request or Fastify's routeOptions object (built anew on each read) showed in the
  // cached answers' throughput.
  app.addHook('onRequest', (request, reply, done) => {
    if (expected === null) {
      request.authenticated = true;
      return done();
    }
    if (request.headers.authorization === undefined && !WRITE_METHODS.has(request.method)) return done();
    check(request, reply, done);
  });
  app.addHook('onRoute', (route) => {
    if (expected === null || route.config?.private !== true) return;
    const hooks = route.onRequest ? [route.onRequest].flat() : [];
    // a private read shown no token at all: the global hook let it through
    route.onRequest = [
      (request, reply, done) =>
        request.headers.authorization === undefined ? check(request, reply, done) : done(),
      ...hooks,
    ];
  });
}

type AuthFailure = [status: number, detail: string, headers: Record<string, string>];

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
