import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeStrike, STRIKE_KEY, strikeTicker } from '../../../test/fakes/strike.js';
import { waitFor, wsClient } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { MemoryRates } from '../../../test/fakes/market-rates.js';
import { marketOnly } from '../../../test/support/services.js';
import type { MarketOptions } from './service.js';

const TOKEN = 'test-token-quotes-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

let strike: FakeStrike;
beforeAll(async () => {
  strike = await FakeStrike.start();
});
afterAll(() => strike.close());

async function app(env: Record<string, string>, opts: Partial<MarketOptions> = {}) {
  const started = await startTestApp({
    now: '2026-07-03T21:30:00Z',
    env: { API_TOKEN: TOKEN, QUOTE_FEED_URL: strike.url, ...env },
    services: marketOnly(new MemoryRates(null), { intervalMs: 60_000, rateLimitBackoffMs: 1_000, ...opts }),
  });
  // the broker stamps its quotes by the test's clock
  strike.now = () => started.clock.now();
  return started;
}

const on = { QUOTE_FEED_ENABLED: 'true', STRIKE_API_KEY: STRIKE_KEY };

describe('the quote feed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app(on);
  });
  afterAll(() => t.close());

  it('answers 503 before any quote exists', async () => {
    const res = await t.call('GET', '/api/quote/latest');
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/no quote has been obtained yet/);
  });

  it('POST /api/quote needs the token', async () => {
    expect((await t.call('POST', '/api/quote')).statusCode).toBe(401);
  });

  it('learns the fee from an INCLUSIVE quote, then quotes the pre-fee amount EXCLUSIVE; exact numbers', async () => {
    strike.quotes.length = 0;
    const res = await t.call('POST', '/api/quote', undefined, auth);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    // 55 − 0.55 = 54.45 EUR at 60000 EUR/BTC = 0.00090750 BTC
    expect(body).toMatchObject({ total_eur: 55, fee_eur: 0.55, pre_fee_eur: 54.45, quote_sats: 90_750 });
    // the broker's ticker, whole, in the API's snake_case
    expect(body.rates).toEqual(
      strikeTicker('65000', '60000').map((r) => ({
        amount: r.amount,
        source_currency: r.sourceCurrency,
        target_currency: r.targetCurrency,
      })),
    );
    expect(strike.quotes.map((q) => q.body)).toEqual([
      { sell: 'EUR', buy: 'BTC', amount: { amount: '55', currency: 'EUR', feePolicy: 'INCLUSIVE' } },
      { sell: 'EUR', buy: 'BTC', amount: { amount: '54.45', currency: 'EUR', feePolicy: 'EXCLUSIVE' } },
    ]);
    for (const q of strike.quotes)
      expect(q.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(strike.quotes.map((q) => q.key)).size).toBe(2);
    expect((await t.call('GET', '/api/quote/latest')).json()).toEqual(body);
  });

  it('keeps the fee for the Danish day and learns it again on the next one', async () => {
    strike.quotes.length = 0;
    strike.flatFee = '0.75';
    await t.call('POST', '/api/quote', undefined, auth);
    expect(strike.quotes.map((q) => q.body.amount.feePolicy)).toEqual(['EXCLUSIVE']);
    // 21:30Z + 1 h = 00:30 in Copenhagen (summer time): a new Danish day
    t.clock.advance(60 * 60_000);
    strike.eurPerBtc = '50000';
    const body = (await t.call('POST', '/api/quote', undefined, auth)).json();
    expect(strike.quotes.map((q) => q.body.amount.feePolicy)).toEqual([
      'EXCLUSIVE',
      'INCLUSIVE',
      'EXCLUSIVE',
    ]);
    // 55 − 0.75 = 54.25 EUR at 50000 = 0.00108500 BTC
    expect(body).toMatchObject({
      fee_eur: 0.75,
      pre_fee_eur: 54.25,
      quote_sats: 108_500,
      at: '2026-07-03T22:30:00.000Z',
    });
  });

  it('pushes each quote to /api/stream/quote clients, the latest on connect', async () => {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    const ws = await wsClient(`${base}/api/stream/quote`);
    try {
      await ws.until((m) => m.quote_sats === 108_500);
      strike.eurPerBtc = '40000';
      await t.call('POST', '/api/quote', undefined, auth);
      // 54.25 / 40000 = 0.00135625 BTC
      await ws.until((m) => m.quote_sats === 135_625);
    } finally {
      ws.close();
    }
  });

  it('answers 503 naming the provider on a 429, then stays away for the back-off', async () => {
    const before = strike.http.requests.length;
    strike.http.failNext({ kind: 'rate-limit', retryAfterSeconds: 2 });
    const first = await t.call('POST', '/api/quote', undefined, auth);
    expect(first.statusCode).toBe(503);
    expect(first.json().detail).toMatch(/strike/);
    const second = await t.call('POST', '/api/quote', undefined, auth);
    expect(second.statusCode).toBe(503);
    expect(second.headers['retry-after']).toBe('2');
    expect(strike.http.requests.length).toBe(before + 1);
  });

  it('answers 502 on a malformed answer and writes nothing', async () => {
    await new Promise((r) => setTimeout(r, 2_100));
    const latest = (await t.call('GET', '/api/quote/latest')).json();
    strike.http.failNext({ kind: 'malformed' });
    const res = await t.call('POST', '/api/quote', undefined, auth);
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toMatch(/strike/);
    expect((await t.call('GET', '/api/quote/latest')).json()).toEqual(latest);
  });
});

describe('the quote poller', () => {
  it('polls every interval, backs off on 429 and recovers', async () => {
    const t = await app(on, { intervalMs: 100, maxBackoffMs: 5_000, rateLimitBackoffMs: 800 });
    try {
      const ticker = () => strike.http.countOf('GET', '/v1/rates/ticker');
      const start = ticker();
      await t.startFeeds();
      await waitFor(() => ticker() >= start + 3, 5_000, 'three polls');
      strike.http.failAlways({
        kind: 'status',
        status: 429,
        json: { data: { status: 429, code: 'RATE_LIMIT_EXCEEDED' } },
      });
      const limitedAt = strike.http.requests.length;
      await new Promise((r) => setTimeout(r, 700));
      // one request hit the 429; the poller then waits 800 ms instead of polling every 100 ms
      expect(strike.http.requests.length - limitedAt).toBeLessThanOrEqual(1);
      strike.http.heal();
      const healed = ticker();
      await waitFor(() => ticker() >= healed + 2, 5_000, 'polls after the back-off');
      const health = (await t.call('GET', '/health', undefined, auth)).json().feeds.quote;
      expect(health).toMatchObject({ enabled: true, ok: true });
      expect(health.last_error).toMatch(/HTTP 429/);
    } finally {
      await t.close();
      strike.http.heal();
    }
  });

  it('is off without an API key, says so in /health, and POST /api/quote answers 503', async () => {
    const t = await app({ QUOTE_FEED_ENABLED: 'true' });
    try {
      const before = strike.http.requests.length;
      await t.startFeeds();
      const health = (await t.call('GET', '/health', undefined, auth)).json().feeds.quote;
      expect(health).toMatchObject({ enabled: false, detail: 'off: STRIKE_API_KEY is not set' });
      const res = await t.call('POST', '/api/quote', undefined, auth);
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toBe('the quote feed is off: STRIKE_API_KEY is not set');
      expect(strike.http.requests.length).toBe(before);
    } finally {
      await t.close();
    }
  });
});
