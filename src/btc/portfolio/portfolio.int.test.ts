import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatedRates, publicationDay } from '../../../test/fakes/frankfurter.js';
import { cents, providerRates, startPortfolioApp } from '../../../test/support/portfolio.js';
import { insertPrice } from '../market/repository.js';

let app: Awaited<ReturnType<typeof startPortfolioApp>>;
let cold: number[];
beforeAll(async () => {
  app = await startPortfolioApp();
  cold = app.cold;
});
afterAll(() => app.close());
beforeEach(() => app.reset());

describe('GET /api/portfolio', () => {
  it('is documented and private', async () => {
    const doc = (await app.t.call('GET', '/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toContain('/api/portfolio');
    expect((await app.t.call('GET', '/api/portfolio')).statusCode).toBe(401);
    expect((await app.t.call('GET', '/api/portfolio?at=2026-07-01')).statusCode).toBe(401);
  });

  it('answers an empty ledger without a price: zeros, and nulls where nothing can be said', async () => {
    const p = await app.portfolio();
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
    await app.buy('2026-06-02', 100_000, '55.00', 'EUR');
    await app.buy('2026-06-03', 200_000, '1000.125', 'DKK');
    await app.buy('2026-06-04', 300_000, '70.005', 'USD');
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
    const p = await app.portfolio();
    expect(p.cost).toEqual({ eur: cents(eur), dkk: cents(dkk), usd: cents(usd) });
    expect(p.bought_sats).toBe(600_000);
    expect(p.sats).toBe(600_000);
    expect(p.fee_sats).toBe(0);
    // cost / 0.006 BTC, from the exact cost.
    expect(p.average_price!.eur).toBe(eur.times(1e8).div(600_000).round(2, Big.roundHalfUp).toFixed(2));
  });

  it('keeps money a float would alter exact', async () => {
    await app.buy('2026-06-02', 1, '0.1');
    await app.buy('2026-06-02', 1, '0.2');
    await app.buy('2026-06-03', 1, '123456789012345.67');
    await app.buy('2026-06-03', 1, '123456789012345.67');
    const p = await app.portfolio();
    expect(p.cost.eur).toBe('246913578024691.64');
    expect(p.average_price!.eur).toBe('6172839450617291000000.00');
  });

  it('values the sats at the latest spot price; value − cost is the unrealized pnl', async () => {
    await app.buy('2026-06-02', 1_234_567, '500.00');
    await insertPrice(app.t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000.5',
      btc_usd: '65000.25',
      btc_dkk: null,
      rates: null,
    });
    await insertPrice(app.t.db.database.db, {
      at: new Date('2026-07-03T09:59:59.900Z'),
      btc_eur: '61234.5',
      btc_usd: '66543.21',
      btc_dkk: '456789.123456',
      rates: null,
    });
    const p = await app.portfolio();
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
    await app.buy('2026-06-02', 100_000_000, '50000.00');
    await insertPrice(app.t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '40000',
      btc_usd: '43000',
      btc_dkk: null,
      rates: null,
    });
    const p = await app.portfolio();
    expect(p.price).toEqual({ btc_eur: '40000.00', btc_usd: '43000.00', btc_dkk: null });
    expect(p.value).toMatchObject({ eur: '40000.00', dkk: null });
    expect(p.unrealized_pnl).toMatchObject({ eur: '-10000.00', dkk: null });
  });

  it('a transfer fee lowers sats and value, never cost', async () => {
    await app.buy('2026-06-02', 1_000_000, '600.00');
    await insertPrice(app.t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000',
      btc_usd: '65000',
      btc_dkk: '447000',
      rates: null,
    });
    const before = await app.portfolio();
    await app.transfer('2026-06-05', cold[0]!, cold[1]!, 400_000, 5_000);
    const after = await app.portfolio();
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
    await app.buy('2026-06-02', 1_000_000, '600.00');
    await insertPrice(app.t.db.database.db, {
      at: new Date('2026-07-03T09:00:00Z'),
      btc_eur: '60000',
      btc_usd: '65000',
      btc_dkk: '447000',
      rates: null,
    });
    const before = await app.portfolio();
    const id = await app.buy('2026-06-20', 50_000, '123.45', 'DKK', cold[2]);
    expect((await app.portfolio()).cost).not.toEqual(before.cost);
    expect((await app.t.call('DELETE', `/api/events/${id}`, undefined, app.auth)).statusCode).toBe(204);
    expect(await app.portfolio()).toEqual(before);
    expect(await app.portfolio('?at=2026-06-30')).toEqual(await app.portfolio('?at=2026-06-30'));
  });

  it('answers 503 naming the day when the ledger kept no rates for a buy', async () => {
    await app.buy('2026-06-02', 1000, '10.00');
    await app.buy('2026-06-05', 1000, '10.00', 'USD');
    await sql`delete from btc.ledger_rates where date = '2026-06-05'`.execute(app.t.db.database.db);
    const res = await app.get('/api/portfolio');
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/no rates for the buys of 2026-06-05/);
    // Before that day every buy is converted.
    expect((await app.portfolio('?at=2026-06-04')).cost.eur).toBe('10.00');
  });

  it("converts a DKK buy on a weekend at Friday's rates", async () => {
    const saturday = '2026-06-27';
    expect(publicationDay(saturday)).toBe('2026-06-26');
    await app.buy(saturday, 100_000, '745.00', 'DKK');
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
    expect((await app.portfolio()).cost).toEqual(expected);
  });
});
