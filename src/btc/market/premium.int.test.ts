import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKraken } from '../../../test/fakes/kraken-ws.js';
import { MemoryRates, RATES_0703 } from '../../../test/fakes/market-rates.js';
import { FakeStrike, STRIKE_KEY } from '../../../test/fakes/strike.js';
import { waitFor } from '../../../test/fakes/stream-clients.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { marketOnly } from '../../../test/support/services.js';

const TOKEN = 'test-token-premium-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

let kraken: FakeKraken;
let strike: FakeStrike;
let t: TestApp;

beforeAll(async () => {
  kraken = await FakeKraken.start({ heartbeatMs: 100 });
  strike = await FakeStrike.start();
  // The fee is learned from the day's first quote, which the poller takes at the start.
  strike.feeRate = '0.01';
  strike.flatFee = '0.55';
  // the broker stamps its quotes by the test's clock
  strike.now = () => (t ? t.clock.now() : new Date('2026-07-03T08:00:00Z'));
  t = await startTestApp({
    now: '2026-07-03T08:00:00Z',
    env: {
      API_TOKEN: TOKEN,
      SPOT_FEED_ENABLED: 'true',
      SPOT_FEED_URL: kraken.url,
      QUOTE_FEED_ENABLED: 'true',
      QUOTE_FEED_URL: strike.url,
      STRIKE_API_KEY: STRIKE_KEY,
      QUOTE_TOTAL_EUR: '55',
    },
    services: marketOnly(new MemoryRates(RATES_0703), {
      intervalMs: 3_600_000,
      storeIntervalMs: 10,
      minIntervalMs: 10,
      initialBackoffMs: 20,
    }),
  });
  await t.startFeeds();
});
afterAll(async () => {
  await t.close();
  await kraken.close();
  await strike.close();
});

/** A spot tick at the test clock's now, waited for until it is the stored latest price. */
async function spot(eur: number) {
  kraken.tick('BTC/EUR', eur);
  const at = t.clock.now().toISOString();
  await waitFor(
    async () => {
      const p = (await t.call('GET', '/api/price/latest')).json();
      return p.btc_eur === eur && p.at === at;
    },
    10_000,
    `the spot price ${eur}`,
  );
}

async function quote() {
  const res = await t.call('POST', '/api/quote', undefined, auth);
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** The known premium: the broker sells at `brokerEur`, the fee is `fee` of the total, spot is `spotEur`. */
function expected(brokerEur: string, total: string, fee: string, spotEur: string) {
  const spread = new Big(brokerEur).div(spotEur).minus(1).times(100);
  const allIn = new Big(brokerEur)
    .times(total)
    .div(new Big(total).minus(fee))
    .div(spotEur)
    .minus(1)
    .times(100);
  return { spread: Number(spread), allIn: Number(allIn) };
}

describe('the broker premium of each quote', () => {
  it('matches a known spread and fee to 0.01 points, on the stored quote and /api/quote/latest', async () => {
    t.clock.advance(3_600_000);
    strike.eurPerBtc = '60000';
    await spot(59_000);
    const q = await quote();
    // fee learned from the day's INCLUSIVE quote: 1 % of 55 rounded up to the cent, plus 0.55
    expect(q.fee_eur).toBe(1.1);
    const want = expected('60000', '55', '1.10', '59000');
    expect(q.spot_eur).toBe(59_000);
    expect(Math.abs(q.spread_pct - want.spread)).toBeLessThan(0.01);
    expect(Math.abs(q.all_in_pct - want.allIn)).toBeLessThan(0.01);
    // and exactly what the stored sats give
    const perBtc = new Big(q.pre_fee_eur).div(new Big(q.quote_sats).div(1e8));
    expect(q.spread_pct).toBe(Number(perBtc.div(59_000).minus(1).times(100).round(6, Big.roundHalfUp)));
    const latest = (await t.call('GET', '/api/quote/latest')).json();
    expect(latest).toMatchObject({ spread_pct: q.spread_pct, all_in_pct: q.all_in_pct, spot_eur: 59_000 });
  });

  it('a broker below spot has a negative spread', async () => {
    strike.eurPerBtc = '58410';
    const q = await quote();
    const want = expected('58410', '55', '1.10', '59000');
    expect(want.spread).toBeLessThan(0);
    expect(Math.abs(q.spread_pct - want.spread)).toBeLessThan(0.01);
    expect(Math.abs(q.all_in_pct - want.allIn)).toBeLessThan(0.01);
  });

  it('uses a spot price 60 s old, but none older: then the quote has no premium', async () => {
    strike.eurPerBtc = '60000';
    t.clock.advance(60_000);
    const edge = await quote();
    expect(edge.spot_eur).toBe(59_000);
    t.clock.advance(1);
    const stale = await quote();
    expect(stale).toMatchObject({ spot_eur: null, spread_pct: null, all_in_pct: null });
    expect(stale.quote_sats).toBeGreaterThan(0);
    expect((await t.call('GET', '/api/quote/latest')).json()).toMatchObject({ spread_pct: null });
  });

  it('takes the latest spot at or before the quote, never one after it', async () => {
    await spot(61_000);
    const q = await quote();
    expect(q.spot_eur).toBe(61_000);
    expect(Math.abs(q.spread_pct - expected('60000', '55', '1.10', '61000').spread)).toBeLessThan(0.01);
  });
});

describe('GET /api/quote/premium', () => {
  // 2026-07-05 10:00–11:59 Danish summer time (08:00–09:59 UTC), three quotes with a premium
  // and one without
  let spreads: number[] = [];
  let allIns: number[] = [];
  beforeAll(async () => {
    t.clock.set('2026-07-05T08:10:00Z');
    await spot(59_000);
    strike.eurPerBtc = '60000';
    const a = await quote();
    strike.eurPerBtc = '59500';
    const b = await quote();
    t.clock.set('2026-07-05T09:05:00Z');
    const none = await quote();
    expect(none.spread_pct).toBeNull();
    await spot(59_500);
    strike.eurPerBtc = '61000';
    const c = await quote();
    spreads = [a.spread_pct, b.spread_pct, c.spread_pct];
    allIns = [a.all_in_pct, b.all_in_pct, c.all_in_pct];
  });

  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

  it('answers hourly buckets: count, average, minimum and maximum of the quotes with a premium', async () => {
    const res = await t.call('GET', '/api/quote/premium?from=2026-07-05&to=2026-07-05&resolution=hour');
    expect(res.statusCode).toBe(200);
    const { items } = res.json();
    expect(items.map((i: { time: string }) => i.time)).toEqual([
      '2026-07-05T08:00:00.000Z',
      '2026-07-05T09:00:00.000Z',
    ]);
    expect(items[0]).toMatchObject({ quotes: 2, spread_pct_min: spreads[1], spread_pct_max: spreads[0] });
    expect(items[0].spread_pct_avg).toBeCloseTo(avg(spreads.slice(0, 2)), 5);
    expect(items[0].all_in_pct_avg).toBeCloseTo(avg(allIns.slice(0, 2)), 5);
    expect(items[1]).toMatchObject({ quotes: 1, spread_pct_avg: spreads[2], all_in_pct_avg: allIns[2] });
  });

  it('answers Danish days, starting at Danish midnight', async () => {
    const { items } = (
      await t.call('GET', '/api/quote/premium?from=2026-07-05&to=2026-07-06&resolution=day')
    ).json();
    expect(items).toHaveLength(1);
    expect(items[0].time).toBe('2026-07-04T22:00:00.000Z');
    expect(items[0].quotes).toBe(3);
    expect(items[0].spread_pct_avg).toBeCloseTo(avg(spreads), 5);
    expect(items[0].spread_pct_min).toBe(Math.min(...spreads));
    expect(items[0].spread_pct_max).toBe(Math.max(...spreads));
  });

  it('answers CSV with a header of the JSON field names', async () => {
    const res = await t.call('GET', '/api/quote/premium?from=2026-07-05&to=2026-07-05&format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('time,quotes,spread_pct_avg,spread_pct_min,spread_pct_max,all_in_pct_avg');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      `2026-07-05T09:00:00.000Z,1,${spreads[2]},${spreads[2]},${spreads[2]},${allIns[2]}`,
    );
  });

  it('is public, and empty where no quote was', async () => {
    const res = await t.call('GET', '/api/quote/premium?from=2026-01-01&to=2026-01-31&resolution=day');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ items: [] });
  });

  it.each([
    ['from=2026-07-06&to=2026-07-05', /after/],
    ['from=2025-01-01&to=2026-07-05', /more than 400 days/],
    ['from=2026-02-30&to=2026-07-05', /from/],
    ['to=2026-07-05', /from/],
    ['from=2026-07-05&to=2026-07-05&resolution=minute', /resolution/],
    ['from=2008-12-31&to=2009-01-05', /from/],
  ])('refuses %s with a 400 naming the problem', async (query, detail) => {
    const res = await t.call('GET', `/api/quote/premium?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toMatch(detail);
  });
});
