import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';
import { suggest } from '../chain/match.js';

/** The event types of buys and sells kept on an exchange and of sats to and from outside, through the HTTP API. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ now: '2026-06-30T10:00:00Z', services: ledgerOnly(fakeRates()) });
});
afterAll(() => t.close());

// The fresh database's wallets: 1 Kraken, 2 Strike (exchanges), 4 Trezor, 7 Paper wallet.
const [KRAKEN, STRIKE, TREZOR, PAPER] = [1, 2, 4, 7];
const post = (body: unknown, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/events', body, headers);
const get = async <T>(url: string) => (await t.call('GET', url)).json<T>();
const balance = async (id: number) => (await get<{ balance: number }>(`/api/wallets/${id}`)).balance;
const buy = {
  type: 'exchange_buy',
  occurred_at: '2026-03-01',
  wallet: KRAKEN,
  sats: 500_000,
  amount: '300.50',
  currency: 'EUR',
};

describe('exchange_buy and exchange_sell', () => {
  it('raise and lower the exchange’s balance, the buy with a buys row whose wallet is the exchange', async () => {
    const res = await post(buy);
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: number }>().id;
    expect(res.json()).toEqual({ id, ...buy });
    const sell = {
      type: 'exchange_sell',
      occurred_at: '2026-03-02',
      wallet: KRAKEN,
      sats: 100_000,
      amount: '70',
      currency: 'DKK',
    };
    expect((await post(sell)).statusCode).toBe(201);
    expect(await balance(KRAKEN)).toBe(400_000);
    const buys = await get<{ items: unknown[] }>('/api/buys');
    expect(buys.items).toEqual([
      {
        id,
        event_id: id,
        occurred_at: '2026-03-01',
        wallet: KRAKEN,
        sats: 500_000,
        fee_sats: 0,
        amount_eur: '300.50',
      },
    ]);
  });

  it('refuses a wallet that is not an exchange (422) and a sell of more than the exchange holds on its day (409)', async () => {
    const wrong = await post({ ...buy, wallet: TREZOR });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json<{ detail: string }>().detail).toMatch(/wallet/);
    const sell = {
      type: 'exchange_sell',
      occurred_at: '2026-03-01',
      wallet: STRIKE,
      sats: 1_000,
      amount: '1',
      currency: 'EUR',
    };
    const res = await post(sell);
    expect(res.statusCode).toBe(409);
    expect(res.json<{ detail: string }>().detail).toMatch(
      /wallet 2 \(Strike\) would be 1000 sats below zero on 2026-03-01/,
    );
    expect(await balance(STRIKE)).toBe(0);
  });

  it('lets sats held on an exchange leave it to a wallet as a move', async () => {
    const move = {
      type: 'wallet_to_wallet',
      occurred_at: '2026-03-03',
      from_wallet: KRAKEN,
      to_wallet: TREZOR,
      sats: 200_000,
      fee_sats: 1_000,
    };
    expect((await post(move)).statusCode).toBe(201);
    expect([await balance(KRAKEN), await balance(TREZOR)]).toEqual([199_000, 200_000]);
  });
});

describe('spend and receive', () => {
  it('takes the sats and the fee of a spend from its wallet; 409 naming the shortfall when it lacks them', async () => {
    const spend = {
      type: 'spend',
      occurred_at: '2026-03-04',
      from_wallet: TREZOR,
      sats: 50_000,
      fee_sats: 500,
    };
    expect((await post(spend)).statusCode).toBe(201);
    expect(await balance(TREZOR)).toBe(149_500);
    const res = await post({ ...spend, from_wallet: PAPER, sats: 100, fee_sats: 5 });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ detail: string }>().detail).toMatch(
      /wallet 7 \(Paper wallet\) would be 105 sats below zero on 2026-03-04/,
    );
  });

  it('takes an amount and a currency together or not at all, and a receive’s kind', async () => {
    const receive = {
      type: 'receive',
      occurred_at: '2026-03-05',
      to_wallet: PAPER,
      sats: 10_000,
      kind: 'gift',
    };
    const half = await post({ ...receive, amount: '5' });
    expect(half.statusCode).toBe(400);
    expect(half.json<{ detail: string }>().detail).toMatch(/body\.currency/);
    expect((await post({ ...receive, kind: 'found' })).statusCode).toBe(400);
    expect((await post({ ...receive, fee_sats: 1 })).statusCode).toBe(400);
    const given = await post({ ...receive, amount: '5.10', currency: 'EUR' });
    expect(given.statusCode, given.body).toBe(201);
    expect(given.json()).toMatchObject({ kind: 'gift', amount: '5.10', currency: 'EUR' });
    expect(await balance(PAPER)).toBe(10_000);
  });

  it('replays a receive under its Idempotency-Key: one event, the same answer', async () => {
    const receive = { type: 'receive', occurred_at: '2026-03-06', to_wallet: PAPER, sats: 7, kind: 'income' };
    const key = { 'idempotency-key': 'receive-once' };
    const first = await post(receive, key);
    const again = await post({ ...receive }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await balance(PAPER)).toBe(10_007);
  });

  it('takes the receive and spend bodies the chain suggests as they are', async () => {
    const tx = (netSats: number, feeSats: number) => ({
      txid: 'x',
      confirmed: true,
      time: new Date('2026-03-07T10:00:00Z'),
      feeSats,
      parts: [{ wallet: PAPER, netSats, paidFee: true }],
    });
    const bodies = [...suggest(PAPER, tx(3_000, 0)), ...suggest(PAPER, tx(-2_200, 200))];
    expect(bodies.map((b) => b.type)).toEqual(['receive', 'spend']);
    for (const b of bodies) {
      const res = await post(b);
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await balance(PAPER)).toBe(10_807);
  });
});

describe('a rebuild', () => {
  it('gives the same read tables and balances as the writes of every type kept', async () => {
    const before = [await get('/api/buys'), await get('/api/deposits'), await get('/api/wallets')];
    for (const table of ['buys', 'deposits'])
      expect((await t.call('POST', `/api/${table}/rebuild`)).statusCode).toBe(200);
    expect([await get('/api/buys'), await get('/api/deposits'), await get('/api/wallets')]).toEqual(before);
    const events = await get<{ items: { type: string }[] }>('/api/events?limit=1000');
    expect(new Set(events.items.map((e) => e.type))).toEqual(
      new Set(['exchange_buy', 'exchange_sell', 'wallet_to_wallet', 'spend', 'receive']),
    );
  });
});
