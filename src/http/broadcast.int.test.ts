import { systemClock } from '../shared/clock.js';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { sseClient, waitFor, wsClient } from '../../test/fakes/stream-clients.js';
import { Broadcast } from './broadcast.js';

/** A Broadcast behind a real listening socket, as the app serves it. */
async function serve(hub: Broadcast): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => hub.addSse(res));
  const wss = new WebSocketServer({ server });
  wss.on('connection', (s) => hub.addSocket(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('Broadcast', () => {
  it('coalesces a burst into at most one message per interval, the newest winning', async () => {
    const hub = new Broadcast({ minIntervalMs: 200, maxBufferedBytes: 1 << 20 }, systemClock);
    const { url, server } = await serve(hub);
    cleanups.push(() => {
      hub.close();
      server.close();
    });
    const client = await wsClient(url);
    for (let i = 1; i <= 500; i++) hub.publish({ seq: i });
    await client.until<{ seq: number }>((m) => m.seq === 500, 2_000);
    // the first goes out at once, the other 499 collapse into the newest one
    expect(client.messages).toEqual([{ seq: 1 }, { seq: 500 }]);
    client.close();
  });

  it('sends the latest message to a client on connect', async () => {
    const hub = new Broadcast({ minIntervalMs: 0, maxBufferedBytes: 1 << 20 }, systemClock);
    const { url, server } = await serve(hub);
    cleanups.push(() => {
      hub.close();
      server.close();
    });
    hub.publish({ seq: 1 });
    hub.publish({ seq: 2 });
    const late = await wsClient(url);
    await late.until<{ seq: number }>((m) => m.seq === 2);
    expect(late.messages).toEqual([{ seq: 2 }]);
    late.close();
  });

  it('drops a client that stops reading, while the others get every message', async () => {
    const hub = new Broadcast({ minIntervalMs: 0, maxBufferedBytes: 256 * 1024 }, systemClock);
    const { url, server } = await serve(hub);
    cleanups.push(() => {
      hub.close();
      server.close();
    });
    const fast = await wsClient(url);
    const slow = new WebSocket(url);
    await new Promise((r) => slow.once('open', r));
    const slowClosed = new Promise((r) => slow.once('close', r));
    // The slow client's socket stops reading, so the server's send buffer fills up.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    await waitFor(() => hub.clientCount === 2);
    const pad = 'x'.repeat(64 * 1024);
    const total = 300;
    for (let i = 1; i <= total; i++) {
      hub.publish({ seq: i, pad });
      await new Promise((r) => setImmediate(r));
    }
    await fast.until<{ seq: number }>((m) => m.seq === total, 10_000);
    expect(fast.messages).toHaveLength(total);
    expect(hub.dropped).toBe(1);
    expect(hub.clientCount).toBe(1);
    slow.terminate();
    await slowClosed;
    fast.close();
  });

  it('drops an SSE client that stops reading, while a reading one gets every event', async () => {
    const hub = new Broadcast({ minIntervalMs: 0, maxBufferedBytes: 256 * 1024 }, systemClock);
    const { url, server } = await serve(hub);
    cleanups.push(() => {
      hub.close();
      server.close();
    });
    const httpUrl = url.replace('ws', 'http');
    const reader = await sseClient(httpUrl);
    const port = Number(new URL(httpUrl).port);
    const stalled = connect(port, '127.0.0.1');
    stalled.on('error', () => {});
    await new Promise((r) => stalled.once('connect', r));
    stalled.write('GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    stalled.pause();
    await waitFor(() => hub.clientCount === 2);
    const pad = 'y'.repeat(64 * 1024);
    const total = 300;
    for (let i = 1; i <= total; i++) {
      hub.publish({ seq: i, pad });
      await new Promise((r) => setImmediate(r));
    }
    await reader.until<{ seq: number }>((m) => m.seq === total, 10_000);
    expect(reader.messages).toHaveLength(total);
    expect(hub.dropped).toBe(1);
    reader.close();
    stalled.destroy();
  });
});
