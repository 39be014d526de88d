import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, timeSeriesItem } from '../../test/fakes/eloverblik.js';
import { dayAheadRecords } from '../../test/fakes/energidataservice.js';
import { FakeHttpServer } from '../../test/fakes/http.js';
import { FakeKrakenOhlc } from '../../test/fakes/kraken-ohlc.js';
import { strikeTicker } from '../../test/fakes/strike.js';
import { testDeps } from '../../test/support/providers.js';
import { FeedHealth } from '../shared/health.js';
import { EloverblikClient } from './eloverblik.js';
import { EnergiDataService } from './energidataservice.js';
import { FrankfurterClient } from './frankfurter.js';
import { HttpProvider, ProviderError } from './http.js';
import { KrakenOhlcClient } from './kraken-ohlc.js';
import { JumpGuard, SDAC_EUR_MWH } from './plausible.js';
import { StrikeClient } from './strike.js';
import { problemOf } from '../http/problem.js';

/** Provider answers are untrusted input. One block per class of check. */

let fake: FakeHttpServer;
let health: FeedHealth;
beforeAll(async () => {
  fake = await FakeHttpServer.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
  health = new FeedHealth('feed', true);
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );

describe('answer bodies are capped (PROVIDER_MAX_BYTES)', () => {
  const big = 'x'.repeat(5_000);
  beforeAll(() => {
    fake.on('GET', '/streamed', { text: JSON.stringify({ big }) });
    fake.on('GET', '/announced', {
      text: JSON.stringify({ big }),
      headers: { 'content-length': String(big.length + 10) },
    });
    fake.on('GET', '/small', { json: { ok: true } });
  });
  const provider = () =>
    new HttpProvider({
      ...testDeps('thing', { maxBytes: 4_096 }),
      name: 'thing',
      baseUrl: fake.url,
      timeoutMs: 1_000,
      retries: 3,
      initialDelayMs: 5,
      health,
    });

  it.each(['/streamed', '/announced'])(
    '%s: a larger body fails the call as a provider failure, without retrying',
    async (path) => {
      const e = await failure(provider().get(path));
      expect(e).toBeInstanceOf(ProviderError);
      expect(e.message).toMatch(/larger than 4096 bytes/);
      expect(e.transient).toBe(false);
      expect(problemOf(e)!.status).toBe(502);
      expect(fake.countOf('GET', path)).toBe(1);
      expect(health.ok).toBe(false);
    },
  );

  it('a body within the cap is read as before', async () => {
    expect(await provider().get('/small')).toEqual({ ok: true });
  });
});

describe('day-ahead prices inside the SDAC harmonised limits and the asked days', () => {
  let eds: EnergiDataService;
  beforeAll(() => {
    fake.on('GET', '/dataset/DayAheadPrices', { json: { records: [] } });
  });
  beforeEach(() => {
    eds = new EnergiDataService({ ...testDeps('eds'), baseUrl: fake.url, timeoutMs: 1_000, health });
  });

  it('drops and counts a price above +4000 or below −500 EUR/MWh (or its DKK equal), keeping the rest', async () => {
    const records = dayAheadRecords('2026-07-01');
    records[3]!.DayAheadPriceEUR = SDAC_EUR_MWH.max + 1;
    records[4]!.DayAheadPriceDKK = -9_999;
    records[5]!.DayAheadPriceEUR = -500; // the limit itself is a price the market can clear at
    records[5]!.DayAheadPriceDKK = -3_730.19;
    fake.failNext({ kind: 'status', status: 200, json: { records } });
    const rows = await eds.spotPrices('2026-07-01', '2026-07-02');
    expect(rows).toHaveLength(records.length - 2);
    expect(rows.some((r) => r.priceEur === '-500')).toBe(true);
    expect(health.rejected).toBe(2);
    expect(health.lastRejected).toMatch(/SDAC/);
  });

  it('drops and counts rows outside the Danish days asked for', async () => {
    const records = [...dayAheadRecords('2026-07-01'), ...dayAheadRecords('2026-07-02')];
    fake.failNext({ kind: 'status', status: 200, json: { records } });
    const rows = await eds.spotPrices('2026-07-01', '2026-07-02');
    expect(rows).toHaveLength(records.length / 2);
    expect(health.rejected).toBe(records.length / 2);
  });
});

describe('currency rates within 2× of the last accepted, unless a second answer confirms', () => {
  let client: FrankfurterClient;
  const answer = (eur: number, dkk: number, date = '2026-07-01') => ({
    kind: 'status' as const,
    status: 200,
    json: { amount: 1, base: 'USD', date, rates: { DKK: dkk, EUR: eur } },
  });
  beforeAll(() => {
    fake.on('GET', /^\/v1\//, { status: 500 });
  });
  beforeEach(() => {
    client = new FrankfurterClient({
      ...testDeps('frankfurter'),
      baseUrl: fake.url,
      timeoutMs: 1_000,
      retries: 0,
      health,
    });
    client.accepted({ usd_eur: '0.9', usd_dkk: '6.7' });
  });

  it('refuses a jump (502, counted), then takes it when the next answer says the same', async () => {
    fake.failNext(answer(0.9, 20.1));
    const e = await failure(client.usdRates('2026-07-01'));
    expect(e.message).toMatch(/implausible rates for 2026-07-01: USD\/DKK: 20.1/);
    expect(problemOf(e)!.status).toBe(502);
    expect(health.rejected).toBe(1);
    fake.failNext(answer(0.9, 20.2));
    expect((await client.usdRates('2026-07-01')).usd_dkk).toBe('20.2');
  });

  it('takes an ordinary move at once', async () => {
    fake.failNext(answer(0.95, 7.1));
    expect((await client.usdRates('2026-07-01')).usd_eur).toBe('0.95');
    expect(health.rejected).toBe(0);
  });

  it('refuses rates dated after the day asked for, or more than 14 days before it', async () => {
    fake.failNext(answer(0.9, 6.7, '2026-07-02'));
    await failure(client.usdRates('2026-07-01'));
    fake.failNext(answer(0.9, 6.7, '2026-06-10'));
    await failure(client.usdRates('2026-07-01'));
    expect(health.rejected).toBe(2);
  });
});

describe('JumpGuard', () => {
  it('holds a jump, confirms it by a second answer near it, and forgets a one-off', () => {
    const g = new JumpGuard();
    expect(g.check('k', '100')).toBeNull();
    expect(g.check('k', '250')).toMatch(/over 2×/);
    expect(g.check('k', '120')).toBeNull(); // back to normal: the 250 was a one-off
    expect(g.check('k', '30')).toMatch(/over 2×/);
    expect(g.check('k', '31')).toBeNull(); // a second answer confirms the move
    expect(g.check('k', '62')).toBeNull();
    expect(g.check('k', '0')).toMatch(/not a positive number/);
  });
});

describe('BTC prices within 2× of the last accepted', () => {
  it('Kraken OHLC: drops candles before `since`, whose close jumps, or whose open and close lie outside low..high', async () => {
    const ohlc = await FakeKrakenOhlc.start(1_780_000_000);
    try {
      const client = new KrakenOhlcClient({
        ...testDeps('kraken'),
        baseUrl: ohlc.url,
        timeoutMs: 1_000,
        health,
      });
      const first = await client.ohlc('XBTUSD', 60);
      expect(health.rejected).toBe(0);
      const at = first.rows.at(-1)!.time + 3_600;
      const row = (time: number, close: string, low = '1') => [
        time,
        close,
        close,
        low,
        close,
        close,
        '1.0',
        3,
      ];
      ohlc.server.failNext({
        kind: 'status',
        status: 200,
        json: {
          error: [],
          result: {
            XXBTZUSD: [
              row(at - 7_200, '42000'), // before the asked `since`
              row(at, String(Number(first.rows.at(-1)!.close) * 3)), // a jump
              row(at + 3_600, '42000', '50000'), // low above the close
            ],
            last: at,
          },
        },
      });
      const page = await client.ohlc('XBTUSD', 60, { since: at });
      expect(page.rows).toEqual([]);
      expect(health.rejected).toBe(3);
    } finally {
      await ohlc.server.close();
    }
  });

  it('Strike: a ticker whose BTC price jumps is refused whole and counted; the next alike is taken', async () => {
    const strike = new StrikeClient({
      ...testDeps('strike'),
      baseUrl: fake.url,
      apiKey: 'k',
      timeoutMs: 1_000,
      health,
    });
    fake.failNext({ kind: 'status', status: 200, json: strikeTicker('65000', '60000') });
    expect(await strike.ticker()).toHaveLength(5);
    fake.failNext({ kind: 'status', status: 200, json: strikeTicker('650000', '600000') });
    expect((await failure(strike.ticker())).message).toMatch(/implausible rates ticker: BTC→USD/);
    expect(health.rejected).toBe(1);
    fake.failNext({ kind: 'status', status: 200, json: strikeTicker('651000', '601000') });
    expect(await strike.ticker()).toHaveLength(5);
  });
});

describe('metering points outside the requested day', () => {
  it('are dropped and counted', async () => {
    const elo = await FakeEloverblik.start();
    try {
      const client = new EloverblikClient({
        ...testDeps('eloverblik'),
        tokenBudget: testDeps('eloverblik-token').budget,
        baseUrl: elo.url,
        timeoutMs: 1_000,
        refreshToken: async () => elo.refreshToken,
        health,
      });
      await client.meteringPoints(); // the token first, so the next request is the series
      const id = HOUSEHOLD[0]!.id;
      elo.server.failNext({
        kind: 'status',
        status: 200,
        json: { result: [timeSeriesItem(id, 'E17', '2026-06-09', '2026-06-11')] },
      });
      const [series] = await client.timeSeries([id], '2026-06-09', '2026-06-10');
      expect(series!.periods.flatMap((p) => p.points)).toHaveLength(24);
      expect(health.rejected).toBe(24);
      expect(health.lastRejected).toMatch(/outside 2026-06-09\.\.2026-06-09/);
    } finally {
      await elo.close();
    }
  });
});
