import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { clientErrorHandler } from './client-errors.js';

/**
 * What Node's HTTP server answers by itself, before any route sees the request, over a raw
 * socket: problem+json like every other error, and the connection closed.
 */
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as raw bytes and reads everything the server sends until it closes. */
async function raw(at: number, request: string | ((s: Socket) => void)): Promise<Raw> {
  const socket = connect(at, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  if (typeof request === 'string') socket.write(request);
  else request(socket);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function expectProblem(r: Raw, status: number, detail: RegExp) {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/problem+json');
  expect(r.headers.connection).toBe('close');
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(body).toMatchObject({ type: 'about:blank', status });
  expect(String(body.title)).not.toBe('');
  expect(String(body.detail)).toMatch(detail);
  expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
}

describe("errors Node's HTTP server answers itself", () => {
  it('headers over 16 KiB: 431 problem+json', async () => {
    const r = await raw(
      port,
      `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectProblem(r, 431, /headers are larger than 16 KiB/);
  });

  it.each([
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
    [
      'a Content-Length that is no number',
      'POST /api/wallets HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n',
    ],
    [
      'both Content-Length and chunked framing',
      'POST /api/wallets HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc',
    ],
    ['a NUL byte in a header value', 'GET /health HTTP/1.1\r\nHost: localhost\r\nX-A: a\u0000b\r\n\r\n'],
  ])('%s: 400 problem+json', async (_what, request) => {
    expectProblem(await raw(port, request), 400, /not well-formed HTTP\/1\.1 \(HPE_/);
  });

  it("a request whose headers come too slowly: 408 problem+json (the service's handler)", async () => {
    // what Node's server does when headersTimeout passes: 'clientError' with this error, on the socket
    const accepted = new Promise<Socket>((resolve) => t.app.server.once('connection', resolve));
    const r = await raw(port, (client) => {
      client.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
      void accepted.then((socket) => {
        const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
        t.app.server.emit('clientError', timeout, socket);
      });
    });
    expectProblem(r, 408, /not received in time/);
  });

  it("a request whose headers come too slowly: 408 problem+json (Node's own timeout)", async () => {
    // Node checks for slow requests every connectionsCheckingInterval (30 s by default); a server
    // with short limits and the same handler shows its real timeout in a second.
    const slow = Fastify({
      clientErrorHandler,
      http: { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 },
    });
    slow.get('/', async () => 'ok');
    await slow.listen({ port: 0, host: '127.0.0.1' });
    try {
      const at = (slow.server.address() as { port: number }).port;
      const r = await raw(at, (s) => s.write('GET / HTTP/1.1\r\nHost: localhost\r\n'));
      expectProblem(r, 408, /not received in time/);
    } finally {
      await slow.close();
    }
  });

  it('the service goes on answering', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });
});
