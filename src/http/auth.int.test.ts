import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { btcService } from '../btc/index.js';
import { btcOnly } from '../../test/support/services.js';

const TOKEN = 'auth-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const wrong = { authorization: 'Bearer not-the-token-at-all' };

let t: TestApp;
let proxied: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: { API_TOKEN: TOKEN, AUTH_FAILURE_LIMIT: '3' },
    services: btcOnly(btcService),
  });
  proxied = await startTestApp({
    env: { API_TOKEN: TOKEN, AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: '127.0.0.1', WRITE_RATE_LIMIT: '2' },
    services: btcOnly(btcService),
    db: t.db,
  });
  const feed = t.ctx.health.feed('probe-feed');
  feed.failure(new Error('GET https://user:secret@upstream.example/v1/rates failed'));
});
afterAll(async () => {
  await proxied.close();
  await t.close();
});

const from = (app: TestApp, remoteAddress: string, method: string, url: string, headers = {}) =>
  app.app.inject({ method: method as 'GET', url, remoteAddress, headers });

describe('less to see and to guess: with a token set', () => {
  it('/metrics needs the token: it counts ledger writes', async () => {
    const without = await t.call('GET', '/metrics');
    expect(without.statusCode).toBe(401);
    expect(without.headers['content-type']).toContain('application/problem+json');
    const withToken = await t.call('GET', '/metrics', undefined, auth);
    expect(withToken.statusCode).toBe(200);
    expect(withToken.body).toContain('satwatt_http_request_duration_seconds');
  });

  it('public /health shows the status and each feed’s ok, nothing more', async () => {
    const res = await t.call('GET', '/health');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['feeds', 'status']);
    expect(body.status).toBe('degraded');
    expect(body.feeds['probe-feed']).toEqual({ ok: false });
    for (const feed of Object.values(body.feeds)) expect(Object.keys(feed as object)).toEqual(['ok']);
    expect(res.body).not.toContain('upstream.example');
  });

  it('/health with the token shows errors, the database and details', async () => {
    const res = await t.call('GET', '/health', undefined, auth);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      services: ['btc', 'power'],
      database: { ok: true },
      feeds: { 'probe-feed': { ok: false, enabled: true, failures: 1 } },
    });
    expect(res.json().feeds['probe-feed'].last_error).toContain('upstream.example');
  });

  it('limits wrong-token attempts per address with 429 and Retry-After, then forgets them', async () => {
    const ip = '192.0.2.10';
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await from(t, ip, 'GET', '/api/wallets', wrong)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);
    // Blocked means blocked: the right token from that address waits too, so guessing gains nothing.
    const blocked = await from(t, ip, 'GET', '/api/wallets', auth);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['content-type']).toContain('application/problem+json');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    // A wrong token shown to /health counts as well; another address is not affected.
    expect((await from(t, ip, 'GET', '/health', wrong)).statusCode).toBe(429);
    expect((await from(t, '192.0.2.11', 'GET', '/api/wallets', auth)).statusCode).toBe(200);
    // A missing token is not a guess.
    for (let i = 0; i < 5; i++)
      expect((await from(t, '192.0.2.12', 'GET', '/api/wallets')).statusCode).toBe(401);
    expect((await from(t, '192.0.2.12', 'GET', '/api/wallets', auth)).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await from(t, ip, 'GET', '/api/wallets', auth)).statusCode).toBe(200);
  });

  it('TRUST_PROXY lets the limits see the client behind the proxy, and only then', async () => {
    const behind = (client: string, headers = {}) =>
      from(proxied, '127.0.0.1', 'GET', '/api/wallets', { ...headers, 'x-forwarded-for': client });
    for (let i = 0; i < 3; i++) expect((await behind('198.51.100.1', wrong)).statusCode).toBe(401);
    expect((await behind('198.51.100.1', auth)).statusCode).toBe(429);
    expect((await behind('198.51.100.2', auth)).statusCode).toBe(200);
    // Without TRUST_PROXY the header is ignored: a client cannot pick a fresh address per guess.
    for (let i = 0; i < 3; i++)
      expect(
        (
          await from(t, '192.0.2.20', 'GET', '/api/wallets', {
            ...wrong,
            'x-forwarded-for': `203.0.113.${i}`,
          })
        ).statusCode,
      ).toBe(401);
    expect(
      (await from(t, '192.0.2.20', 'GET', '/api/wallets', { ...auth, 'x-forwarded-for': '203.0.113.99' }))
        .statusCode,
    ).toBe(429);
    // The write limit sees the forwarded client as well.
    let n = 0;
    const write = (client: string) =>
      proxied.app.inject({
        method: 'POST',
        url: '/api/wallets',
        remoteAddress: '127.0.0.1',
        headers: { ...auth, 'x-forwarded-for': client },
        payload: { name: `behind ${client} ${++n}`, wallet_type: 'wallet' },
      });
    expect([(await write('198.51.100.7')).statusCode, (await write('198.51.100.7')).statusCode]).toEqual([
      201, 201,
    ]);
    expect((await write('198.51.100.7')).statusCode).toBe(429);
    expect((await write('198.51.100.8')).statusCode).toBe(201);
  });
});
