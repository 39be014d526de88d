import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestApp, type TestApp } from './support/app.js';

/** The request timeout bounds ordinary requests; the long-lived streams must outlive it. */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: '1000' } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

describe('streams and the request timeout', () => {
  it('keeps WebSocket and SSE streams open well past REQUEST_TIMEOUT_MS', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/stream/price`);
    let closed = false;
    ws.on('close', () => (closed = true));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const sse = await fetch(`${base}/api/stream/price/sse`);
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    const reader = sse.body!.getReader();
    let ended = false;
    void (async () => {
      while (!(await reader.read()).done);
      ended = true;
    })().catch(() => (ended = true));
    await new Promise((r) => setTimeout(r, 2500));
    expect({ wsOpen: ws.readyState === WebSocket.OPEN && !closed, sseOpen: !ended }).toEqual({
      wsOpen: true,
      sseOpen: true,
    });
    ws.close();
    await reader.cancel();
  });
});
