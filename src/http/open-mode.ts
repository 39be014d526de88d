import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Without API_TOKEN every local caller is trusted, and a web page the user visits is a local
 * caller too. This guard refuses (403) what only such a page would send:
 *
 * - a `Host` that is not a loopback name or address: a page that rebinds its own DNS name to
 *   127.0.0.1 reaches the service under that name, and could then read what it answers;
 * - a write whose `Origin` is another site (or `null`, as sandboxed frames and files send), or,
 *   without an `Origin`, whose `Sec-Fetch-Site` is `cross-site`: a form or a `text/plain` fetch
 *   needs no CORS preflight, so it would otherwise write.
 *
 * Loopback origins on any port count as the same site, as do the CORS_ORIGINS the user listed.
 * A request without `Host` (HTTP/1.0) or `Origin` comes from no browser and is let through.
 */
export function openModeGuard(corsOrigins: readonly string[]) {
  const allowedOrigins = new Set(corsOrigins);
  const goodHosts = new Set<string>();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const host = request.headers.host;
    if (host !== undefined && !goodHosts.has(host)) {
      if (!isLoopbackName(hostnameOf(host)))
        return sendProblem(
          reply,
          403,
          `Host "${host.slice(0, 100)}" is not a loopback name: without API_TOKEN the service answers only requests addressed to localhost, 127.0.0.1 or [::1]`,
        );
      if (goodHosts.size < 100) goodHosts.add(host);
    }
    if (!WRITE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (allowedOrigins.has(origin) || isLoopbackOrigin(origin)) return;
      return sendProblem(
        reply,
        403,
        `a write from the web page of origin "${origin.slice(0, 100)}" is refused: without API_TOKEN only pages of this computer may write (or the origins in CORS_ORIGINS)`,
      );
    }
    if (request.headers['sec-fetch-site'] === 'cross-site')
      return sendProblem(
        reply,
        403,
        'a cross-site write is refused (Sec-Fetch-Site: cross-site): without API_TOKEN only pages of this computer may write',
      );
  };
}

/** The host name of a Host header value: `[::1]:3030` → `::1`, `localhost:3030` → `localhost`. */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(1, end);
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      isLoopbackName(u.hostname.replace(/^\[|\]$/g, ''))
    );
  } catch {
    return false;
  }
}

/** localhost (and names under it, which browsers resolve to loopback themselves), 127.0.0.0/8, ::1. */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n === 'localhost' || n.endsWith('.localhost')) return true;
  if (isIP(n) === 4) return n.startsWith('127.');
  if (isIP(n) !== 6) return false;
  // The URL parser writes an IPv6 address in its one canonical form: ::ffff:127.0.0.1 is ::ffff:7f00:1.
  const canonical = new URL(`http://[${n}]`).hostname;
  return canonical === '[::1]' || canonical.startsWith('[::ffff:7f');
}
