import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatedRates, startFakeFrankfurter } from '../../test/fakes/frankfurter.js';
import type { FakeHttpServer } from '../../test/fakes/http.js';
import { testDeps } from '../../test/support/providers.js';
import { FeedHealth } from '../shared/health.js';
import { FrankfurterClient, crossRate } from './frankfurter.js';
import { MAX_SERIES_DAYS, daysFrom, parseV1Series, publicationOfEachDay } from './frankfurter-series.js';
import { ProviderError } from './http.js';
import { problemOf } from '../http/problem.js';

let fake: FakeHttpServer;
let health: FeedHealth;
let client: FrankfurterClient;
// Good Friday and Easter Monday 2026 are TARGET holidays.
const opts = { latest: '2026-07-03', holidays: ['2026-04-03', '2026-04-06'] };

beforeAll(async () => {
  fake = await startFakeFrankfurter(opts);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
  health = new FeedHealth('rates', true);
  client = clientOf(16 * 1024 * 1024);
});

function clientOf(maxBytes: number) {
  return new FrankfurterClient({
    ...testDeps('frankfurter', { maxBytes }),
    baseUrl: fake.url,
    timeoutMs: 5_000,
    retries: 2,
    initialDelayMs: 5,
    health,
  });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );

const series = (rates: Record<string, Record<string, number>>) => {
  const days = Object.keys(rates).sort();
  return { amount: 1, base: 'USD', start_date: days[0], end_date: days.at(-1), rates };
};

describe('the time series of Frankfurter v1 through the adapter', () => {
  it('answers every day of a range with Easter and weekends as the single-day call answers it, in one call', async () => {
    const got = await client.usdRatesSeries('2026-03-29', '2026-04-12');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.path).toBe('/v1/2026-03-29..2026-04-12');
    expect(Object.fromEntries(fake.requests[0]!.query)).toEqual({ base: 'USD', symbols: 'EUR,DKK' });
    const days = daysFrom('2026-03-29', '2026-04-12');
    expect([...got.keys()]).toEqual(days);
    for (const day of days) expect(got.get(day)).toEqual(await client.usdRates(day));
    // Sunday 03-29 takes Friday 03-27, from before the range; Easter 04-03..04-06 takes 04-02.
    expect(got.get('2026-03-29')?.rates_date).toBe('2026-03-27');
    expect(got.get('2026-04-06')?.rates_date).toBe('2026-04-02');
    const want = generatedRates('2026-04-07');
    expect(got.get('2026-04-07')).toEqual({
      rates_date: '2026-04-07',
      usd_eur: want.EUR,
      usd_dkk: want.DKK,
      eur_dkk: crossRate(want.EUR, want.DKK),
    });
    expect(health.lastSuccessAt).not.toBeNull();
  });

  it('carries the latest publication forward to days after it, as today before the ECB publishes', async () => {
    const got = await client.usdRatesSeries('2026-07-01', '2026-07-05');
    expect([...got.values()].map((r) => r.rates_date)).toEqual([
      '2026-07-01',
      '2026-07-02',
      '2026-07-03',
      '2026-07-03',
      '2026-07-03',
    ]);
  });

  it(`refuses a range of more than ${MAX_SERIES_DAYS} days or an empty one without calling`, async () => {
    await expect(client.usdRatesSeries('2025-01-01', '2026-01-02')).rejects.toThrow(RangeError);
    await expect(client.usdRatesSeries('2026-01-02', '2026-01-01')).rejects.toThrow(RangeError);
    expect(fake.requests).toHaveLength(0);
    expect((await client.usdRatesSeries('2025-01-01', '2026-01-01')).size).toBe(MAX_SERIES_DAYS);
  });

  it.each([
    [
      'a day after the range',
      { '2026-06-10': { DKK: 6.4, EUR: 0.86 }, '2026-06-13': { DKK: 6.4, EUR: 0.86 } },
    ],
    [
      'a day over 14 days before it',
      { '2026-05-26': { DKK: 6.4, EUR: 0.86 }, '2026-06-10': { DKK: 6.4, EUR: 0.86 } },
    ],
  ])('refuses an answer holding %s, counting it rejected', async (_name, rates) => {
    fake.failNext({ kind: 'status', status: 200, json: series(rates) });
    const e = await failure(client.usdRatesSeries('2026-06-10', '2026-06-12'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(
      /answer for 2026-06-10\.\.2026-06-12 holds rates dated .*, outside 2026-05-27\.\.2026-06-12/,
    );
    expect(problemOf(e)!.status).toBe(502);
    expect(health.rejected).toBe(1);
  });

  it('refuses an answer with a gap of more than 14 days inside the range', async () => {
    fake.failNext({
      kind: 'status',
      status: 200,
      json: series({ '2026-06-01': { DKK: 6.4, EUR: 0.86 }, '2026-06-30': { DKK: 6.4, EUR: 0.86 } }),
    });
    const e = await failure(client.usdRatesSeries('2026-06-01', '2026-06-30'));
    expect(e.message).toMatch(/no rates for 2026-06-16 within the 14 days before it/);
  });

  it('refuses a rate far outside its bounds on any day of the series', async () => {
    fake.failNext({
      kind: 'status',
      status: 200,
      json: series({ '2026-06-10': { DKK: 6.4, EUR: 0.86 }, '2026-06-11': { DKK: 6.4, EUR: 86 } }),
    });
    const e = await failure(client.usdRatesSeries('2026-06-10', '2026-06-11'));
    expect(e.message).toMatch(
      /implausible rates of 2026-06-11 for 2026-06-10\.\.2026-06-11: USD\/EUR: 86 is outside/,
    );
    expect(health.rejected).toBe(1);
  });

  it.each([
    [
      'DKK missing on a day',
      series({ '2026-06-10': { EUR: 0.86 } }),
      /lacks USD-based EUR and DKK on 2026-06-10/,
    ],
    ['another base', { ...series({ '2026-06-10': { DKK: 7.46, EUR: 1 } }), base: 'EUR' }, /lacks/],
    [
      'a rate as a string',
      series({ '2026-06-10': { DKK: '6.4', EUR: 0.86 } as never }),
      /not a positive number/,
    ],
    [
      'no rates',
      { amount: 1, base: 'USD', start_date: '2026-06-10', end_date: '2026-06-10', rates: {} },
      /rates is empty/,
    ],
    [
      'a key that is not a date',
      {
        ...series({ '2026-06-10': { DKK: 6.4, EUR: 0.86 } }),
        rates: { '2026-06-10': { DKK: 6.4, EUR: 0.86 }, 'June 10': {} },
      },
      /rates key "June 10" is not YYYY-MM-DD/,
    ],
    [
      'an end_date that is not its last day',
      { ...series({ '2026-06-10': { DKK: 6.4, EUR: 0.86 } }), end_date: '2026-06-11' },
      /are not its first and last days/,
    ],
    [
      'a single-day answer',
      { amount: 1, base: 'USD', date: '2026-06-10', rates: { DKK: 6.4, EUR: 0.86 } },
      /start_date/,
    ],
  ])('refuses an answer with %s', async (_name, json, message) => {
    fake.failNext({ kind: 'status', status: 200, json });
    const e = await failure(client.usdRatesSeries('2026-06-10', '2026-06-10'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(message);
    expect(health.lastError).toMatch(message);
  });

  it('refuses an answer larger than the body cap', async () => {
    client = clientOf(4096);
    const e = await failure(client.usdRatesSeries('2025-07-01', '2026-06-30'));
    expect(e.message).toMatch(/larger than 4096 bytes/);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a 5xx and then answers', async () => {
    fake.failNext({ kind: 'status', status: 503 }, 2);
    expect((await client.usdRatesSeries('2026-06-10', '2026-06-12')).size).toBe(3);
    expect(fake.requests).toHaveLength(3);
  });
});

describe('parseV1Series and publicationOfEachDay', () => {
  it('reads the rates as the decimal text sent, in date order', () => {
    const s = parseV1Series(series({ '2026-06-11': { EUR: 0.8614 }, '2026-06-10': { EUR: 0.86 } }));
    expect([...s.rates]).toEqual([
      ['2026-06-10', { EUR: '0.86' }],
      ['2026-06-11', { EUR: '0.8614' }],
    ]);
  });

  it('takes for each day its own publication or the latest before it within the lookback', () => {
    const each = publicationOfEachDay(['2026-06-05', '2026-06-08'], '2026-06-06', '2026-06-09', 14);
    expect([...each]).toEqual([
      ['2026-06-06', '2026-06-05'],
      ['2026-06-07', '2026-06-05'],
      ['2026-06-08', '2026-06-08'],
      ['2026-06-09', '2026-06-08'],
    ]);
    expect(() => publicationOfEachDay(['2026-06-08'], '2026-06-06', '2026-06-09', 14)).toThrow(
      /no rates for 2026-06-06/,
    );
  });
});
