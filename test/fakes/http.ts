import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  json<T = unknown>(): T;
}

export interface FakeReply {
  status?: number;
  /** Serialized as JSON. */
  json?: unknown;
  /** Sent verbatim. */
  text?: string;
  /** Sent verbatim, as JSON: bytes a string cannot hold (not UTF-8). */
  bytes?: Buffer;
  headers?: Record<string, string>;
  /** Waits this long before answering. */
  delayMs?: number;
}

/** What a provider does wrong; applied before routing, so any endpoint can be made to fail. */
export type Fault =
  | { kind: 'status'; status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | { kind: 'rate-limit'; retryAfterSeconds: number; json?: unknown }
  | { kind: 'timeout' }
  | { kind: 'malformed' }
  | { kind: 'drop' }
  /** Answers normally, but only after `ms`: a slow provider. */
  | { kind: 'delay'; ms: number }
  /** Answers normally once `until` settles: a slow provider, for exactly as long as the test needs. */
  | { kind: 'hold'; until: Promise<unknown> };

type Handler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

/**
 * A provider's HTTP server on 127.0.0.1 with a random port: routes answer recorded or generated
 * bodies; faults can be queued for the next requests or set until healed.
 */
export class FakeHttpServer {
  readonly requests: FakeRequest[] = [];
  private readonly routes: { method: string; path: string | RegExp; handler: Handler }[] = [];
  private readonly queued: Fault[] = [];
  private standing: Fault | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly holding = new Set<IncomingMessage>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeHttpServer> {
    const server = createServer();
    const fake = new FakeHttpServer(server);
    server.on('request', (req, res) => void fake.handle(req, res));
    server.on('connection', (s) => {
      fake.sockets.add(s);
      s.on('close', () => fake.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(method: string, path: string | RegExp, handler: Handler | FakeReply): this {
    this.routes.push({ method, path, handler: typeof handler === 'function' ? handler : () => handler });
    return this;
  }

  /** The next `times` requests suffer this fault. */
  failNext(fault: Fault, times = 1): this {
    for (let i = 0; i < times; i++) this.queued.push(fault);
    return this;
  }
  /** Every request suffers this fault until heal(). */
  failAlways(fault: Fault): this {
    this.standing = fault;
    return this;
  }
  heal(): this {
    this.standing = null;
    this.queued.length = 0;
    return this;
  }

  /** Requests held unanswered by a timeout fault whose connection is still open; a cancelled call closes its own. */
  get held(): number {
    return this.holding.size;
  }

  countOf(method: string, path: string | RegExp): number {
    return this.requests.filter((r) => r.method === method && matches(path, r.path)).length;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = Buffer.concat(chunks).toString('utf8');
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: <T>() => JSON.parse(body) as T,
    };
    this.requests.push(request);
    const fault = this.queued.shift() ?? this.standing;
    if (fault?.kind === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
    else if (fault?.kind === 'hold') await fault.until.catch(() => {});
    else if (fault?.kind === 'timeout') {
      this.holding.add(req);
      req.socket.once('close', () => this.holding.delete(req));
      return;
    } else if (fault) return applyFault(fault, req, res);
    const route = this.routes.find((r) => r.method === request.method && matches(r.path, request.path));
    if (!route)
      return send(res, {
        status: 404,
        json: { message: `fake: no route ${request.method} ${request.path}` },
      });
    try {
      const reply = await route.handler(request);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      send(res, reply);
    } catch (e) {
      send(res, { status: 500, json: { message: `fake handler failed: ${(e as Error).message}` } });
    }
  }
}

function matches(pattern: string | RegExp, path: string) {
  return typeof pattern === 'string' ? pattern.toLowerCase() === path.toLowerCase() : pattern.test(path);
}

function send(res: ServerResponse, reply: FakeReply) {
  if (res.destroyed) return;
  const isText = reply.text !== undefined;
  res.writeHead(reply.status ?? 200, {
    'content-type': isText ? 'text/plain' : 'application/json',
    ...reply.headers,
  });
  res.end(reply.bytes ?? (isText ? reply.text : JSON.stringify(reply.json ?? null)));
}

function applyFault(fault: Fault, req: IncomingMessage, res: ServerResponse) {
  switch (fault.kind) {
    case 'status':
      return send(res, {
        status: fault.status,
        json: fault.json ?? { message: 'fault' },
        text: fault.text,
        headers: fault.headers,
      });
    case 'rate-limit':
      return send(res, {
        status: 429,
        json: fault.json ?? { message: 'rate limited' },
        headers: { 'retry-after': String(fault.retryAfterSeconds) },
      });
    case 'malformed':
      return send(res, { status: 200, text: '{"records": [{"truncated": ' });
    case 'drop':
      return req.socket.destroy();
    case 'timeout':
    case 'delay':
    case 'hold':
      // A timeout never answers; the socket is destroyed when the server closes.
      return;
  }
}
