import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKraken } from '../../../test/fakes/kraken-ws.js';
import { MemoryRates, RATES_0703 } from '../../../test/fakes/market-rates.js';
import { FakeStrike, STRIKE_KEY, strikeTicker } from '../../../test/fakes/strike.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { marketOnly } from '../../../test/support/services.js';
import * as repo from './repository.js';

/**
 * Poisoned answers of the spot and quote providers: what was stored before a start judges the
 * first answers after it, prices outside their bounds and stamps after our clock are refused, a
 * fee outside its bounds is never taken as the day's fee, and /health says so until a sane
 * answer is taken.
 */
const TOKEN = 'test-token-poisoned-0123';
const auth = { authorization: `Bearer ${TOKEN}` };
const NOW = '2026-07-03T10:00:00Z';

describe('the spot feed after a start', () => {
  let kraken: FakeKraken;
  let db: TestDatabase;
  let t: TestApp;
  const latest = async () => (await t.call('GET', '/api/price/latest')).json();
  const spot = async () => (await t.call('GET', '/health')).json().feeds.spot;

  beforeAll(async () => {
    kraken = await FakeKraken.start({ heartbeatMs: 100 });
    db = await freshDatabase();
    // the price stored before the start
    await repo.insertPrice(db.database.db, {
      at: new Date(Date.parse(NOW) - 5_000),
      btc_usd: '65000',
      btc_eur: '60000',
      btc_dkk: null,
      rates: null,
    });
    // the first ticks after the start: a price no market had, and one 2.5× the stored one
    kraken.prices.set('BTC/USD', 1e300);
    kraken.prices.set('BTC/EUR', 150_000);
    t = await startTestApp({
      db,
      now: NOW,
      env: { SPOT_FEED_ENABLED: 'true', SPOT_FEED_URL: kraken.url },
      services: marketOnly(new MemoryRates(RATES_0703), { storeIntervalMs: 10, minIntervalMs: 10 }),
    });
    await t.startFeeds();
    // both snapshot ticks were handled: refused, or (what must not be) served
    await waitFor(
      async () => (await spot()).rejected >= 2 || (await latest()).btc_eur !== 60000,
      5_000,
      'the snapshot',
    );
  });
  afterAll(async () => {
    await t.close();
    await kraken.close();
    await db.close();
  });

  it('refuses a first tick of 1e300 and one 2.5× the stored price; the stored price is still served', async () => {
    expect(await latest()).toMatchObject({ btc_usd: 65000, btc_eur: 60000 });
    const health = await spot();
    expect(health).toMatchObject({ ok: false, rejected: 2 });
    expect(health.last_rejected).toMatch(/BTC\/EUR: 150000 is over 2× away from the last accepted 60000/);
  });

  it('takes the next sane ticks, and /health is ok again', async () => {
    kraken.tick('BTC/USD', 65100);
    kraken.tick('BTC/EUR', 60100);
    await waitFor(async () => (await latest()).btc_eur === 60100, 5_000, 'the sane price');
    expect(await latest()).toMatchObject({ btc_usd: 65100 });
    expect(await spot()).toMatchObject({ ok: true, rejected: 2 });
  });

  it('never serves a tick stamped after our clock', async () => {
    kraken.tick('BTC/USD', 65200, { timestamp: '2099-01-01T00:00:00Z' });
    await waitFor(async () => (await spot()).rejected === 3, 5_000, 'the future tick refused');
    expect((await spot()).last_rejected).toMatch(/BTC\/USD tick stamped 2099-01-01T00:00:00\.000Z/);
    kraken.tick('BTC/EUR', 60200);
    await waitFor(async () => (await latest()).btc_eur === 60200, 5_000, 'the next price');
    const served = await latest();
    expect(served.btc_usd).toBe(65100);
    expect(Date.parse(served.at)).toBeLessThanOrEqual(Date.parse(NOW) + 60_000);
  });
});

describe('the quote feed', () => {
  let strike: FakeStrike;
  let db: TestDatabase;
  let t: TestApp;
  const quote = () => t.call('POST', '/api/quote', undefined, auth);
  const health = async () => (await t.call('GET', '/health', undefined, auth)).json().feeds.quote;

  beforeAll(async () => {
    strike = await FakeStrike.start();
    db = await freshDatabase();
    // the quote stored before the start: 54.45 EUR bought 90,750 sats (60,000 EUR/BTC)
    await repo.insertQuote(db.database.db, {
      at: new Date(Date.parse(NOW) - 60_000),
      total_eur: '55',
      fee_eur: '0.55',
      pre_fee_eur: '54.45',
      quote_sats: 90_750,
      rates: strikeTicker('65000', '60000'),
      spot_eur: null,
      spread_pct: null,
      all_in_pct: null,
    });
    t = await startTestApp({
      db,
      now: NOW,
      env: {
        API_TOKEN: TOKEN,
        QUOTE_FEED_ENABLED: 'true',
        STRIKE_API_KEY: STRIKE_KEY,
        QUOTE_FEED_URL: strike.url,
      },
      services: marketOnly(new MemoryRates(null), { intervalMs: 3_600_000 }),
    });
    strike.now = () => t.clock.now();
  });
  afterAll(async () => {
    await t.close();
    await strike.close();
    await db.close();
  });

  it('judges the first ticker after a start by the stored quote: ten times the price is refused', async () => {
    strike.usdPerBtc = '650000';
    strike.eurPerBtc = '600000';
    const res = await quote();
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toMatch(/implausible rates ticker: BTC→USD: 650000\.0000 is over 2×/);
    expect((await t.call('GET', '/api/quote/latest')).json()).toMatchObject({ quote_sats: 90_750 });
    strike.usdPerBtc = '65000';
    strike.eurPerBtc = '60000';
  });

  it('refuses a fee above the total and never keeps it: the next sane answer gives the day its fee', async () => {
    t.clock.advance(24 * 3_600_000); // a new Danish day: its fee is learned first
    // the broker's answer to the day's INCLUSIVE quote for 55 EUR names a fee of 60 EUR
    strike.tamperNext = (a) => ({ ...a, fee: { amount: '60.00', currency: 'EUR' } });
    const refused = await quote();
    expect(refused.statusCode).toBe(502);
    expect(refused.json().detail).toMatch(
      /quote INCLUSIVE for 55 EUR: fee 60\.00 on 55 is outside 0\.\.25 %/,
    );
    expect(await db.database.db.selectFrom('btc.quote_fees').selectAll().execute()).toEqual([]);
    const bad = await health();
    expect(bad).toMatchObject({ ok: false });
    expect(bad.rejected).toBeGreaterThanOrEqual(2);
    expect(bad.last_rejected).toMatch(/fee 60\.00/);
    expect((await t.call('GET', '/health')).json().status).toBe('degraded');

    const taken = await quote();
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toMatchObject({ fee_eur: 0.55, pre_fee_eur: 54.45, quote_sats: 90_750 });
    expect(await health()).toMatchObject({ ok: true });
  });

  it('refuses a quote stamped after our clock', async () => {
    strike.now = () => new Date(t.clock.now().getTime() + 3_600_000);
    const res = await quote();
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toMatch(/quote stamped .* after /);
    strike.now = () => t.clock.now();
    expect((await quote()).statusCode).toBe(200);
  });
});
