import Big from 'big.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cents, providerRates, startPortfolioApp } from '../../../test/support/portfolio.js';
import { insertClosedCandles } from '../candles/repository.js';

let app: Awaited<ReturnType<typeof startPortfolioApp>>;
let cold: number[];
beforeAll(async () => {
  app = await startPortfolioApp();
  cold = app.cold;
});
afterAll(() => app.close());
beforeEach(() => app.reset());

describe('GET /api/portfolio?at=', () => {
  beforeEach(async () => {
    await app.buy('2026-06-01', 500_000, '300.00');
    await app.transfer('2026-06-02', cold[0]!, cold[1]!, 100_000, 1_000);
    await app.buy('2026-06-03', 250_000, '1500.00', 'DKK', cold[1]);
    await app.transfer('2026-06-04', cold[1]!, cold[2]!, 50_000, 2_000);
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
    await insertClosedCandles(app.t.db.database.db, 'btc.candles_day', [
      candle('BTC/EUR', '2026-06-02', '58000.5'),
      candle('BTC/USD', '2026-06-02', '63000.1'),
      candle('BTC/EUR', '2026-06-03', '1'),
    ]);
    const p = await app.portfolio('?at=2026-06-02');
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
    const p = await app.portfolio('?at=2026-06-03');
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
    const empty = await app.portfolio('?at=2026-05-31');
    expect(empty).toMatchObject({ sats: 0, bought_sats: 0, fee_sats: 0, average_price: null });
    expect(empty.cost).toEqual({ eur: '0.00', dkk: '0.00', usd: '0.00' });
    const now = await app.portfolio();
    const today = await app.portfolio('?at=2026-07-03');
    for (const k of ['sats', 'bought_sats', 'fee_sats', 'cost', 'average_price'] as const)
      expect(today[k]).toEqual(now[k]);
    expect(today.wallets.map((w) => [w.id, w.sats])).toEqual(now.wallets.map((w) => [w.id, w.sats]));
    expect(now.sats).toBe(now.bought_sats - now.fee_sats);
  });

  it('leaves btc_dkk null when the rates of the day cannot be had', async () => {
    await insertClosedCandles(app.t.db.database.db, 'btc.candles_day', [
      candle('BTC/EUR', '2026-05-20', '50000'),
    ]);
    app.fake.failAlways({ kind: 'status', status: 503 });
    const p = await app.portfolio('?at=2026-05-20');
    expect(p.price).toEqual({ btc_eur: '50000.00', btc_usd: null, btc_dkk: null });
    expect(p.value).toEqual({ eur: '0.00', dkk: null, usd: null });
  });

  it('takes the Danish date as today: just after midnight in Denmark the new day may be asked for', async () => {
    app.t.clock.set('2026-07-03T22:30:00Z');
    expect((await app.get('/api/portfolio?at=2026-07-04')).statusCode).toBe(200);
    const next = await app.get('/api/portfolio?at=2026-07-05');
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
    const res = await app.get(`/api/portfolio?at=${at}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().detail).toMatch(/querystring\.at/);
  });

  it('refuses an unknown query parameter, naming it', async () => {
    const res = await app.get('/api/portfolio?as_of=2026-06-01');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/as_of/);
  });

  it('accepts the genesis day', async () => {
    expect((await app.portfolio('?at=2009-01-03')).sats).toBe(0);
  });
});
