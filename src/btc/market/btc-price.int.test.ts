import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRates, RATES_0703 } from '../../../test/fakes/market-rates.js';
import { FakeKraken } from '../../../test/fakes/kraken-ws.js';
import { sseClient, waitFor, wsClient } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { marketOnly } from '../../../test/support/services.js';

let kraken: FakeKraken;
let t: TestApp;
let base: string;
const rates = new MemoryRates(RATES_0703);

interface Price {
  at: string;
  btc_usd: number;
  btc_eur: number;
  btc_dkk: number | null;
  rates: { date: string; usd_eur: number; usd_dkk: number; eur_dkk: number } | null;
}

const spotHealth = async () => (await t.call('GET', '/health')).json().feeds.spot;

beforeAll(async () => {
  kraken = await FakeKraken.start({ heartbeatMs: 100 });
  t = await startTestApp({
    env: { SPOT_FEED_ENABLED: 'true', SPOT_FEED_URL: kraken.url },
    // Reconnects are the subject here; the production budget allows four a minute.
    budgetLimits: { krakenWs: { calls: 30, perMs: 60_000, source: 'test' } },
    services: marketOnly(rates, {
      watchdogMs: 500,
      initialBackoffMs: 20,
      maxBackoffMs: 100,
      storeIntervalMs: 10,
      minIntervalMs: 10,
    }),
  });
  base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
});
afterAll(async () => {
  await t.close();
  await kraken.close();
});

describe('the spot feed and /api/price/latest', () => {
  it('answers 503 with a detail before any price has arrived', async () => {
    const res = await t.call('GET', '/api/price/latest');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toMatch(/no spot price has arrived yet/);
  });

  it('subscribes to the ticker for BTC/USD and BTC/EUR and stores the snapshot, BTC/DKK exact to the cent', async () => {
    await t.startFeeds();
    const body = await waitFor(() => latestWhere(() => true), 5_000, 'a price');
    expect(kraken.ws.received).toContainEqual(
      expect.objectContaining({
        method: 'subscribe',
        params: expect.objectContaining({ channel: 'ticker', symbol: ['BTC/USD', 'BTC/EUR'] }),
      }),
    );
    expect(body.btc_usd).toBe(65000.5);
    expect(body.btc_eur).toBe(60000.1);
    // 60000.1 × 7.460512 is 447631.4660512 exactly and 447631.46605119994 in floating point
    expect(body.btc_dkk).toBe(447631.47);
    expect((await t.call('GET', '/api/price/latest')).body).toContain('"btc_dkk":447631.47,');
    expect(body.rates).toEqual({
      date: '2026-07-03',
      usd_eur: 0.923456,
      usd_dkk: 6.889123,
      eur_dkk: 7.460512,
    });
    expect(await spotHealth()).toMatchObject({ enabled: true, connected: true, ok: true });
  });

  it('pushes the latest price on connect and then every update, over WebSocket and SSE', async () => {
    const ws = await wsClient(`${base}/api/stream/price`);
    const sse = await sseClient(`${base.replace('ws', 'http')}/api/stream/price/sse`);
    try {
      expect(sse.contentType).toContain('text/event-stream');
      await ws.until<Price>((m) => m.btc_eur === 60000.1);
      await sse.until<Price>((m) => m.btc_eur === 60000.1);
      kraken.tick('BTC/EUR', 61000.25, { timestamp: '2026-07-03T10:00:01.123456Z' });
      const pushed = await ws.until<Price>((m) => m.btc_eur === 61000.25);
      expect(pushed.at).toBe('2026-07-03T10:00:01.123Z');
      // 455093.097128 exactly: the same cents on every way out
      expect(pushed.btc_dkk).toBe(455093.1);
      expect((await sse.until<Price>((m) => m.btc_eur === 61000.25)).btc_dkk).toBe(455093.1);
      kraken.tick('BTC/USD', 66000);
      await ws.until<Price>((m) => m.btc_usd === 66000 && m.btc_eur === 61000.25);
      await sse.until<Price>((m) => m.btc_usd === 66000);
    } finally {
      ws.close();
      sse.close();
    }
  });

  it('publishes a new BTC/DKK when the EUR/DKK rate changes', async () => {
    const ws = await wsClient(`${base}/api/stream/price`);
    try {
      rates.set({ ...RATES_0703, date: '2026-07-04', eur_dkk: '7.5' });
      const m = await ws.until<Price>((x) => x.rates?.eur_dkk === 7.5);
      expect(m.btc_dkk).toBe(Number(new Big(m.btc_eur).times('7.5').round(2, Big.roundHalfUp).toFixed(2)));
      // the stream is served before the row is stored; the row follows within moments
      await waitFor(() => latestWhere((p) => p.rates?.date === '2026-07-04'), 5_000, 'the stored row');
    } finally {
      ws.close();
      rates.set(RATES_0703);
    }
  });

  it('skips and counts malformed frames, ignores unknown fields and message types', async () => {
    kraken.send('this is not json');
    kraken.send(JSON.stringify(['a', 'list']));
    kraken.send({ channel: 'ticker', type: 'update', data: [{ symbol: 'BTC/EUR', last: 'abc' }] });
    kraken.send({ channel: 'book', type: 'update', data: [{ symbol: 'BTC/EUR', bids: [] }] });
    kraken.send({ method: 'pong', req_id: 7 });
    kraken.tick('BTC/EUR', 62000.5, { trades: 17, something_new: { nested: true } });
    await waitFor(() => latestWhere((p) => p.btc_eur === 62000.5), 5_000, 'the valid tick');
    expect((await spotHealth()).detail).toBe('malformed messages skipped: 3');
  });

  it('reconnects and resubscribes after a dropped connection', async () => {
    const before = kraken.subscribes;
    const reconnects = (await spotHealth()).reconnects as number;
    kraken.ws.dropAll();
    await waitFor(() => kraken.subscribes > before, 5_000, 'a resubscribe');
    kraken.tick('BTC/USD', 67000);
    await waitFor(() => latestWhere((p) => p.btc_usd === 67000), 5_000, 'a tick after reconnecting');
    const h = await spotHealth();
    expect(h.reconnects).toBeGreaterThan(reconnects);
    expect(h.connected).toBe(true);
  });

  it('treats a silent connection as dead (watchdog) and reconnects', async () => {
    const connections = kraken.ws.connections;
    kraken.silent = true;
    await waitFor(() => kraken.ws.connections >= connections + 2, 5_000, 'reconnect attempts');
    const h = await spotHealth();
    expect(h.last_error).toMatch(/no message for 500 ms/);
    const subscribes = kraken.subscribes;
    kraken.silent = false;
    await waitFor(() => kraken.subscribes > subscribes, 5_000, 'a resubscribe after the silence');
    kraken.tick('BTC/USD', 68000);
    await waitFor(() => latestWhere((p) => p.btc_usd === 68000), 5_000, 'a tick after the silence');
    expect((await spotHealth()).connected).toBe(true);
  });
});

async function latestWhere(pred: (p: Price) => boolean): Promise<Price | undefined> {
  const r = await t.call('GET', '/api/price/latest');
  if (r.statusCode !== 200) return undefined;
  const p = r.json<Price>();
  return pred(p) ? p : undefined;
}
