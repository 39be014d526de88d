import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MemoryRates } from '../../../test/fakes/market-rates.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { btcOnly } from '../../../test/support/services.js';
import { createMarketFeature, marketServiceOf, marketStreamsOf } from './index.js';
import type { MarketStreams } from './streams.js';

let t: TestApp;
let streams: MarketStreams;
let port: number;
const open: { close(): void }[] = [];

beforeAll(async () => {
  t = await startTestApp({
    // the limits count the address TRUST_PROXY makes out: here X-Forwarded-For from loopback
    env: { STREAM_MAX_CLIENTS: '4', STREAM_MAX_PER_ADDRESS: '2', TRUST_PROXY: 'loopback' },
    services: btcOnly((ctx) => {
      const market = marketServiceOf(ctx, { rates: new MemoryRates(null) });
      streams = marketStreamsOf(ctx, market, {
        pingIntervalMs: 150,
        sseKeepAliveMs: 100,
        streamRetryAfterS: 7,
      });
      return [createMarketFeature({ market, streams })];
    }),
  });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(url).port);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t.close();
});

type Refused = { status: number; headers: IncomingMessage['headers']; body: string };

/** A WebSocket from `ip` (as the proxy says), or the HTTP answer that refused the upgrade. */
function ws(path: string, ip: string, opts: { autoPong?: boolean } = {}): Promise<WebSocket | Refused> {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
      headers: { 'x-forwarded-for': ip },
      autoPong: opts.autoPong ?? true,
    });
    s.once('open', () => {
      open.push({ close: () => s.terminate() });
      resolve(s);
    });
    s.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    s.once('error', reject);
  });
}

/** An event stream from `ip`: its status and the raw text received so far. */
function sse(
  ip: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; text: () => string; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/stream/price/sse', headers: { 'x-forwarded-for': ip } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('error', () => {});
        const c = { close: () => req.destroy() };
        open.push(c);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, close: c.close });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const isRefused = (x: WebSocket | Refused): x is Refused => !(x instanceof WebSocket);

describe('stream limits', () => {
  it('refuses a third stream from one address with 429 and Retry-After, WebSocket and SSE alike', async () => {
    const a1 = await ws('/api/stream/price', '10.0.0.1');
    const a2 = await ws('/api/stream/quote', '10.0.0.1');
    expect(isRefused(a1) || isRefused(a2)).toBe(false);
    const a3 = await ws('/api/stream/price', '10.0.0.1');
    expect(isRefused(a3) && a3.status).toBe(429);
    const refused = a3 as Refused;
    expect(refused.headers['retry-after']).toBe('7');
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(refused.body).detail).toMatch(/STREAM_MAX_PER_ADDRESS/);
    const s = await sse('10.0.0.1');
    expect(s.status).toBe(429);
    expect(s.headers['retry-after']).toBe('7');
    expect(streams.limiter.openFrom('10.0.0.1')).toBe(2);
  });

  it('refuses any stream with 503 and Retry-After when the server has all it takes', async () => {
    const b1 = await sse('10.0.0.2');
    expect(b1.status).toBe(200);
    const b2 = await ws('/api/stream/price', '10.0.0.2');
    expect(isRefused(b2)).toBe(false);
    expect(streams.limiter.open).toBe(4);
    const c1 = await ws('/api/stream/price', '10.0.0.3');
    expect(isRefused(c1) && c1.status).toBe(503);
    expect((c1 as Refused).headers['retry-after']).toBe('7');
    expect(JSON.parse((c1 as Refused).body).detail).toMatch(/STREAM_MAX_CLIENTS/);
    const c2 = await sse('10.0.0.3');
    expect(c2.status).toBe(503);

    // a closed stream gives its slot back
    b1.close();
    await waitFor(() => streams.limiter.open === 3, 5_000, 'the slot back');
    const c3 = await sse('10.0.0.3');
    expect(c3.status).toBe(200);
    c3.close();
    (b2 as WebSocket).terminate();
    await waitFor(
      () => streams.limiter.openFrom('10.0.0.2') === 0 && streams.limiter.open === 2,
      5_000,
      'the slots back',
    );
  });

  it('sends an SSE comment line on the keep-alive interval', async () => {
    const s = await sse('10.0.0.4');
    await waitFor(() => (s.text().match(/^: ping$/gm) ?? []).length >= 2, 5_000, 'two keep-alive comments');
    s.close();
  });

  it('pings WebSocket clients, drops one that misses a pong and keeps one that answers', async () => {
    const quiet = await ws('/api/stream/price', '10.0.0.5', { autoPong: false });
    const lively = await ws('/api/stream/price', '10.0.0.6');
    if (isRefused(quiet) || isRefused(lively)) throw new Error('refused');
    let pings = 0;
    lively.on('ping', () => pings++);
    const closed = new Promise<void>((r) => quiet.once('close', () => r()));
    await closed;
    expect(streams.price.unresponsive).toBeGreaterThanOrEqual(1);
    await waitFor(() => pings >= 3, 5_000, 'three pings answered');
    expect(lively.readyState).toBe(WebSocket.OPEN);
    await waitFor(() => streams.limiter.openFrom('10.0.0.5') === 0, 5_000, 'the dropped slot back');
  });
});
