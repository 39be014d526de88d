import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** A provider's WebSocket server on 127.0.0.1 with a random port. */
export class FakeWsServer {
  readonly received: unknown[] = [];
  connections = 0;
  private handler: (socket: WebSocket, req: IncomingMessage) => void = () => {};

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (socket, req) => {
      this.connections++;
      socket.on('message', (data) => {
        const text = Buffer.isBuffer(data)
          ? data.toString('utf8')
          : Buffer.concat(data as Buffer[]).toString('utf8');
        try {
          this.received.push(JSON.parse(text));
        } catch {
          this.received.push(text);
        }
      });
      this.handler(socket, req);
    });
  }

  static async start(): Promise<FakeWsServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    return new FakeWsServer(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  get clients(): Set<WebSocket> {
    return this.wss.clients;
  }

  onConnection(handler: (socket: WebSocket, req: IncomingMessage) => void): this {
    this.handler = handler;
    return this;
  }

  broadcast(message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    for (const c of this.wss.clients) c.send(text);
  }

  /** Cuts every connection without a close frame, as a network failure would. */
  dropAll(): void {
    for (const c of this.wss.clients) c.terminate();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
