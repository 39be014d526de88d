import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerOnly } from '../../../test/support/services.js';
import { MAX_SATS, parseEvent } from './events.js';
import { requestHash } from './idempotency.js';

/** The ledger's guarantees at its edges (history never negative, money kept exactly), through the HTTP API. */
let t: TestApp;
let exchange: number;
beforeAll(async () => {
  t = await startTestApp({ now: '2026-06-30T10:00:00Z', services: ledgerOnly(fakeRates()) });
  exchange = (await t.call('GET', '/api/wallets?type=exchange')).json<{ id: number }[]>()[0]!.id;
});
afterAll(() => t.close());

let n = 0;
async function newWallet(): Promise<number> {
  const res = await t.call('POST', '/api/wallets', { name: `edge ${++n}`, wallet_type: 'wallet' });
  return res.json<{ id: number }>().id;
}
const buy = (to: number, occurred_at: string, sats: number) => ({
  type: 'exchange_to_wallet',
  occurred_at,
  from_wallet: exchange,
  to_wallet: to,
  sats,
  fee_sats: 0,
  amount: '10',
  currency: 'EUR',
});
const move = (from: number, to: number, occurred_at: string, sats: number, fee_sats = 0) => ({
  type: 'wallet_to_wallet',
  occurred_at,
  from_wallet: from,
  to_wallet: to,
  sats,
  fee_sats,
});
const post = (body: unknown, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/events', body, headers);
const balance = async (id: number) =>
  (await t.call('GET', `/api/wallets/${id}`)).json<{ balance: number }>().balance;

describe('history never goes negative', () => {
  it('refuses a transfer dated before the sats arrived, naming the wallet, the first date and the shortfall', async () => {
    const [a, b] = [await newWallet(), await newWallet()];
    expect((await post(buy(a, '2026-03-10', 1000))).statusCode).toBe(201);
    // The final balance would be 500, but on 2026-03-05 the wallet held nothing.
    const early = await post(move(a, b, '2026-03-05', 400, 100));
    expect(early.statusCode).toBe(409);
    expect(early.headers['content-type']).toContain('application/problem+json');
    expect(early.json<{ detail: string }>().detail).toMatch(
      new RegExp(`wallet ${a} \\(edge \\d+\\) would be 500 sats below zero on 2026-03-05`),
    );
    expect((await post(move(a, b, '2026-03-10', 400, 100))).statusCode).toBe(201);
    expect([await balance(a), await balance(b)]).toEqual([500, 400]);
  });

  it('orders one day by id: a spend recorded before the buy of the same day is refused', async () => {
    const [a, b] = [await newWallet(), await newWallet()];
    const early = (await post(buy(a, '2026-03-01', 100))).json<{ id: number }>().id;
    expect((await post(move(a, b, '2026-03-02', 100))).statusCode).toBe(201);
    // The buy moved onto the spend's day still comes first (its id is smaller).
    expect((await t.call('PUT', `/api/events/${early}`, buy(a, '2026-03-02', 100))).statusCode).toBe(200);
    const later = await t.call('PUT', `/api/events/${early}`, buy(a, '2026-03-03', 100));
    expect(later.statusCode).toBe(409);
    expect(later.json<{ detail: string }>().detail).toMatch(/100 sats below zero on 2026-03-02/);
    // A second buy recorded on the spend's day comes after the spend: the day ends at 0, but the
    // spend went first, so taking the early buy away leaves the wallet short in between.
    expect((await post(buy(a, '2026-03-02', 100))).statusCode).toBe(201);
    const gone = await t.call('DELETE', `/api/events/${early}`);
    expect(gone.statusCode).toBe(409);
    expect(gone.json<{ detail: string }>().detail).toMatch(/100 sats below zero on 2026-03-02/);
  });

  it('refuses a PUT that moves a buy after the spend that needed it, and a DELETE of that buy', async () => {
    const [a, b] = [await newWallet(), await newWallet()];
    const bought = await post(buy(a, '2026-04-01', 5000));
    await post(move(a, b, '2026-04-10', 3000));
    await post(buy(a, '2026-04-20', 5000));
    const id = bought.json<{ id: number }>().id;
    // The final balance would still be 7000 − 3000 ≥ 0, but on 2026-04-10 only 0 sats were there.
    const late = await t.call('PUT', `/api/events/${id}`, buy(a, '2026-04-15', 5000));
    expect(late.statusCode).toBe(409);
    expect(late.json<{ detail: string }>().detail).toMatch(/3000 sats below zero on 2026-04-10/);
    const gone = await t.call('DELETE', `/api/events/${id}`);
    expect(gone.statusCode).toBe(409);
    expect(gone.json<{ detail: string }>().detail).toMatch(/3000 sats below zero on 2026-04-10/);
    expect(await balance(a)).toBe(7000);
    // The receiving side counts too: removing what b received before it spent it is refused.
    await post(move(b, a, '2026-04-12', 2000));
    const transferId = (await t.call('GET', `/api/events?wallet=${b}&from=2026-04-10&to=2026-04-10`)).json<{
      items: { id: number }[];
    }>().items[0]!.id;
    const undo = await t.call('DELETE', `/api/events/${transferId}`);
    expect(undo.statusCode).toBe(409);
    expect(undo.json<{ detail: string }>().detail).toMatch(
      new RegExp(`wallet ${b} .* 2000 sats below zero on 2026-04-12`),
    );
  });

  it('keeps every balance and every event within MAX_SATS (2.1e15), so no integer passes 2^53', async () => {
    const a = await newWallet();
    expect((await post(buy(a, '2026-05-01', MAX_SATS))).statusCode).toBe(201);
    const more = await post(buy(a, '2026-05-02', 1));
    expect(more.statusCode).toBe(409);
    expect(more.json<{ detail: string }>().detail).toMatch(
      /would hold 2100000000000001 sats, more than the 2100000000000000/,
    );
    const huge = await post({ ...move(a, await newWallet(), '2026-05-03', MAX_SATS, 1) });
    expect(huge.statusCode).toBe(400);
    expect(huge.json<{ detail: string }>().detail).toMatch(/body\.sats: sats \+ fee_sats/);
    expect((await post(buy(a, '2026-05-02', MAX_SATS + 1))).statusCode).toBe(400);
  });
});

describe('money kept exactly', () => {
  const deposit = (amount: unknown) => ({
    type: 'bank_to_exchange',
    occurred_at: '2026-06-01',
    wallet: exchange,
    amount,
    currency: 'EUR',
  });

  it('refuses every amount that is not a positive exact decimal of at most 8 decimals, naming amount', async () => {
    const before = (await t.call('GET', '/api/events?limit=1000')).json();
    for (const amount of [
      true,
      [5],
      { v: 5 },
      null,
      '1e3',
      '-1',
      '0',
      '0.00',
      0,
      -5,
      '',
      ' 5',
      '5.',
      '.5',
      '007',
      '1.123456789',
      1.123456789,
      0.1 + 0.2,
      123456789.12345679,
      2 ** 53 + 2,
      '0x10',
      'NaN',
      'Infinity',
    ]) {
      const res = await post(deposit(amount));
      expect([JSON.stringify(amount), res.statusCode]).toEqual([JSON.stringify(amount), 400]);
      expect(res.json<{ detail: string }>().detail).toMatch(/^body\.amount/);
    }
    expect((await t.call('GET', '/api/events?limit=1000')).json()).toEqual(before);
  });

  it('answers a decimal comma with the number to send instead', async () => {
    const res = await post(deposit('12,50'));
    expect(res.statusCode).toBe(400);
    expect(res.json<{ detail: string }>().detail).toBe(
      'body.amount: "12,50" is not a decimal number; use a dot: 12.50',
    );
  });

  it('refuses any other field given in another JSON type', async () => {
    for (const [field, value] of [
      ['wallet', [exchange]],
      ['wallet', String(exchange)],
      ['currency', ['EUR']],
      ['occurred_at', 20260601],
      ['type', ['bank_to_exchange']],
    ] as const) {
      const res = await post({ ...deposit('5'), [field]: value });
      expect([field, res.statusCode]).toEqual([field, 400]);
      expect(res.json<{ detail: string }>().detail).toMatch(new RegExp(`body\\.${field}`));
    }
  });

  it('keeps a string digit for digit and a float-exact number as its shortest text, and answers strings', async () => {
    const long = await post(deposit('123456789012345.12345678'));
    expect(long.statusCode).toBe(201);
    expect(long.json()).toMatchObject({ amount: '123456789012345.12345678' });
    const trailing = await post(deposit('5.10'));
    expect(trailing.json()).toMatchObject({ amount: '5.10' });
    for (const [given, kept] of [
      [12.5, '12.5'],
      [1e-7, '0.0000001'],
      [123456789012.345, '123456789012.345'],
      [0.1, '0.1'],
    ] as const) {
      const res = await post(deposit(given));
      expect([given, res.statusCode, res.json<{ amount: string }>().amount]).toEqual([given, 201, kept]);
    }
    const id = long.json<{ id: number }>().id;
    expect((await t.call('GET', `/api/events/${id}`)).json()).toMatchObject({
      amount: '123456789012345.12345678',
    });
    const deposits = (await t.call('GET', '/api/deposits?from=2026-06-01&to=2026-06-01')).json<{
      items: Record<string, unknown>[];
    }>().items;
    const row = deposits.find((d) => d.event_id === id)!;
    expect(row).toMatchObject({ amount: '123456789012345.12345678', amount_eur: '123456789012345.12' });
    for (const k of ['amount_dkk', 'amount_usd']) expect(row[k]).toMatch(/^\d+\.\d{2}$/);
    const totals = (await t.call('GET', '/api/deposits/totals')).json<{ amount: unknown }[]>();
    expect(totals.every((x) => typeof x.amount === 'string')).toBe(true);
  });

  it('says so in the OpenAPI document: answered amounts are decimal strings', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json<{
      components?: unknown;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>();
    const text = JSON.stringify(doc.paths['/api/events/{id}']!.get!.responses['200']);
    expect(text).toMatch(/"amount":\{[^}]*"type":"string"/);
    const deposits = JSON.stringify(doc.paths['/api/deposits']!.get!.responses['200']);
    expect(deposits).toMatch(/"amount_eur":\{[^}]*"type":"string"/);
  });

  it('takes the idempotency hash over the exact values: 5 and "5" are one event, "5.0" another', async () => {
    const key = { 'idempotency-key': 'exact-hash-1' };
    const first = await post(deposit(5), key);
    expect(first.statusCode).toBe(201);
    const same = await post(deposit('5'), key);
    expect([same.statusCode, same.json()]).toEqual([201, first.json()]);
    const other = await post(deposit('5.0'), key);
    expect(other.statusCode).toBe(422);
    expect(other.json<{ detail: string }>().detail).toMatch(/Idempotency-Key/);
  });
});

describe('Idempotency-Keys stored as answers, before the outcome was stored', () => {
  it('replay their status and body exactly, created or refused', async () => {
    const to = await newWallet();
    const body = buy(to, '2026-06-10', 700);
    const hash = requestHash(parseEvent(body));
    const created = { ...body, id: 987_654 };
    const refused = {
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      detail:
        'wallet 4 (Trezor) would be 5 sats below zero on 2026-06-01: its running balance may not go negative on any date',
    };
    await t.db.database.db
      .insertInto('btc.idempotency_keys')
      .values([
        { key: 'stored-201', request_hash: hash, status: 201, body: JSON.stringify(created) },
        { key: 'stored-409', request_hash: hash, status: 409, body: JSON.stringify(refused) },
      ])
      .execute();
    const first = await t.call('POST', '/api/events', body, { 'idempotency-key': 'stored-201' });
    expect([first.statusCode, first.json()]).toEqual([201, created]);
    const second = await t.call('POST', '/api/events', body, { 'idempotency-key': 'stored-409' });
    expect([second.statusCode, second.headers['content-type'], second.json()]).toEqual([
      409,
      'application/problem+json; charset=utf-8',
      refused,
    ]);
    // Neither replay wrote an event.
    expect((await t.call('GET', `/api/events?wallet=${to}`)).json<{ items: unknown[] }>().items).toEqual([]);
  });
});
