import type { ServerResponse } from 'node:http';
import WebSocket from 'ws';
import type { Clock } from '../shared/clock.js';

export interface BroadcastOptions {
  /** Updates closer together than this are coalesced into the newest one. */
  minIntervalMs: number;
  /** A client with more than this queued and unsent is too slow and is dropped. */
  maxBufferedBytes: number;
  /** WebSocket clients are pinged this often and dropped when the previous ping got no pong; none when unset. */
  pingIntervalMs?: number;
}

interface Frame {
  ws: Buffer;
  sse: Buffer;
}

/**
 * Fans one stream of JSON messages out to WebSocket and Server-Sent Events clients. Each update
 * is serialized once, whatever the number of clients; bursts are coalesced to at most one send
 * per interval (the newest message wins); a client that cannot keep up is dropped rather than
 * buffered without bound or allowed to delay the others.
 */
export class Broadcast {
  dropped = 0;
  private latestFrame: Frame | null = null;
  private pending: unknown = undefined;
  private timer: NodeJS.Timeout | null = null;
  private lastFlushAt = -Infinity;
  private readonly sockets = new Set<WebSocket>();
  private readonly sse = new Set<ServerResponse>();
  /** Sockets that answered the last ping (or joined since). */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly pinger: NodeJS.Timeout | null;
  /** Sockets dropped for a missed pong. */
  unresponsive = 0;

  constructor(
    private readonly opts: BroadcastOptions,
    private readonly clock: Clock,
  ) {
    this.pinger = opts.pingIntervalMs ? setInterval(() => this.ping(), opts.pingIntervalMs) : null;
    this.pinger?.unref();
  }

  get clientCount(): number {
    return this.sockets.size + this.sse.size;
  }

  publish(message: unknown): void {
    this.pending = message;
    if (this.timer) return;
    const wait = this.lastFlushAt + this.opts.minIntervalMs - this.clock.monotonicMs();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  addSocket(socket: WebSocket): void {
    this.sockets.add(socket);
    this.alive.add(socket);
    socket.on('pong', () => this.alive.add(socket));
    socket.on('close', () => this.sockets.delete(socket));
    // Clients only listen; anything they send is ignored.
    if (this.latestFrame) socket.send(this.latestFrame.ws, { binary: false });
  }

  addSse(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': stream opened\n\n');
    this.sse.add(res);
    res.on('close', () => this.sse.delete(res));
    if (this.latestFrame) res.write(this.latestFrame.sse);
  }

  /** A comment line, so that proxies do not time out an idle event stream. */
  keepAlive(): void {
    for (const res of this.sse) if (res.writableLength < this.opts.maxBufferedBytes) res.write(': ping\n\n');
  }

  /** Drops each socket that did not answer the previous ping, and pings the others. */
  private ping(): void {
    for (const s of this.sockets) {
      if (!this.alive.has(s)) {
        this.unresponsive++;
        this.sockets.delete(s);
        s.terminate();
        continue;
      }
      this.alive.delete(s);
      if (s.readyState === WebSocket.OPEN) s.ping();
    }
  }

  close(): void {
    if (this.pinger) clearInterval(this.pinger);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const s of this.sockets) s.close(1001, 'server stopping');
    for (const res of this.sse) res.end();
    this.sockets.clear();
    this.sse.clear();
  }

  private flush(): void {
    this.timer = null;
    this.lastFlushAt = this.clock.monotonicMs();
    const text = JSON.stringify(this.pending);
    const frame = { ws: Buffer.from(text), sse: Buffer.from(`data: ${text}\n\n`) };
    this.latestFrame = frame;
    for (const s of this.sockets) {
      if (s.readyState !== WebSocket.OPEN) continue;
      if (s.bufferedAmount > this.opts.maxBufferedBytes) {
        this.dropped++;
        this.sockets.delete(s);
        s.terminate();
        continue;
      }
      s.send(frame.ws, { binary: false });
    }
    for (const res of this.sse) {
      if (res.writableLength > this.opts.maxBufferedBytes) {
        this.dropped++;
        this.sse.delete(res);
        res.destroy();
        continue;
      }
      res.write(frame.sse);
    }
  }
}
