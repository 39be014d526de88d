import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';

/**
 * Wallet names are text a person typed: what PostgreSQL cannot store, what it would store as
 * another name, and what looks like another name are refused with a 400 naming the field; names
 * are compared in Unicode NFC. On PGlite, and on the server with TEST_DATABASE_URL.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ services: ledgerOnly(fakeRates()) });
});
afterAll(() => t.close());

/** The body as JSON text, so that a lone surrogate reaches the service as the escape a client sends. */
const raw = (name: string) => JSON.stringify({ name, wallet_type: 'wallet' });
const create = (name: string) => t.call('POST', '/api/wallets', raw(name));
const names = async () => (await t.call('GET', '/api/wallets')).json<{ name: string }[]>().map((w) => w.name);

describe('wallet names', () => {
  it.each([
    ['a NUL byte', 'Cold\u0000storage', /body\.name: must not contain NUL \(U\+0000\)/],
    [
      'a lone high surrogate',
      'Cold \ud800',
      /body\.name: must not contain an unpaired UTF-16 surrogate \(U\+D800\)/,
    ],
    [
      'a lone low surrogate',
      '\udc00 Cold',
      /body\.name: must not contain an unpaired UTF-16 surrogate \(U\+DC00\)/,
    ],
    [
      'a zero-width space',
      'Cold\u200bcard',
      /body\.name: must not contain the control or invisible character U\+200B/,
    ],
    ['a zero-width joiner', 'Tre\u200dzor', /U\+200D/],
    ['a right-to-left override', 'Paper \u202ewallet', /U\+202E/],
    ['a byte-order mark', '\ufeffKraken', /U\+FEFF/],
    ['a newline', 'Cold\nstorage', /U\+000A/],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, name, detail) => {
    const before = await names();
    const res = await create(name);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toMatch(detail);
    expect(await names()).toEqual(before);
  });

  it('refuses the same on a rename', async () => {
    const id = (await create('Rename me')).json<{ id: number }>().id;
    const res = await t.call('PATCH', `/api/wallets/${id}`, JSON.stringify({ name: 'Re\u0000named' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/body\.name: must not contain NUL/);
  });

  it('keeps a well-formed pair, accents and scripts', async () => {
    for (const name of ['Hardware 🔐', 'Ærø Sparekasse', 'Кошелёк', '冷钱包'])
      expect((await create(name)).statusCode).toBe(201);
  });

  it('compares names in Unicode NFC: "é" as one character or as e and an accent is one name', async () => {
    const composed = 'Caf\u00e9 wallet';
    const decomposed = 'Cafe\u0301 wallet';
    const first = await create(decomposed);
    expect(first.statusCode).toBe(201);
    expect(first.json().name).toBe(composed);
    const again = await create(composed);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/name: a wallet named/);
    expect((await names()).filter((n) => n.startsWith('Caf'))).toEqual([composed]);
  });
});
