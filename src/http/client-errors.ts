import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { problemBody } from './problem.js';

/** Node's HTTP parser's largest header section (`--max-http-header-size`, 16 KiB by default). */
const HEADER_LIMIT_KIB = 16;

/** The status and the words for an error Node's HTTP server met before any route saw the request. */
function problemOf(e: NodeJS.ErrnoException): [number, string] {
  if (e.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'the request was not received in time (its headers or body came too slowly)'];
  if (e.code === 'HPE_HEADER_OVERFLOW')
    return [431, `the request's headers are larger than ${HEADER_LIMIT_KIB} KiB; send fewer or shorter ones`];
  const what = typeof e.code === 'string' && e.code.startsWith('HPE_') ? ` (${e.code})` : '';
  return [400, `the request is not well-formed HTTP/1.1${what}; it was not read`];
}

/**
 * Answers what Node's HTTP server refuses on its own (headers too large, bad framing, too slow) as
 * problem+json like every other error of the API (Fastify's clientErrorHandler; Fastify's own
 * answers `{"error": …}`). The connection is closed after it: what follows on it cannot be read.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, error: Error, socket: Socket): void {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = problemOf(e);
  this.log.debug({ err: e.message, code: e.code, status }, 'request refused by the HTTP parser');
  // a response already begun on this socket cannot be followed by another
  const begun = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !begun) {
    const body = JSON.stringify(problemBody(status, detail));
    const reason = problemBody(status, detail).title;
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
