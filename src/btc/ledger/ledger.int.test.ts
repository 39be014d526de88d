import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates, ratesFor } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';

const TOKEN = 'ledger-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const asked: string[] = [];
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    env: { API_TOKEN: TOKEN },
    services: ledgerOnly(fakeRates(asked)),
  });
});
afterAll(() => t.close());

const get = async (url: string) => (await t.call('GET', url, undefined, auth)).json();
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  t.call('POST', url, body, { ...auth, ...headers });

describe('wallets', () => {
  it('documents every ledger path in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/wallets',
        '/api/wallets/{id}',
        '/api/events',
        '/api/events/{id}',
        '/api/deposits',
        '/api/deposits/totals',
        '/api/deposits/rebuild',
        '/api/buys',
        '/api/buys/rebuild',
      ]),
    );
  });

  it('starts with three exchanges and four cold wallets, balance 0', async () => {
    const all = await get('/api/wallets');
    expect(all).toHaveLength(7);
    expect(all.every((w: { balance: number }) => w.balance === 0)).toBe(true);
    expect(await get('/api/wallets?type=exchange')).toHaveLength(3);
    expect(await get('/api/wallets?type=wallet')).toHaveLength(4);
    const bad = await t.call('GET', '/api/wallets?type=bank', undefined, auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/querystring\.type/);
  });

  it('needs the token to read', async () => {
    expect((await t.call('GET', '/api/wallets')).statusCode).toBe(401);
    expect((await t.call('GET', '/api/events')).statusCode).toBe(401);
    expect((await t.call('GET', '/api/deposits')).statusCode).toBe(401);
    expect((await t.call('GET', '/api/buys')).statusCode).toBe(401);
  });

  it('creates, renames and deletes a wallet; a duplicate name is 409', async () => {
    const made = await post('/api/wallets', { name: 'Spare', wallet_type: 'wallet' });
    expect(made.statusCode).toBe(201);
    const { id } = made.json();
    expect(made.json()).toEqual({ id, name: 'Spare', wallet_type: 'wallet', balance: 0, owner: 'household' });
    expect((await post('/api/wallets', { name: 'Spare', wallet_type: 'wallet' })).statusCode).toBe(409);
    const renamed = await t.call('PATCH', `/api/wallets/${id}`, { name: 'Spare 2' }, auth);
    expect(renamed.json().name).toBe('Spare 2');
    expect((await t.call('DELETE', `/api/wallets/${id}`, undefined, auth)).statusCode).toBe(204);
    expect((await t.call('GET', `/api/wallets/${id}`, undefined, auth)).statusCode).toBe(404);
  });
});

describe('events', () => {
  let exchange: number;
  let cold: number;
  let cold2: number;
  beforeAll(async () => {
    exchange = (await get('/api/wallets?type=exchange'))[0].id;
    [cold, cold2] = (await get('/api/wallets?type=wallet')).map((w: { id: number }) => w.id);
  });

  it('records a deposit with the amount converted at the rates of its date', async () => {
    const res = await post('/api/events', {
      type: 'bank_to_exchange',
      occurred_at: '2026-03-14',
      wallet: exchange,
      amount: '1000.50',
      currency: 'DKK',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      type: 'bank_to_exchange',
      occurred_at: '2026-03-14',
      amount: '1000.50',
    });
    expect(asked).toContain('2026-03-14');
    const r = ratesFor('2026-03-14');
    const deposit = (await get('/api/deposits?from=2026-03-14&to=2026-03-14')).items[0];
    expect(deposit).toMatchObject({
      event_id: res.json().id,
      wallet: exchange,
      currency: 'DKK',
      amount: '1000.50',
    });
    // Every fiat amount is answered as an exact decimal string.
    expect(deposit.amount_eur).toBe(new Big('1000.50').div(r.eur_dkk).round(2).toFixed(2));
    expect(deposit.amount_usd).toBe(new Big('1000.50').div(r.usd_dkk).round(2).toFixed(2));
    expect(deposit.amount_dkk).toBe('1000.50');
    const totals = await get('/api/deposits/totals');
    expect(totals).toContainEqual({ wallet: exchange, currency: 'DKK', amount: '1000.50' });
  });

  it('validates each type: exchange required, positive sats, known currency, real date, own fields', async () => {
    const base = {
      type: 'exchange_to_wallet',
      occurred_at: '2026-03-15',
      from_wallet: exchange,
      to_wallet: cold,
    };
    const cases: [unknown, number, RegExp][] = [
      [
        { ...base, sats: 1000, fee_sats: 0, amount: 10, currency: 'EUR', from_wallet: cold },
        422,
        /from_wallet.*not an exchange/,
      ],
      [{ ...base, sats: 0, fee_sats: 0, amount: 10, currency: 'EUR' }, 400, /body\.sats/],
      [{ ...base, sats: 1.5, fee_sats: 0, amount: 10, currency: 'EUR' }, 400, /body\.sats/],
      [{ ...base, sats: 10, fee_sats: -1, amount: 10, currency: 'EUR' }, 400, /body\.fee_sats/],
      [{ ...base, sats: 10, fee_sats: 0, amount: 10, currency: 'SEK' }, 400, /body\.currency/],
      [{ ...base, sats: 10, fee_sats: 0, amount: '-3', currency: 'EUR' }, 400, /body\.amount/],
      [{ ...base, sats: 10, fee_sats: 0, amount: '0.00', currency: 'EUR' }, 400, /body\.amount/],
      [
        { ...base, sats: 10, fee_sats: 0, amount: 10, currency: 'EUR', occurred_at: '2026-02-30' },
        400,
        /body\.occurred_at/,
      ],
      [
        { ...base, sats: 10, fee_sats: 0, amount: 10, currency: 'EUR', occurred_at: '2099-01-01' },
        400,
        /occurred_at.*future/,
      ],
      [{ ...base, sats: 10, fee_sats: 0, amount: 10 }, 400, /body\.currency: required/],
      [
        { ...base, sats: 10, fee_sats: 0, amount: 10, currency: 'EUR', wallet: exchange },
        400,
        /body\.wallet: not a field/,
      ],
      [
        {
          type: 'wallet_to_wallet',
          occurred_at: '2026-03-15',
          from_wallet: cold,
          to_wallet: cold,
          sats: 1,
          fee_sats: 0,
        },
        422,
        /two different/,
      ],
      [
        { ...base, to_wallet: 9999, sats: 10, fee_sats: 0, amount: 10, currency: 'EUR' },
        422,
        /no wallet 9999/,
      ],
      [
        { type: 'wallet_to_wallet', from_wallet: cold, to_wallet: cold2, sats: 1, fee_sats: 0 },
        400,
        /occurred_at/,
      ],
    ];
    cases.push([
      { ...base, to_wallet: 3_000_000_000, sats: 1, fee_sats: 0, amount: 1, currency: 'EUR' },
      400,
      /body\.to_wallet/,
    ]);
    expect((await t.call('GET', '/api/wallets/3000000000', undefined, auth)).statusCode).toBe(400);
    const before = await get('/api/events?limit=1000');
    for (const [body, status, detail] of cases) {
      const res = await post('/api/events', body);
      expect({ status: res.statusCode, body }).toEqual({ status, body });
      expect(res.json().detail).toMatch(detail);
    }
    expect(await get('/api/events?limit=1000')).toEqual(before);
  });

  it('moves sats, refuses to go below zero with the shortfall, and keeps balances on replace and delete', async () => {
    const buy = await post('/api/events', {
      type: 'exchange_to_wallet',
      occurred_at: '2026-04-01',
      from_wallet: exchange,
      to_wallet: cold,
      sats: 100_000,
      fee_sats: 500,
      amount: '55',
      currency: 'EUR',
    });
    expect(buy.statusCode).toBe(201);
    const over = await post('/api/events', {
      type: 'wallet_to_wallet',
      occurred_at: '2026-04-02',
      from_wallet: cold,
      to_wallet: cold2,
      sats: 99_900,
      fee_sats: 200,
    });
    expect(over.statusCode).toBe(409);
    expect(over.json().detail).toMatch(/100 sats below zero/);
    const move = await post('/api/events', {
      type: 'wallet_to_wallet',
      occurred_at: '2026-04-02',
      from_wallet: cold,
      to_wallet: cold2,
      sats: 60_000,
      fee_sats: 200,
    });
    expect(move.statusCode).toBe(201);
    const balance = async (id: number) => (await get(`/api/wallets/${id}`)).balance;
    expect([await balance(cold), await balance(cold2)]).toEqual([39_800, 60_000]);
    expect((await t.call('DELETE', `/api/wallets/${cold}`, undefined, auth)).statusCode).toBe(409);

    // Shrinking the buy below what was moved on would leave the cold wallet negative.
    const shrink = await t.call(
      'PUT',
      `/api/events/${buy.json().id}`,
      {
        type: 'exchange_to_wallet',
        occurred_at: '2026-04-01',
        from_wallet: exchange,
        to_wallet: cold,
        sats: 50_000,
        fee_sats: 500,
        amount: '55',
        currency: 'EUR',
      },
      auth,
    );
    expect(shrink.statusCode).toBe(409);
    expect(shrink.json().detail).toMatch(/10200 sats below zero/);
    expect((await t.call('DELETE', `/api/events/${buy.json().id}`, undefined, auth)).statusCode).toBe(409);

    const grow = await t.call(
      'PUT',
      `/api/events/${buy.json().id}`,
      {
        type: 'exchange_to_wallet',
        occurred_at: '2026-04-01',
        from_wallet: exchange,
        to_wallet: cold,
        sats: 150_000,
        fee_sats: 500,
        amount: '80',
        currency: 'USD',
      },
      auth,
    );
    expect(grow.statusCode).toBe(200);
    expect(await balance(cold)).toBe(89_800);
    const buys = (await get('/api/buys?from=2026-04-01&to=2026-04-01')).items;
    expect(buys).toEqual([
      {
        id: buy.json().id,
        event_id: buy.json().id,
        occurred_at: '2026-04-01',
        wallet: exchange,
        sats: 150_000,
        fee_sats: 500,
        amount_eur: new Big(80).times(ratesFor('2026-04-01').usd_eur).round(2).toFixed(2),
      },
    ]);
    expect((await t.call('DELETE', `/api/events/${move.json().id}`, undefined, auth)).statusCode).toBe(204);
    expect([await balance(cold), await balance(cold2)]).toEqual([150_000, 0]);
    expect((await t.call('GET', `/api/events/${move.json().id}`, undefined, auth)).statusCode).toBe(404);
  });

  it('answers a replayed Idempotency-Key with the first answer, and 422 for another body', async () => {
    const body = {
      type: 'bank_to_exchange',
      occurred_at: '2026-05-05',
      wallet: exchange,
      amount: 20,
      currency: 'USD',
    };
    const key = { 'idempotency-key': `k-${Math.random()}` };
    const first = await post('/api/events', body, key);
    const again = await post(
      '/api/events',
      { currency: 'USD', amount: 20, wallet: exchange, occurred_at: '2026-05-05', type: 'bank_to_exchange' },
      key,
    );
    expect(first.statusCode).toBe(201);
    expect([again.statusCode, again.json()]).toEqual([201, first.json()]);
    const other = await post('/api/events', { ...body, amount: 21 }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().detail).toMatch(/Idempotency-Key/);
    expect((await get('/api/deposits?from=2026-05-05&to=2026-05-05')).items).toHaveLength(1);
  });

  it('pages by occurred_at then id with an opaque cursor', async () => {
    for (const d of ['2026-01-03', '2026-01-01', '2026-01-02', '2026-01-01'])
      await post('/api/events', {
        type: 'bank_to_exchange',
        occurred_at: d,
        wallet: exchange,
        amount: 1,
        currency: 'EUR',
      });
    const all = (await get('/api/events?limit=1000')).items;
    const seen = [];
    let cursor: string | null = null;
    do {
      const page: { items: unknown[]; next_cursor: string | null } = await get(
        `/api/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    const keys = all.map((e: { occurred_at: string; id: number }) => [e.occurred_at, e.id]);
    expect(keys).toEqual([...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])));
    const filtered = (
      await get(`/api/events?type=wallet_to_wallet&wallet=${cold}&from=2026-01-01&to=2026-12-31`)
    ).items;
    expect(filtered.every((e: { type: string }) => e.type === 'wallet_to_wallet')).toBe(true);
    const bad = await t.call('GET', '/api/events?cursor=not-a-cursor', undefined, auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/cursor/);
  });

  it('rebuilds the read tables to exactly what the writes kept', async () => {
    const deposits = await get('/api/deposits?limit=1000');
    const buys = await get('/api/buys?limit=1000');
    expect(deposits.next_cursor).toBeNull();
    expect((await post('/api/deposits/rebuild', undefined)).json()).toEqual({
      rebuilt: deposits.items.length,
    });
    expect((await post('/api/buys/rebuild', undefined)).json()).toEqual({ rebuilt: buys.items.length });
    expect(await get('/api/deposits?limit=1000')).toEqual(deposits);
    expect(await get('/api/buys?limit=1000')).toEqual(buys);
  });
});
