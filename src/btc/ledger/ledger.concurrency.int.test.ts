import { Big } from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downRates, fakeRates, ratesFor } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { ledgerOnly } from '../../../test/support/services.js';

let db: TestDatabase;
let t: TestApp;
let exchange: number;
let cold: number[];
beforeAll(async () => {
  db = await freshDatabase();
  t = await startTestApp({ db, services: ledgerOnly(fakeRates()) });
  const all = (await t.call('GET', '/api/wallets')).json<{ id: number; wallet_type: string }[]>();
  exchange = all.find((w) => w.wallet_type === 'exchange')!.id;
  cold = all.filter((w) => w.wallet_type === 'wallet').map((w) => w.id);
});
afterAll(async () => {
  await t.close();
  await db.close();
});

const rows = async (table: 'deposits' | 'buys') =>
  (await sql`select * from ${sql.table(`btc.${table}`)} order by id`.execute(db.database.db)).rows;

describe('concurrent writes', () => {
  it('lets concurrent transfers spend a balance only once', async () => {
    const buy = await t.call('POST', '/api/events', {
      type: 'exchange_to_wallet',
      occurred_at: '2026-02-01',
      from_wallet: exchange,
      to_wallet: cold[0],
      sats: 100_000,
      fee_sats: 0,
      amount: 50,
      currency: 'EUR',
    });
    expect(buy.statusCode).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.call('POST', '/api/events', {
          type: 'wallet_to_wallet',
          occurred_at: '2026-02-02',
          from_wallet: cold[0],
          to_wallet: cold[1],
          sats: 19_000,
          fee_sats: 1000,
        }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([...Array(5).fill(201), ...Array(5).fill(409)]);
    expect((await t.call('GET', `/api/wallets/${cold[0]}`)).json().balance).toBe(0);
  });

  it('creates one event for concurrent requests with the same Idempotency-Key', async () => {
    const body = {
      type: 'bank_to_exchange',
      occurred_at: '2026-02-03',
      wallet: exchange,
      amount: '7.77',
      currency: 'EUR',
    };
    const key = { 'idempotency-key': `same-${Math.random()}` };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.call('POST', '/api/events', body, key)),
    );
    expect(new Set(answers.map((a) => a.statusCode))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    const listed = (
      await t.call('GET', '/api/events?type=bank_to_exchange&from=2026-02-03&to=2026-02-03')
    ).json();
    expect(listed.items).toHaveLength(1);
  });

  it('keeps a wallet named by events from changing type', async () => {
    const res = await t.call('PATCH', `/api/wallets/${exchange}`, { wallet_type: 'wallet' });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/wallet_type/);
  });

  it('loses no write made while a rebuild runs', async () => {
    const before = { deposits: (await rows('deposits')).length, buys: (await rows('buys')).length };
    const writes = Array.from({ length: 40 }, (_, i) =>
      t.call('POST', '/api/events', {
        type: i % 2 ? 'bank_to_exchange' : 'exchange_to_wallet',
        occurred_at: `2026-02-${String((i % 20) + 1).padStart(2, '0')}`,
        ...(i % 2
          ? { wallet: exchange }
          : { from_wallet: exchange, to_wallet: cold[2], sats: 1000 + i, fee_sats: 10 }),
        amount: 10 + i,
        currency: 'DKK',
      }),
    );
    const rebuilds = [t.call('POST', '/api/deposits/rebuild'), t.call('POST', '/api/buys/rebuild')];
    const done = await Promise.all([...writes, ...rebuilds]);
    expect(done.every((r) => r.statusCode < 300)).toBe(true);
    const kept = { deposits: await rows('deposits'), buys: await rows('buys') };
    expect(kept.deposits.length).toBe(before.deposits + 20);
    expect(kept.buys.length).toBe(before.buys + 20);
    await t.call('POST', '/api/deposits/rebuild');
    await t.call('POST', '/api/buys/rebuild');
    expect({ deposits: await rows('deposits'), buys: await rows('buys') }).toEqual(kept);
  });
});

describe('with the rates provider down', () => {
  let down: TestApp;
  beforeAll(async () => {
    down = await startTestApp({ db, services: ledgerOnly(downRates) });
  });
  afterAll(() => down.close());

  it('answers 503 naming the provider when a deposit needs rates it has not stored, and writes nothing', async () => {
    const before = (await down.call('GET', '/api/events?limit=1000')).json();
    const res = await down.call(
      'POST',
      '/api/events',
      {
        type: 'bank_to_exchange',
        occurred_at: '2025-12-24',
        wallet: exchange,
        amount: 100,
        currency: 'EUR',
      },
      { 'idempotency-key': 'down-1' },
    );
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/frankfurter/);
    expect((await down.call('GET', '/api/events?limit=1000')).json()).toEqual(before);
  });

  it('still records deposits on dates whose rates it has stored', async () => {
    const res = await down.call(
      'POST',
      '/api/events',
      {
        type: 'bank_to_exchange',
        occurred_at: '2026-02-01',
        wallet: exchange,
        amount: 100,
        currency: 'USD',
      },
      { 'idempotency-key': 'down-1' },
    );
    expect(res.statusCode).toBe(201);
    const deposit = (await down.call('GET', '/api/deposits?from=2026-02-01&to=2026-02-01')).json().items;
    expect(deposit[0].amount_eur).toBe(
      new Big(100).times(ratesFor('2026-02-01').usd_eur).round(2).toFixed(2),
    );
  });
});
