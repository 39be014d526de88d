import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, quantityOf } from '../../test/fakes/eloverblik.js';
import { FeedHealth } from '../shared/health.js';
import { EloverblikClient, EloverblikItemError, refreshTokenSource } from './eloverblik.js';
import { ProviderError } from './http.js';
import { testDeps } from '../../test/support/providers.js';
import { problemOf } from '../http/problem.js';

const PARENT = HOUSEHOLD[0]!;
const D06 = PARENT.children.find((c) => c.type === 'D06')!.id;
const D07 = PARENT.children.find((c) => c.type === 'D07')!.id;

let fake: FakeEloverblik;
let waits: number[];
let health: FeedHealth;
let clock: number;

function client(overrides: Partial<ConstructorParameters<typeof EloverblikClient>[0]> = {}) {
  // The injected sleep returns at once and moves the clock's monotonic scale on by what it skipped,
  // so the budget's pause after a 429 is over when the retry comes.
  let skipped = 0;
  const testClock = { now: () => new Date(clock), monotonicMs: () => performance.now() + skipped };
  return new EloverblikClient({
    baseUrl: fake.url,
    timeoutMs: 1000,
    refreshToken: async () => fake.refreshToken,
    health,
    sleep: async (ms) => {
      waits.push(ms);
      skipped += ms;
    },
    ...testDeps('eloverblik', { clock: testClock }),
    tokenBudget: testDeps('eloverblik-token', { clock: testClock }).budget,
    ...overrides,
  });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ProviderError,
  );

beforeAll(async () => {
  fake = await FakeEloverblik.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.server.heal();
  fake.server.requests.length = 0;
  fake.itemErrors.clear();
  waits = [];
  health = new FeedHealth('metering', true);
  clock = Date.now();
});

describe('Eloverblik client against the fake provider', () => {
  it('reads metering points with their child points', async () => {
    const points = await client().meteringPoints();
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ id: PARENT.id, type: 'E17', settlementMethod: 'E02' });
    expect(points[0]!.children.map((c) => [c.type, c.parentId])).toEqual([
      ['D06', PARENT.id],
      ['D07', PARENT.id],
      ['D14', PARENT.id],
    ]);
    expect(health.lastSuccessAt).not.toBeNull();
  });

  it('reads a normal day as 24 hourly points with their instants, quantities and qualities', async () => {
    const series = await client().timeSeries([D06, D07], '2026-06-10', '2026-06-11');
    expect(series.map((s) => [s.meteringPointId, s.businessType])).toEqual([
      [D06, 'A01'],
      [D07, 'A04'],
    ]);
    const points = series[1]!.periods[0]!.points;
    expect(points).toHaveLength(24);
    expect(points[0]).toEqual({
      position: 1,
      start: new Date('2026-06-09T22:00:00Z'),
      quantityKwh: quantityOf(D07, 1),
      quality: 'A03',
    });
    expect(points[23]!.start).toEqual(new Date('2026-06-10T21:00:00Z'));
    const request = fake.server.requests.find((r) => r.method === 'POST')!;
    expect(request.path).toBe('/customerapi/api/meterdata/gettimeseries/2026-06-10/2026-06-11/Hour');
    expect(request.json()).toEqual({ meteringPoints: { meteringPoint: [D06, D07] } });
  });

  it.each([
    ['2026-03-29', 23, '2026-03-28T23:00:00Z', '2026-03-29T21:00:00Z'],
    ['2026-10-25', 25, '2026-10-24T22:00:00Z', '2026-10-25T22:00:00Z'],
  ])('reads the change day %s as %i points', async (date, count, first, last) => {
    const [series] = await client().timeSeries(
      [D07],
      date,
      date === '2026-03-29' ? '2026-03-30' : '2026-10-26',
    );
    const points = series!.periods[0]!.points;
    expect(points).toHaveLength(count);
    expect(points[0]!.start).toEqual(new Date(first));
    expect(points[count - 1]!.start).toEqual(new Date(last));
    expect(new Set(points.map((p) => p.start.getTime())).size).toBe(count);
  });

  it('refuses an end date equal to the start without calling the provider', async () => {
    await expect(client().timeSeries([D07], '2026-06-10', '2026-06-10')).rejects.toThrow(/must be after/);
    expect(fake.server.requests).toHaveLength(0);
  });

  it('reads charges: subscriptions, fees and tariffs with exact prices', async () => {
    const [charges] = await client().charges([PARENT.id]);
    expect(charges!.meteringPointId).toBe(PARENT.id);
    const byName = Object.fromEntries(charges!.charges.map((c) => [c.name, c]));
    expect(byName.Netabonnement).toMatchObject({
      kind: 'subscription',
      quantity: 1,
      prices: [{ position: 1, priceDkk: '58.25' }],
    });
    expect(byName['Nettarif C time']!.prices).toHaveLength(24);
    expect(byName['Nettarif C time']!.prices[17]).toEqual({ position: 18, priceDkk: '0.7885' });
    expect(byName.Systemtarif).toMatchObject({ kind: 'tariff', periodType: 'P1D', validTo: null });
  });

  it('exchanges the refresh token once and reuses the access token', async () => {
    const c = client();
    await c.meteringPoints();
    await c.timeSeries([D07], '2026-06-10', '2026-06-11');
    await c.charges([PARENT.id]);
    expect(fake.tokenCalls).toBe(1);
    const data = fake.server.requests.filter((r) => !r.path.endsWith('/token'));
    expect(data.every((r) => r.headers.authorization !== `Bearer ${fake.refreshToken}`)).toBe(true);
  });

  it('shares one token exchange between calls made at once', async () => {
    const c = client();
    await Promise.all([c.meteringPoints(), c.meteringPoints(), c.charges([PARENT.id])]);
    expect(fake.tokenCalls).toBe(1);
  });

  it('renews an expired access token once on a 401 and goes on', async () => {
    const c = client();
    await c.meteringPoints();
    fake.expireTokens();
    expect(await c.meteringPoints()).toHaveLength(1);
    expect(fake.tokenCalls).toBe(2);
  });

  it('renews the token shortly before it expires, not after', async () => {
    const c = client();
    await c.meteringPoints();
    clock += 24 * 3600_000 - 10 * 60_000;
    await c.meteringPoints();
    expect(fake.tokenCalls).toBe(1);
    clock += 6 * 60_000;
    await c.meteringPoints();
    expect(fake.tokenCalls).toBe(2);
  });

  it('gives up after one renewal when the data call keeps answering 401', async () => {
    fake.refuseAccessTokens = true;
    const e = await failure(client().meteringPoints());
    fake.refuseAccessTokens = false;
    expect(e.status).toBe(401);
    expect(fake.tokenCalls).toBe(2);
    expect(fake.server.countOf('GET', '/customerapi/api/meteringpoints/meteringpoints')).toBe(2);
    expect(problemOf(e)).toMatchObject({ status: 502, detail: expect.stringContaining('eloverblik') });
  });

  it('reports a refused refresh token without its value', async () => {
    const e = await failure(client({ refreshToken: async () => 'wrong-refresh-token' }).meteringPoints());
    expect(e.message).toBe('eloverblik: the refresh token was refused (HTTP 401)');
    expect(problemOf(e)!.status).toBe(502);
    expect(health.ok).toBe(false);
    expect(health.lastError).not.toContain('wrong-refresh-token');
  });

  it('waits the minute the provider asks for after a 429 and retries', async () => {
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 60 });
    expect(await client().meteringPoints()).toHaveLength(1);
    expect(waits).toEqual([60_000]);
  });

  it('waits a minute after a 503 without Retry-After and retries a bounded number of times', async () => {
    fake.server.failNext({ kind: 'status', status: 503, json: 'DataHub unavailable' }, 2);
    expect(await client().charges([PARENT.id])).toHaveLength(1);
    expect(waits).toEqual([60_000, 60_000]);
    fake.server.failAlways({ kind: 'status', status: 503, json: 'DataHub unavailable' });
    waits = [];
    const e = await failure(client({ retries: 3 }).charges([PARENT.id]));
    expect(waits).toEqual([60_000, 60_000, 60_000]);
    expect(problemOf(e)).toMatchObject({ status: 503, detail: expect.stringContaining('eloverblik') });
  });

  it('does not wait for a Retry-After far beyond a minute', async () => {
    fake.server.failNext({ kind: 'rate-limit', retryAfterSeconds: 3600 });
    const e = await failure(client().meteringPoints());
    expect(e.status).toBe(429);
    expect(waits).toEqual([]);
  });

  it('turns a per-item error inside a 200 into an error with its code', async () => {
    fake.itemErrors.set(D07, { code: 30007, text: 'NoMeteringPointDataAviliable' });
    const e = await failure(client().timeSeries([D06, D07], '2026-06-10', '2026-06-11'));
    expect(e).toBeInstanceOf(EloverblikItemError);
    expect((e as EloverblikItemError).code).toBe(30007);
    expect(e.message).toBe(`eloverblik: error 30007 NoMeteringPointDataAviliable for metering point ${D07}`);
    expect(problemOf(e)!.status).toBe(502);
  });

  it('rejects an answer that does not have the documented shape', async () => {
    const c = client();
    await c.meteringPoints();
    fake.server.failNext({ kind: 'status', status: 200, json: { result: [{ typeOfMP: 'E17' }] } });
    const e = await failure(c.meteringPoints());
    expect(e.message).toContain('result[0].meteringPointId is not a text');
    fake.server.failNext({
      kind: 'status',
      status: 200,
      json: { result: [{ meteringPointId: '5713', typeOfMP: 'E17' }] },
    });
    const short = await failure(c.meteringPoints());
    expect(short.message).toContain('result[0].meteringPointId "5713" is not an 18-digit metering point id');
  });
});

describe('the refresh token source', () => {
  it('prefers METERING_TOKEN, else reads the .token file trimmed, else says how to provide one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-token-'));
    const file = path.join(dir, '.token');
    expect(await refreshTokenSource({ meteringToken: 'from-env', meteringTokenFile: file })()).toBe(
      'from-env',
    );
    const missing = await failure(refreshTokenSource({ meteringToken: null, meteringTokenFile: file })());
    expect(missing.message).toBe(
      `eloverblik: no refresh token: set METERING_TOKEN or write the token to ${file}`,
    );
    expect(problemOf(missing)!.status).toBe(503);
    await writeFile(file, '\n  from-file-token \n');
    expect(await refreshTokenSource({ meteringToken: null, meteringTokenFile: file })()).toBe(
      'from-file-token',
    );
    await writeFile(file, '   \n');
    await expect(refreshTokenSource({ meteringToken: null, meteringTokenFile: file })()).rejects.toThrow(
      /no refresh token/,
    );
  });
});
