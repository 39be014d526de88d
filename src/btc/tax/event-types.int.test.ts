import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { btc } from '../../../test/support/services.js';

// EUR/DKK 7.5 on every day, so a day's BTC price in DKK is its candle's vwap × 7.5.
const rates = flatRates;

const TOKEN = 'tax-types-token-0123456789abcdef';
const BTC = 100_000_000;
// The fresh database's wallets: 1 Kraken, 2 Strike, 3 Coinbase (exchanges), 4 Trezor, 6 Coldcard.
const [KRAKEN, STRIKE, COINBASE, TREZOR, COLDCARD] = [1, 2, 3, 4, 6];

async function app() {
  const t: TestApp = await startTestApp({
    now: '2025-12-31T12:00:00Z',
    env: { API_TOKEN: TOKEN },
    services: btc({ rates, only: ['ledger', 'tax'] }),
  });
  const call = (method: string, url: string, body?: unknown) =>
    t.call(method, url, body, { authorization: `Bearer ${TOKEN}` });
  const post = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/api/events', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };
  const dkk = (amount: string) => ({ amount, currency: 'DKK' });
  return {
    t,
    call,
    post,
    buy: (occurred_at: string, wallet: number, sats: number, amount: string) =>
      post({ type: 'exchange_buy', occurred_at, wallet, sats, ...dkk(amount) }),
    sell: (occurred_at: string, wallet: number, sats: number, amount: string) =>
      post({ type: 'exchange_sell', occurred_at, wallet, sats, ...dkk(amount) }),
    year: async (owner = 'household') => (await call('GET', `/api/tax/2025?owner=${owner}`)).json<Y>(),
    candle: (day: string, vwap: string) =>
      sql`insert into btc.candles_day (pair, time, open, high, low, close, vwap, volume, trades)
        values ('BTC/EUR', ${`${day}T00:00:00Z`}::timestamptz, ${vwap}, ${vwap}, ${vwap}, ${vwap}, ${vwap}, 1, 1)`.execute(
        t.db.database.db,
      ),
  };
}
type Y = Record<string, unknown> & { disposals: Record<string, unknown>[]; income: unknown[] };

describe('SKAT’s example through exchange_buy and exchange_sell', () => {
  let a: Awaited<ReturnType<typeof app>>;
  beforeAll(async () => {
    a = await app();
  });
  afterAll(() => a.t.close());

  it('gains 20,000 DKK on half a BTC sold for 170,000 after buying 1 BTC at 300,000 and one at 330,000', async () => {
    await a.buy('2025-01-10', KRAKEN, BTC, '300000'); // event 1
    await a.buy('2025-02-10', KRAKEN, BTC, '330000'); // event 2
    await a.sell('2025-03-10', KRAKEN, BTC / 2, '170000'); // event 3
    const y = await a.year();
    expect(y.disposals).toEqual([
      {
        event_id: 3,
        occurred_at: '2025-03-10',
        type: 'sale',
        sats: BTC / 2,
        fee_sats: 0,
        proceeds_dkk: '170000.00',
        cost_dkk: '150000.00',
        gain_dkk: '20000.00',
        lots: [{ event_id: 1, occurred_at: '2025-01-10', sats: BTC / 2, cost_dkk: '150000.00' }],
      },
    ]);
    expect(y).toMatchObject({ gains_dkk: '20000.00', rubrik_20_dkk: '20000.00', complete: true });
  });

  it('keeps a gain and a loss of one year apart: rubrik 20 and rubrik 58, never netted', async () => {
    // The rest of lot 1 (cost 150,000.00) sold for 140,000.00: a loss of 10,000.00.
    await a.sell('2025-04-10', KRAKEN, BTC / 2, '140000'); // event 4
    expect(await a.year()).toMatchObject({
      gains_dkk: '20000.00',
      losses_dkk: '10000.00',
      rubrik_20_dkk: '20000.00',
      rubrik_58_dkk: '10000.00',
      complete: true,
    });
    const lots = (await a.call('GET', '/api/lots?owner=household')).json<Record<string, unknown>>();
    expect(lots).toMatchObject({ sats: BTC, cost_dkk: '330000.00' });
  });
});

describe('disposals, payments and arrivals of the new types', () => {
  let a: Awaited<ReturnType<typeof app>>;
  beforeAll(async () => {
    a = await app();
    const ok = await a.call('PATCH', `/api/wallets/${COINBASE}`, { owner: 'Bo' });
    expect(ok.statusCode).toBe(200);
    await a.buy('2025-01-01', KRAKEN, 10_000_000, '10000'); // event 1
    await a.buy('2025-01-02', STRIKE, 10_000_000, '20000'); // event 2
    await a.post({
      type: 'exchange_to_wallet',
      occurred_at: '2025-01-03',
      from_wallet: KRAKEN,
      to_wallet: COLDCARD,
      sats: 10_000_000,
      fee_sats: 0,
      ...{ amount: '30000', currency: 'DKK' },
    }); // event 3
    // Sats held on an exchange leave it as a move, not a second purchase.
    const move = { type: 'wallet_to_wallet', occurred_at: '2025-01-04', to_wallet: KRAKEN, fee_sats: 0 };
    await a.post({ ...move, from_wallet: STRIKE, sats: 10_000_000 }); // event 4
    await a.post({ ...move, from_wallet: COLDCARD, sats: 10_000_000 }); // event 5
    await a.sell('2025-01-05', KRAKEN, 25_000_000, '100000'); // event 6
    await a.candle('2025-01-06', '80000'); // 600,000.00 DKK a BTC
    await a.post({
      type: 'spend',
      occurred_at: '2025-01-06',
      from_wallet: KRAKEN,
      sats: 1_000_000,
      fee_sats: 10_000,
    }); // event 7
    await a.candle('2025-01-07', '64000'); // 480,000.00 DKK a BTC
    await a.post({
      type: 'receive',
      occurred_at: '2025-01-07',
      to_wallet: TREZOR,
      sats: 200_000,
      kind: 'income',
    }); // event 8
    await a.post({
      type: 'receive',
      occurred_at: '2025-01-08',
      to_wallet: TREZOR,
      sats: 100_000,
      kind: 'income',
      amount: '100',
      currency: 'EUR',
    }); // event 9
    await a.post({
      type: 'receive',
      occurred_at: '2025-01-09',
      to_wallet: COINBASE,
      sats: 3_000_000,
      kind: 'unknown',
    }); // event 10
    await a.sell('2025-01-10', COINBASE, 1_000_000, '5000'); // event 11
  });
  afterAll(() => a.t.close());

  it('draws one sale on lots bought on two exchanges and one that reached a cold wallet', async () => {
    const y = await a.year();
    expect(y.disposals[0]).toEqual({
      event_id: 6,
      occurred_at: '2025-01-05',
      type: 'sale',
      sats: 25_000_000,
      fee_sats: 0,
      proceeds_dkk: '100000.00',
      cost_dkk: '45000.00',
      gain_dkk: '55000.00',
      lots: [
        { event_id: 1, occurred_at: '2025-01-01', sats: 10_000_000, cost_dkk: '10000.00' },
        { event_id: 2, occurred_at: '2025-01-02', sats: 10_000_000, cost_dkk: '20000.00' },
        { event_id: 3, occurred_at: '2025-01-03', sats: 5_000_000, cost_dkk: '15000.00' },
      ],
    });
  });

  it('values a payment without an amount at the day’s price, its fee drawn with it', async () => {
    // 0.01 BTC × 600,000.00 = 6,000.00; 1,010,000 sats of lot 3 (30,000.00 for 10,000,000):
    // round(3,000,000 øre × 6,010,000 / 10,000,000) − 1,500,000 øre = 303,000 øre.
    expect((await a.year()).disposals[1]).toEqual({
      event_id: 7,
      occurred_at: '2025-01-06',
      type: 'spend',
      sats: 1_010_000,
      fee_sats: 10_000,
      proceeds_dkk: '6000.00',
      cost_dkk: '3030.00',
      gain_dkk: '2970.00',
      lots: [{ event_id: 3, occurred_at: '2025-01-03', sats: 1_010_000, cost_dkk: '3030.00' }],
    });
  });

  it('counts income at the day’s value or at its amount, and makes a lot of it', async () => {
    const y = await a.year();
    // 0.002 × 480,000.00 = 960.00; 100.00 EUR × 7.5 = 750.00.
    expect(y.income).toEqual([
      { event_id: 8, occurred_at: '2025-01-07', sats: 200_000, value_dkk: '960.00' },
      { event_id: 9, occurred_at: '2025-01-08', sats: 100_000, value_dkk: '750.00' },
    ]);
    // Gains 55,000.00 + 2,970.00; rubrik 20 adds the income.
    expect(y).toMatchObject({
      gains_dkk: '57970.00',
      income_dkk: '1710.00',
      rubrik_20_dkk: '59680.00',
      complete: true,
    });
    const lots = (await a.call('GET', '/api/lots?owner=household')).json<{ lots: unknown[] }>();
    expect(lots.lots.slice(-2)).toEqual([
      { owner: 'household', event_id: 8, occurred_at: '2025-01-07', sats: 200_000, cost_dkk: '960.00' },
      { owner: 'household', event_id: 9, occurred_at: '2025-01-08', sats: 100_000, cost_dkk: '750.00' },
    ]);
  });

  it('keeps the cost of an arrival from outside unknown, never guessed: its sale has no gain and the year is incomplete', async () => {
    const y = await a.year('Bo');
    expect(y.disposals).toEqual([
      {
        event_id: 11,
        occurred_at: '2025-01-10',
        type: 'sale',
        sats: 1_000_000,
        fee_sats: 0,
        proceeds_dkk: '5000.00',
        cost_dkk: null,
        gain_dkk: null,
        lots: [{ event_id: 10, occurred_at: '2025-01-09', sats: 1_000_000, cost_dkk: null }],
      },
    ]);
    expect(y).toMatchObject({ gains_dkk: '0.00', unknown_cost: [10], complete: false });
  });
});
