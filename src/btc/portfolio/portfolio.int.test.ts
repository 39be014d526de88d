import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatedRates, publicationDay, startFakeFrankfurter } from '../../../test/fakes/frankfurter.js';
import type { FakeHttpServer } from '../../../test/fakes/http.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerAndPortfolio } from '../../../test/support/services.js';
import { crossRate } from '../../providers/frankfurter.js';
import { insertClosedCandles } from '../candles/repository.js';
import { insertPrice } from '../market/repository.js';
import { createRatesService } from '../rates/index.js';

/**
 * The portfolio over the real ledger and the real rates service, whose provider is the fake
 * Frankfurter (weekends answer the previous Friday's rates, as the ECB's do).
 */
const TOKEN = 'portfolio-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let fake: FakeHttpServer;
let t: TestApp;
let exchange: number;
let cold: number[];

beforeAll(async () => {
  fake = await startFakeFrankfurter({ latest: '2026-07-03' });
  t = await startTestApp({
    now: '2026-07-03T10:00:00Z',
    env: { API_TOKEN: TOKEN, RATES_FEED_URL: fake.url, PROVIDER_TIMEOUT_MS: '500' },
    services: ledgerAndPortfolio((ctx) => createRatesService(ctx)),
  });
  const wallets = (await t.call('GET', '/api/wallets', undefined, auth)).json<Wallet[]>();
  exchange = wallets.find((w) => w.wallet_type === 'exchange')!.id;
  cold = wallets.filter((w) => w.wallet_type === 'wallet').map((w) => w.id);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(async () => {
  fake.heal();
  t.clock.set('2026-07-03T10:00:00Z');
  const db = t.db.database.db;
  await sql`truncate btc.events, btc.deposits, btc.buys, btc.idempotency_keys, btc.spot_prices, btc.candles_day`.execute(
    db,
  );
  await sql`update btc.wallets set balance = 0`.execute(db);
});

interface Wallet {
  id: number;
  wallet_type: string;
}
type Fiat = { eur: string; dkk: string; usd: string };
interface Portfolio {
  as_of: string;
  price: { btc_eur: string | null; btc_usd: string | null; btc_dkk: string | null } | null;
  sats: number;
  bought_sats: number;
  fee_sats: number;
  cost: Fiat;
  average_price: Fiat | null;
  value: Fiat | null;
  unrealized_pnl: Fiat | null;
  wallets: { id: number; name: string; wallet_type: string; sats: number; value: Fiat | null }[];
}

async function portfolio(query = ''): Promise<Portfolio> {
  const res = await t.call('GET', `/api/portfolio${query}`, undefined, auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Portfolio>();
}

async function post(body: Record<string, unknown>): Promise<number> {
  const res = await t.call('POST', '/api/events', body, auth);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: number }>().id;
}

const buy = (occurred_at: string, sats: number, amount: string, currency = 'EUR', to = cold[0]) =>
  post({
    type: 'exchange_to_wallet',
    occurred_at,
    from_wallet: exchange,
    to_wallet: to,
    sats,
    fee_sats: 250,
    amount,
    currency,
  });

const transfer = (occurred_at: string, from: number, to: number, sats: number, fee_sats: number) =>
  post({ type: 'wallet_to_wallet', occurred_at, from_wallet: from, to_wallet: to, sats, fee_sats });

/** The rates the fake provider publishes for a day (the previous business day's on weekends). */
function providerRates(day: string) {
  const g = generatedRates(publicationDay(day));
  return { usd_eur: g.EUR, usd_dkk: g.DKK, eur_dkk: crossRate(g.EUR, g.DKK) };
}

const cents = (x: Big) => x.round(2, Big.roundHalfUp).toFixed(2);

describe('GET /api/portfolio', () => {
  it('is documented and private', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toContain('/api/portfolio');
    expect((await t.call('GET', '/api/portfolio')).statusCode).toBe(401);
    expect((await t.call('GET', '/api/portfolio?at=2026-07-01')).statusCode).toBe(401);
  });

  it('answers an empty ledger without a price: zeros, and nulls where nothing can be said', async () => {
    const p = await portfolio();
    expect(p).toMatchObject({
      as_of: '2026-07-03T10:00:00.000Z',
      price: null,
      sats: 0,
      bought_sats: 0,
      fee_sats: 0,
      cost: { eur: '0.00', dkk: '0.00', usd: '0.00' },
      average_price: null,
      value: null,
      unrealized_pnl: null,
    });
    expect(p.wallets).toHaveLength(7);
    expect(p.wallets.every((w) => w.sats === 0 && w.value === null)).toBe(true);
  });

  it('converts each buy at the rates of its date, sums exactly and rounds once', async () => {
    await buy('2026-06-02', 100_000, '55.00', 'EUR');
    await buy('2026-06-03', 200_000, '1000.125', 'DKK');
    await buy('2026-06-04', 300_000, '70.005', 'USD');
    const [r2, r3, r4] = ['2026-06-02', '2026-06-03', '2026-06-04'].map(providerRates) as [
      ReturnType<typeof providerRates>,
      ReturnType<typeof providerRates>,
      ReturnType<typeof providerRates>,
    ];
    Big.DP = 40;
    const eur = new Big('55.00')
      .plus(new Big('1000.125').div(r3.eur_dkk))
      .plus(new Big('70.005').times(r4.usd_eur));
    const dkk = new Big('55.00').times(r2.eur_dkk).plus('1000.125').plus(new Big('70.005').times(r4.usd_dkk));
    const usd = new Big('55.00').div(r2.usd_eur).plus(new Big('1000.125').div(r3.usd_dkk)).plus('70.005');
    Big.DP = 20;
    const p = await portfolio();
    expect(p.cost).toEqual({ eur: cents(eur), dkk: cents(dkk), usd: cents(usd) });
    expect(p.bought_sats).toBe(600_000);
    expect(p.sats).toBe(600_000);
    expect(p.fee_sats).toBe(0);
    // cost / 0.006 BTC, from the exact cost.
    expect(p.average_price!.eur).toBe(eur.times(1e8).div(600_000).round(2, Big.roundHalfUp).toFixed(2));
  });

  it('keeps money a float would alter exact', async () => {
    await buy('2026-06-02', 1, '0.1');
    await buy('2026-06-02', 1, '0.2');
    await buy('2026-06-03', 1, '123456789012345.67');
    await buy('2026-06-03', 1, '123456789012345.67');
    const p = await portfolio();
    expect(p.cost.eur).toBe('246913578024691.64');
    expect(p.average_price!.eur).toBe('6172839450617291000000.00');
  });

  it('values the sats at the latest spot price; value − cost is the unrealized pnl', async () => {
    await buy('2026-06-02', 1_234_567, '500.00');
    await insertPrice(t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000.5',
      btc_usd: '65000.25',
      btc_dkk: null,
      rates: null,
    });
    await insertPrice(t.db.database.db, {
      at: new Date('2026-07-03T09:59:59.900Z'),
      btc_eur: '61234.5',
      btc_usd: '66543.21',
      btc_dkk: '456789.123456',
      rates: null,
    });
    const p = await portfolio();
    expect(p.as_of).toBe('2026-07-03T09:59:59.900Z');
    expect(p.price).toEqual({ btc_eur: '61234.50', btc_usd: '66543.21', btc_dkk: '456789.12' });
    // 0.01234567 BTC at the exact prices, rounded once.
    expect(p.value).toEqual({ eur: '755.98', dkk: '5639.37', usd: '821.52' });
    for (const k of ['eur', 'dkk', 'usd'] as const)
      expect(new Big(p.value![k]).minus(p.cost[k]).toFixed(2)).toBe(p.unrealized_pnl![k]);
    expect(p.unrealized_pnl!.eur).toBe('255.98');
    expect(p.wallets.find((w) => w.id === cold[0])).toMatchObject({ sats: 1_234_567, value: p.value });
    expect(p.wallets.find((w) => w.id === cold[1])).toMatchObject({
      sats: 0,
      value: { eur: '0.00', dkk: '0.00', usd: '0.00' },
    });
  });

  it('leaves the DKK side null while the spot price has no EUR/DKK rate', async () => {
    await buy('2026-06-02', 100_000_000, '50000.00');
    await insertPrice(t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '40000',
      btc_usd: '43000',
      btc_dkk: null,
      rates: null,
    });
    const p = await portfolio();
    expect(p.price).toEqual({ btc_eur: '40000.00', btc_usd: '43000.00', btc_dkk: null });
    expect(p.value).toMatchObject({ eur: '40000.00', dkk: null });
    expect(p.unrealized_pnl).toMatchObject({ eur: '-10000.00', dkk: null });
  });

  it('a transfer fee lowers sats and value, never cost', async () => {
    await buy('2026-06-02', 1_000_000, '600.00');
    await insertPrice(t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000',
      btc_usd: '65000',
      btc_dkk: '447000',
      rates: null,
    });
    const before = await portfolio();
    await transfer('2026-06-05', cold[0]!, cold[1]!, 400_000, 5_000);
    const after = await portfolio();
    expect(after.cost).toEqual(before.cost);
    expect(after.average_price).toEqual(before.average_price);
    expect(after.bought_sats).toBe(before.bought_sats);
    expect(after.fee_sats).toBe(5_000);
    expect(after.sats).toBe(before.sats - 5_000);
    expect(after.sats).toBe(after.bought_sats - after.fee_sats);
    expect(after.value).toEqual({ eur: '597.00', dkk: '4447.65', usd: '646.75' });
    expect(before.value).toEqual({ eur: '600.00', dkk: '4470.00', usd: '650.00' });
    expect(after.wallets.filter((w) => w.sats > 0).map((w) => [w.id, w.sats])).toEqual([
      [cold[0], 595_000],
      [cold[1], 400_000],
    ]);
  });

  it('a deleted buy leaves the portfolio as if it never existed', async () => {
    await buy('2026-06-02', 1_000_000, '600.00');
    await insertPrice(t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000',
      btc_usd: '65000',
      btc_dkk: '447000',
      rates: null,
    });
    const before = await portfolio();
    const id = await buy('2026-06-20', 50_000, '123.45', 'DKK', cold[2]);
    expect((await portfolio()).cost).not.toEqual(before.cost);
    expect((await t.call('DELETE', `/api/events/${id}`, undefined, auth)).statusCode).toBe(204);
    expect(await portfolio()).toEqual(before);
    expect(await portfolio('?at=2026-06-30')).toEqual(await portfolio('?at=2026-06-30'));
  });

  it("converts a DKK buy on a weekend at Friday's rates", async () => {
    const saturday = '2026-06-27';
    expect(publicationDay(saturday)).toBe('2026-06-26');
    await buy(saturday, 100_000, '745.00', 'DKK');
    const friday = providerRates('2026-06-26');
    const own = generatedRates(saturday);
    Big.DP = 40;
    const expected = {
      eur: cents(new Big('745.00').div(friday.eur_dkk)),
      dkk: '745.00',
      usd: cents(new Big('745.00').div(friday.usd_dkk)),
    };
    // Saturday's own (unpublished) figures would give another USD cost.
    const ifSaturday = cents(new Big('745.00').div(own.DKK));
    Big.DP = 20;
    expect(ifSaturday).not.toBe(expected.usd);
    expect((await portfolio()).cost).toEqual(expected);
  });
});

describe('GET /api/portfolio?at=', () => {
  beforeEach(async () => {
    await buy('2026-06-01', 500_000, '300.00');
    await transfer('2026-06-02', cold[0]!, cold[1]!, 100_000, 1_000);
    await buy('2026-06-03', 250_000, '1500.00', 'DKK', cold[1]);
    await transfer('2026-06-04', cold[1]!, cold[2]!, 50_000, 2_000);
  });

  const candle = (pair: string, day: string, close: string) => ({
    pair,
    time: new Date(`${day}T00:00:00Z`),
    open: close,
    high: close,
    low: close,
    close,
    vwap: close,
    volume: '1',
    trades: 1,
  });

  it("answers the holdings after the day's events at that UTC day's close", async () => {
    await insertClosedCandles(t.db.database.db, 'btc.candles_day', [
      candle('BTC/EUR', '2026-06-02', '58000.5'),
      candle('BTC/USD', '2026-06-02', '63000.1'),
      candle('BTC/EUR', '2026-06-03', '1'),
    ]);
    const p = await portfolio('?at=2026-06-02');
    const r = providerRates('2026-06-02');
    const btcDkk = new Big('58000.5').times(r.eur_dkk);
    expect(p.as_of).toBe('2026-06-03T00:00:00.000Z');
    expect(p.price).toEqual({ btc_eur: '58000.50', btc_usd: '63000.10', btc_dkk: cents(btcDkk) });
    expect(p).toMatchObject({
      sats: 499_000,
      bought_sats: 500_000,
      fee_sats: 1_000,
      cost: { eur: '300.00' },
      value: {
        eur: cents(new Big('58000.5').times(499_000).div(1e8)),
        usd: cents(new Big('63000.1').times(499_000).div(1e8)),
        dkk: cents(btcDkk.times(499_000).div(1e8)),
      },
    });
    expect(p.wallets.filter((w) => w.sats > 0).map((w) => [w.id, w.sats])).toEqual([
      [cold[0], 399_000],
      [cold[1], 100_000],
    ]);
  });

  it('without a candle for the day the price and values are null, not an error', async () => {
    const p = await portfolio('?at=2026-06-03');
    expect(p).toMatchObject({
      as_of: '2026-06-04T00:00:00.000Z',
      price: null,
      value: null,
      unrealized_pnl: null,
    });
    expect(p.sats).toBe(749_000);
    expect(p.wallets.every((w) => w.value === null)).toBe(true);
  });

  it('before the first event holds nothing; today holds what the ledger holds now', async () => {
    const empty = await portfolio('?at=2026-05-31');
    expect(empty).toMatchObject({ sats: 0, bought_sats: 0, fee_sats: 0, average_price: null });
    expect(empty.cost).toEqual({ eur: '0.00', dkk: '0.00', usd: '0.00' });
    const now = await portfolio();
    const today = await portfolio('?at=2026-07-03');
    for (const k of ['sats', 'bought_sats', 'fee_sats', 'cost', 'average_price'] as const)
      expect(today[k]).toEqual(now[k]);
    expect(today.wallets.map((w) => [w.id, w.sats])).toEqual(now.wallets.map((w) => [w.id, w.sats]));
    expect(now.sats).toBe(now.bought_sats - now.fee_sats);
  });

  it('leaves btc_dkk null when the rates of the day cannot be had', async () => {
    await insertClosedCandles(t.db.database.db, 'btc.candles_day', [
      candle('BTC/EUR', '2026-05-20', '50000'),
    ]);
    fake.failAlways({ kind: 'status', status: 503 });
    const p = await portfolio('?at=2026-05-20');
    expect(p.price).toEqual({ btc_eur: '50000.00', btc_usd: null, btc_dkk: null });
    expect(p.value).toEqual({ eur: '0.00', dkk: null, usd: null });
  });

  it('takes the Danish date as today: just after midnight in Denmark the new day may be asked for', async () => {
    t.clock.set('2026-07-03T22:30:00Z');
    expect((await t.call('GET', '/api/portfolio?at=2026-07-04', undefined, auth)).statusCode).toBe(200);
    const next = await t.call('GET', '/api/portfolio?at=2026-07-05', undefined, auth);
    expect(next.statusCode).toBe(400);
    expect(next.json().detail).toMatch(
      /querystring\.at: 2026-07-05 is in the future \(today in Denmark is 2026-07-04\)/,
    );
  });

  it.each([
    ['0000-01-01'],
    ['9999-12-31'],
    ['2025-02-30'],
    ['2026-02-29'],
    ['2009-01-02'],
    ['2026-07-04'],
    ['2026-7-1'],
    ['20260701'],
    ['2026-07-01T00:00:00Z'],
    ['yesterday'],
    [''],
    ['2026-06-01&at=2026-06-02'],
    ['%00'],
  ])('answers ?at=%s with a 400 naming querystring.at', async (at) => {
    const res = await t.call('GET', `/api/portfolio?at=${at}`, undefined, auth);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().detail).toMatch(/querystring\.at/);
  });

  it('refuses an unknown query parameter, naming it', async () => {
    const res = await t.call('GET', '/api/portfolio?as_of=2026-06-01', undefined, auth);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/as_of/);
  });

  it('accepts the genesis day', async () => {
    expect((await portfolio('?at=2009-01-03')).sats).toBe(0);
  });
});
