import Big from 'big.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatedRates, startFakeFrankfurter } from '../../test/fakes/frankfurter.js';
import type { FakeHttpServer } from '../../test/fakes/http.js';
import { FeedHealth } from '../shared/health.js';
import { CROSS_DP, FrankfurterClient, crossRate, parseV1 } from './frankfurter.js';
import { ProviderError } from './http.js';
import { testDeps } from '../../test/support/providers.js';
import { problemOf } from '../http/problem.js';

let fake: FakeHttpServer;
let health: FeedHealth;
let client: FrankfurterClient;
const opts = { latest: '2026-07-03', holidays: ['2026-04-03'] };

beforeAll(async () => {
  fake = await startFakeFrankfurter(opts);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
  health = new FeedHealth('rates', true);
  client = new FrankfurterClient({
    ...testDeps('frankfurter'),
    baseUrl: fake.url,
    timeoutMs: 300,
    retries: 2,
    initialDelayMs: 5,
    health,
  });
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );

describe('crossRate', () => {
  it('divides exactly and keeps 10 decimals', () => {
    expect(crossRate('0.88137', '6.5816')).toBe(
      new Big('6.5816').div('0.88137').round(CROSS_DP, 2).toString(),
    );
    expect(crossRate('0.88137', '6.5816')).toBe('7.4674654231');
    expect(crossRate('0.5', '3.75')).toBe('7.5');
  });
});

describe('parseV1', () => {
  it.each([
    ['an array', []],
    ['a missing date', { base: 'USD', rates: { EUR: 0.9 } }],
    ['an impossible date', { base: 'USD', date: '2026-13-45', rates: { EUR: 0.9 } }],
    ['a string rate', { base: 'USD', date: '2026-03-13', rates: { EUR: '0.9' } }],
    ['a negative rate', { base: 'USD', date: '2026-03-13', rates: { EUR: -1 } }],
    ['no rates object', { base: 'USD', date: '2026-03-13' }],
  ])('rejects %s', (_name, body) => {
    expect(() => parseV1(body)).toThrow();
  });
});

describe('FrankfurterClient against a fake Frankfurter v1', () => {
  it('asks for USD-based EUR and DKK of a day and computes the cross', async () => {
    const r = await client.usdRates('2026-06-10');
    const want = generatedRates('2026-06-10');
    expect(r).toEqual({
      rates_date: '2026-06-10',
      usd_eur: want.EUR,
      usd_dkk: want.DKK,
      eur_dkk: crossRate(want.EUR, want.DKK),
    });
    expect(fake.requests[0]?.path).toBe('/v1/2026-06-10');
    expect(Object.fromEntries(fake.requests[0]!.query)).toEqual({ base: 'USD', symbols: 'EUR,DKK' });
    expect(health.lastSuccessAt).not.toBeNull();
  });

  it('returns the previous business day for a weekend and a holiday', async () => {
    expect((await client.usdRates('2026-06-14')).rates_date).toBe('2026-06-12');
    expect((await client.usdRates('2026-04-05')).rates_date).toBe('2026-04-02');
  });

  it('asks /v1/latest for the latest', async () => {
    expect((await client.usdRates('latest')).rates_date).toBe('2026-07-03');
    expect(fake.requests[0]?.path).toBe('/v1/latest');
  });

  it.each([
    [404, { message: 'not found' }],
    [422, { message: 'bad currency pair' }],
  ])('fails at once on %i, naming the provider', async (status, json) => {
    fake.failNext({ kind: 'status', status, json });
    const e = await failure(client.usdRates('2026-06-10'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.status).toBe(status);
    expect(e.transient).toBe(false);
    expect(problemOf(e)!.detail).toMatch(/frankfurter/);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ['a 5xx', { kind: 'status', status: 503 }],
    ['a 429', { kind: 'rate-limit', retryAfterSeconds: 0 }],
    ['a dropped connection', { kind: 'drop' }],
  ] as const)('retries %s and then answers', async (_name, fault) => {
    fake.failNext(fault, 2);
    expect((await client.usdRates('2026-06-10')).rates_date).toBe('2026-06-10');
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after its retries on a lasting 5xx', async () => {
    fake.failAlways({ kind: 'status', status: 500 });
    const e = await failure(client.usdRates('2026-06-10'));
    expect(e.status).toBe(500);
    expect(problemOf(e)!.status).toBe(502);
    expect(fake.requests).toHaveLength(3);
    expect(health.ok).toBe(false);
  });

  it('fails on a timeout with a transient error', async () => {
    fake.failAlways({ kind: 'timeout' });
    const e = await failure(client.usdRates('2026-06-10', { retries: 0 }));
    expect(e.message).toMatch(/frankfurter: no answer within 300 ms/);
    expect(problemOf(e)!.status).toBe(503);
  });

  it('fails on malformed JSON', async () => {
    fake.failAlways({ kind: 'malformed' });
    const e = await failure(client.usdRates('2026-06-10', { retries: 0 }));
    expect(e.message).toMatch(/malformed JSON/);
  });

  it.each([
    [
      'DKK missing',
      { amount: 1, base: 'USD', date: '2026-06-10', rates: { EUR: 0.9 } },
      /lacks USD-based EUR and DKK/,
    ],
    ['another base', { amount: 1, base: 'EUR', date: '2026-06-10', rates: { EUR: 1, DKK: 7.46 } }, /lacks/],
    [
      'rates as strings',
      { amount: 1, base: 'USD', date: '2026-06-10', rates: { EUR: '0.9', DKK: '6.7' } },
      /malformed answer/,
    ],
  ])('rejects a well-formed JSON answer with %s and records the failure', async (_name, json, message) => {
    fake.failNext({ kind: 'status', status: 200, json });
    const e = await failure(client.usdRates('2026-06-10'));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toMatch(message);
    expect(problemOf(e)!.status).toBe(502);
    expect(health.lastError).toMatch(message);
  });
});
