import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { btcService } from '../btc/index.js';
import { btcOnly } from '../../test/support/services.js';

/** Without API_TOKEN: what a web page elsewhere could make the user's browser send. */
let open: TestApp;
let guarded: TestApp;
let base: string;
const TOKEN = 'open-mode-test-token-0123';
beforeAll(async () => {
  open = await startTestApp({
    env: { CORS_ORIGINS: 'https://dashboard.example' },
    services: btcOnly(btcService),
  });
  guarded = await startTestApp({
    env: { API_TOKEN: TOKEN },
    services: btcOnly(btcService),
    db: open.db,
  });
  base = await open.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await guarded.close();
  await open.close();
});

const wallets = async () => (await open.call('GET', '/api/wallets')).json<unknown[]>().length;

function expectForbidden(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(403);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  expect((res.json() as { title: string }).title).toBe('Forbidden');
}

describe('a safe open mode: without API_TOKEN, refuse what a page elsewhere could send', () => {
  it.each([
    'localhost',
    'localhost:3030',
    'LOCALHOST:80',
    'app.localhost:3030',
    '127.0.0.1',
    '127.1.2.3:3030',
    '[::1]:3030',
    '[::1]',
  ])('answers a request addressed to the loopback name %s', async (host) => {
    expect((await open.call('GET', '/health', undefined, { host })).statusCode).toBe(200);
  });

  it.each([
    'rebind.example',
    'rebind.example:3030',
    '10.0.0.7:3030',
    '127.0.0.1.nip.io',
    '[::2]:3030',
    'localhost.evil.example',
  ])(
    'refuses with 403 a request whose Host %s is not loopback (DNS rebinding), reads included',
    async (host) => {
      expectForbidden(await open.call('GET', '/api/wallets', undefined, { host }));
      expectForbidden(await open.call('GET', '/health', undefined, { host }));
    },
  );

  it('refuses a rebound Host on a real socket too', async () => {
    const port = new URL(base).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/api/wallets', headers: { host: `rebind.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject).end();
    });
    expect(status).toBe(403);
    expect((await fetch(`${base}/api/wallets`)).status).toBe(200);
  });

  it('refuses a cross-site write, text/plain included, and writes nothing', async () => {
    const before = await wallets();
    const body = JSON.stringify({ name: 'planted by a web page', wallet_type: 'wallet' });
    for (const headers of [
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      { origin: 'https://evil.example', 'content-type': 'application/json' },
      { origin: 'null', 'content-type': 'text/plain' },
      { origin: 'http://localhost.evil.example:3030', 'content-type': 'application/json' },
      { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
    ] as Record<string, string>[])
      expectForbidden(await open.call('POST', '/api/wallets', body, headers));
    expect(await wallets()).toBe(before);
  });

  it('lets writes through from loopback pages, listed origins, same-site and non-browser callers', async () => {
    let n = 0;
    const create = (headers: Record<string, string>) =>
      open.call('POST', '/api/wallets', { name: `local ${++n}`, wallet_type: 'wallet' }, headers);
    for (const headers of [
      {},
      { origin: 'http://localhost:3030' },
      { origin: 'http://127.0.0.1:5173' },
      { origin: 'http://[::1]:3030' },
      { origin: 'https://dashboard.example' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
    ] as Record<string, string>[])
      expect((await create(headers)).statusCode, JSON.stringify(headers)).toBe(201);
  });

  it('is off when API_TOKEN is set: the token is the guard then', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await guarded.call('GET', '/health', undefined, { host: 'satwatt.example' })).statusCode).toBe(
      200,
    );
    const res = await guarded.call(
      'POST',
      '/api/wallets',
      { name: 'from my dashboard', wallet_type: 'wallet' },
      { ...auth, host: 'satwatt.example', origin: 'https://elsewhere.example' },
    );
    expect(res.statusCode).toBe(201);
  });
});
