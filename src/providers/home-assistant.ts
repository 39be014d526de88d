import { Type } from 'typebox';
import WebSocket from 'ws';
import { answer } from './answer.js';

const HA = 'home-assistant';

/** Home Assistant refused the token (`auth_invalid`): the same token will be refused again. */
export class HaAuthInvalid extends Error {
  constructor(readonly reason: string) {
    super(`Home Assistant refused the token (auth_invalid: ${reason})`);
    this.name = 'HaAuthInvalid';
  }
}

/** A command Home Assistant answered with an error result. */
export class HaCommandError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`Home Assistant refused the command (${code}: ${detail})`);
    this.name = 'HaCommandError';
  }
}

/** No connection, a lost one, or no answer in time: worth trying again later. */
export class HaUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HaUnreachable';
  }
}

/** `http://host:8123` (or with a path, behind a proxy) → `ws://host:8123/api/websocket`. */
export function websocketUrl(base: string): string {
  const u = new URL(base);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/websocket`;
  u.search = '';
  u.hash = '';
  return u.toString();
}

export interface HaConnectOptions {
  /** Home Assistant's base URL (HA_URL) */
  url: string;
  /** A long-lived access token; sent in the auth message only, never shown. */
  token: string;
  /** For the connection and the auth phase together, and for each command's answer. */
  timeoutMs: number;
  /** Largest message taken from Home Assistant. */
  maxBytes: number;
  signal: AbortSignal;
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** A frame's text, however ws hands it over. */
export function frameText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** The messages of Home Assistant's WebSocket API that are read; any other is passed over. */
const Messages = {
  authRequired: answer(HA, Type.Object({ type: Type.Literal('auth_required') })),
  authInvalid: answer(
    HA,
    Type.Object({ type: Type.Literal('auth_invalid'), message: Type.Optional(Type.String()) }),
  ),
  authOk: answer(
    HA,
    Type.Object({ type: Type.Literal('auth_ok'), ha_version: Type.Optional(Type.String()) }),
  ),
  /** A command's answer, by its id: its result, or an error with a code and a message. */
  result: answer(
    HA,
    Type.Object({
      type: Type.Literal('result'),
      id: Type.Number(),
      success: Type.Boolean(),
      result: Type.Optional(Type.Unknown()),
      error: Type.Optional(
        Type.Object({ code: Type.Optional(Type.String()), message: Type.Optional(Type.String()) }),
      ),
    }),
  ),
};

/**
 * One authenticated connection to Home Assistant's WebSocket API: `auth_required`, our `auth`,
 * then `auth_ok` (or `auth_invalid` and the socket closed); afterwards commands numbered from 1,
 * each answered by a `result` with its id. It does not reconnect: its owner opens another.
 */
export class HaConnection {
  /** Messages sent on this connection, the auth message included. */
  sent = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private lost: HaUnreachable | null = null;

  private constructor(
    private readonly socket: WebSocket,
    readonly haVersion: string,
    private readonly timeoutMs: number,
  ) {
    socket.on('message', (data) => this.heard(frameText(data)));
    socket.on('close', () => this.fail(new HaUnreachable('Home Assistant closed the connection')));
    socket.on('error', (e) => this.fail(new HaUnreachable(`connection to Home Assistant: ${e.message}`)));
  }

  /** Connects and authenticates, within `timeoutMs`; an abort of `signal` ends it at once. */
  static open(opts: HaConnectOptions): Promise<HaConnection> {
    const url = websocketUrl(opts.url);
    return new Promise((resolve, reject) => {
      if (opts.signal.aborted) return reject(new HaUnreachable('stopped'));
      const socket = new WebSocket(url, {
        maxPayload: opts.maxBytes,
        handshakeTimeout: opts.timeoutMs,
        followRedirects: false,
      });
      let refused: string | null = null;
      let settled = false;
      const finish = (e: Error | null, conn?: HaConnection) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', onAbort);
        socket.off('message', onMessage);
        socket.off('close', onClose);
        socket.off('error', onError);
        if (e) {
          socket.on('error', () => {});
          socket.terminate();
          reject(e);
        } else resolve(conn!);
      };
      const timer = setTimeout(
        () => finish(new HaUnreachable(`no answer from Home Assistant within ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
      const onAbort = () => finish(new HaUnreachable('stopped'));
      const onError = (e: Error) => finish(new HaUnreachable(`connection to Home Assistant: ${e.message}`));
      const onClose = () =>
        finish(
          refused !== null
            ? new HaAuthInvalid(refused)
            : new HaUnreachable('Home Assistant closed the connection before authenticating it'),
        );
      let sent = 0;
      const onMessage = (data: WebSocket.RawData) => {
        let msg: unknown;
        try {
          msg = JSON.parse(frameText(data));
        } catch {
          return finish(new HaUnreachable('Home Assistant sent a message that is not JSON'));
        }
        if (Messages.authRequired.is(msg)) {
          socket.send(JSON.stringify({ type: 'auth', access_token: opts.token }));
          sent++;
        } else if (Messages.authInvalid.is(msg)) {
          refused = msg.message?.slice(0, 200) ?? 'no reason given';
          finish(new HaAuthInvalid(refused));
        } else if (Messages.authOk.is(msg)) {
          const conn = new HaConnection(socket, msg.ha_version ?? 'unknown', opts.timeoutMs);
          conn.sent = sent;
          finish(null, conn);
        }
      };
      opts.signal.addEventListener('abort', onAbort, { once: true });
      socket.on('message', onMessage);
      socket.on('close', onClose);
      socket.on('error', onError);
    });
  }

  /** Sends a command and waits for its result; an error result rejects with HaCommandError. */
  command<T = unknown>(body: Record<string, unknown>): Promise<T> {
    if (this.lost) return Promise.reject(this.lost);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(
          new HaUnreachable(`no answer from Home Assistant to command ${id} within ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject, timer });
      this.socket.send(JSON.stringify({ id, ...body }));
      this.sent++;
    });
  }

  /** Closes the connection (a close frame, the socket ended a second later whatever comes); whatever waits is rejected. */
  close(): void {
    this.fail(new HaUnreachable('closed'), true);
  }

  private heard(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    // Home Assistant may coalesce messages into one array (a feature a client asks for)
    for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!Messages.result.is(msg)) continue;
      const p = this.pending.get(msg.id);
      if (!p) continue;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.success) p.resolve(msg.result);
      else
        p.reject(
          new HaCommandError(msg.error?.code ?? 'unknown_error', msg.error?.message?.slice(0, 500) ?? ''),
        );
    }
  }

  private fail(e: HaUnreachable, gently = false): void {
    if (this.lost) return;
    this.lost = e;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
    this.socket.on('error', () => {});
    if (!gently || this.socket.readyState !== WebSocket.OPEN) return this.socket.terminate();
    this.socket.close(1000);
    setTimeout(() => this.socket.terminate(), 1_000).unref();
  }
}
