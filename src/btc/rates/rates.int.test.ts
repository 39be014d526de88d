import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { generatedRates, startFakeFrankfurter } from '../../../test/fakes/frankfurter.js';
import type { FakeHttpServer } from '../../../test/fakes/http.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../../../test/support/db.js';
import { crossRate } from '../../providers/frankfurter.js';
import { daysFrom } from '../../providers/frankfurter-series.js';
import { ProviderError } from '../../providers/http.js';
import { btcOnly } from '../../../test/support/services.js';
import { JobRunner } from '../../jobs/job.js';
import { ALWAYS_LEADER, type Leadership } from '../../jobs/leadership.js';
import type { Feature } from '../../context.js';
import { createRatesFeature, createRatesService } from './index.js';
import * as repo from './repository.js';
import type { DailyRates, Rates } from './service.js';

const fakeOpts = { latest: '2026-07-03', holidays: [] as string[] };
let fake: FakeHttpServer;
let db: TestDatabase;

beforeAll(async () => {
  fake = await startFakeFrankfurter(fakeOpts);
  db = await freshDatabase();
});
afterAll(async () => {
  await fake.close();
  await db.close();
});
beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
});

const record = (date: string, rates_date = date, usd_eur = '0.9', usd_dkk = '6.75'): DailyRates => ({
  date,
  rates_date,
  usd_eur,
  usd_dkk,
  eur_dkk: crossRate(usd_eur, usd_dkk),
});

function generated(date: string, rates_date = date): DailyRates {
  const g = generatedRates(rates_date);
  return record(date, rates_date, g.EUR, g.DKK);
}

interface RatesApp extends TestApp {
  rates: Rates;
  feature: Feature;
  /** The hourly refresh's round now (tests cannot wait an hour). */
  tick(): Promise<void>;
}

async function app(
  now: string,
  env: Record<string, string> = {},
  interval = 10,
  leadership: Leadership = ALWAYS_LEADER,
): Promise<RatesApp> {
  let parts: Pick<RatesApp, 'rates' | 'feature'> | null = null;
  const t = await startTestApp({
    db,
    now,
    env: { RATES_FEED_URL: fake.url, PROVIDER_TIMEOUT_MS: '500', ...env },
    leadership: { btcPollers: leadership },
    services: btcOnly((ctx) => {
      const rates = createRatesService(ctx);
      const feature = createRatesFeature(ctx, { rates }, { startIntervalMs: interval });
      parts = { rates, feature };
      return [feature];
    }),
  });
  const tick = () => {
    const refresh = parts!.feature.jobs?.find((j) => j.name === 'rates');
    if (!refresh) throw new Error('the refresh is a job only with RATES_FEED_ENABLED');
    return new JobRunner(refresh, t.ctx).runNow();
  };
  return Object.assign(t, parts!, { tick });
}

async function clear() {
  await db.database.db.deleteFrom('btc.currency_rates').execute();
}

describe('GET /api/currencies/:date', () => {
  let t: RatesApp;
  beforeAll(async () => {
    await clear();
    // 2026-07-03 22:30Z is already 2026-07-04 in Denmark.
    t = await app('2026-07-03T22:30:00Z');
  });
  afterAll(() => t.close());

  it('answers today from the latest stored record, without the provider', async () => {
    await repo.upsert(db.database.db, record('2026-07-02', '2026-07-02', '0.86123', '6.4321'));
    fake.failAlways({ kind: 'status', status: 503 });
    const res = await t.call('GET', '/api/currencies/2026-07-04');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      date: '2026-07-04',
      rates_date: '2026-07-02',
      usd_eur: 0.86123,
      usd_dkk: 6.4321,
      eur_dkk: Number(crossRate('0.86123', '6.4321')),
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers a stored past day from the database', async () => {
    await repo.upsert(db.database.db, record('2026-05-05', '2026-05-05', '0.87777', '6.5555'));
    const res = await t.call('GET', '/api/currencies/2026-05-05');
    expect(res.json()).toMatchObject({ date: '2026-05-05', usd_eur: 0.87777, usd_dkk: 6.5555 });
    expect(fake.requests).toHaveLength(0);
  });

  it('fetches, stores and answers a past day that is missing', async () => {
    const res = await t.call('GET', '/api/currencies/2026-06-10');
    expect(res.statusCode).toBe(200);
    const want = generated('2026-06-10');
    expect(res.json()).toEqual({
      date: '2026-06-10',
      rates_date: '2026-06-10',
      usd_eur: Number(want.usd_eur),
      usd_dkk: Number(want.usd_dkk),
      eur_dkk: Number(want.eur_dkk),
    });
    expect(await repo.findByDate(db.database.db, '2026-06-10')).toEqual(want);
    await t.call('GET', '/api/currencies/2026-06-10');
    expect(fake.requests).toHaveLength(1);
  });

  it('stores a weekend day with the business day its rates came from', async () => {
    const res = await t.call('GET', '/api/currencies/2026-06-14');
    expect(res.json()).toMatchObject({ date: '2026-06-14', rates_date: '2026-06-12' });
    expect(await repo.findByDate(db.database.db, '2026-06-14')).toEqual(
      generated('2026-06-14', '2026-06-12'),
    );
  });

  it.each(['2026-07-05', '2027-01-01'])('refuses the future day %s with 400 naming date', async (date) => {
    const res = await t.call('GET', `/api/currencies/${date}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().detail).toMatch(/^date: .*future/);
    expect(fake.requests).toHaveLength(0);
  });

  it.each(['2026-02-30', 'yesterday', '2026-7-1', '20260701', '1998-12-31'])(
    'refuses the malformed or impossible date %s with 400 naming date',
    async (date) => {
      const res = await t.call('GET', `/api/currencies/${date}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/^params\.date: /);
      expect(fake.requests).toHaveLength(0);
    },
  );

  it('answers 503 naming frankfurter for a missing past day while the provider is down, storing nothing', async () => {
    fake.failAlways({ kind: 'status', status: 503 });
    const res = await t.call('GET', '/api/currencies/2026-06-11');
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/frankfurter/);
    expect(await repo.findByDate(db.database.db, '2026-06-11')).toBeUndefined();
  });

  it('answers 502 naming frankfurter when the provider answers nonsense', async () => {
    fake.failAlways({ kind: 'status', status: 200, json: { base: 'USD', date: '2026-06-12', rates: {} } });
    const res = await t.call('GET', '/api/currencies/2026-06-12');
    expect(res.statusCode).toBe(502);
    expect(res.json().detail).toMatch(/frankfurter/);
  });

  it('refuses a future or malformed date in forDate too, asking nobody', async () => {
    const rates = t.rates;
    await expect(rates.forDate('2026-07-05')).rejects.toMatchObject({ kind: 'invalid', detail: /^date: / });
    await expect(rates.forDate('2026-7-5')).rejects.toMatchObject({ kind: 'invalid', detail: /^date: / });
    expect(fake.requests).toHaveLength(0);
  });

  it('makes one provider call for concurrent misses of one date', async () => {
    const rates = t.rates;
    const all = await Promise.all(Array.from({ length: 8 }, () => rates.forDate('2026-06-16')));
    expect(new Set(all.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(fake.countOf('GET', '/v1/2026-06-16')).toBe(1);
  });

  it('is listed in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json();
    expect(Object.keys(doc.paths)).toContain('/api/currencies/{date}');
  });
});

describe('start and refresh', () => {
  it('seeds latest from the stored record while the provider is down, tries 5 times, then goes on', async () => {
    await clear();
    await repo.upsert(db.database.db, record('2026-07-01'));
    await repo.upsert(db.database.db, record('2026-06-30', '2026-06-30', '0.8', '6'));
    fake.failAlways({ kind: 'status', status: 503 });
    const t = await app('2026-07-03T10:00:00Z', { RATES_FEED_ENABLED: 'true' });
    try {
      await t.startFeeds();
      expect(t.rates.latest()).toEqual(record('2026-07-01'));
      await vi.waitFor(() => expect(fake.countOf('GET', '/v1/latest')).toBe(5), { timeout: 5000 });
      await new Promise((r) => setTimeout(r, 100));
      expect(fake.countOf('GET', '/v1/latest')).toBe(5);
      expect(t.rates.latest()).toEqual(record('2026-07-01'));
      expect(t.ctx.health.feed('rates').ok).toBe(false);
      const res = await t.call('GET', '/api/currencies/2026-07-03');
      expect(res.json()).toMatchObject({ date: '2026-07-03', rates_date: '2026-07-01', usd_eur: 0.9 });
    } finally {
      await t.close();
    }
  });

  it('takes the provider at its second attempt, storing today and telling listeners', async () => {
    await clear();
    fake.failNext({ kind: 'drop' });
    const t = await app('2026-07-04T10:00:00Z', { RATES_FEED_ENABLED: 'true' });
    try {
      const seen: DailyRates[] = [];
      t.rates.onChange((r) => seen.push(r));
      await t.startFeeds();
      await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 5000 });
      // Saturday 2026-07-04: the latest publication is Friday's.
      expect(seen[0]).toEqual(generated('2026-07-04', '2026-07-03'));
      expect(await repo.findByDate(db.database.db, '2026-07-04')).toEqual(seen[0]);
      expect(fake.countOf('GET', '/v1/latest')).toBe(2);
      expect(t.ctx.health.feed('rates').ok).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('does not poll when RATES_FEED_ENABLED is false, but still seeds', async () => {
    await clear();
    await repo.upsert(db.database.db, record('2026-07-01'));
    const t = await app('2026-07-03T10:00:00Z', { RATES_FEED_ENABLED: 'false' });
    try {
      await t.startFeeds();
      expect(t.rates.latest()).toEqual(record('2026-07-01'));
      await new Promise((r) => setTimeout(r, 100));
      expect(fake.requests).toHaveLength(0);
      expect(t.ctx.health.feed('rates').enabled).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('replaces today once a later publication appears, never with an older one', async () => {
    await clear();
    const t = await app('2026-07-06T09:00:00Z');
    try {
      const rates = t.rates;
      fakeOpts.latest = '2026-07-03';
      expect((await rates.refresh())?.rates_date).toBe('2026-07-03');
      fakeOpts.latest = '2026-07-06';
      expect(await rates.refresh()).toEqual(generated('2026-07-06'));
      expect(rates.latest()).toEqual(generated('2026-07-06'));
      fake.failNext({
        kind: 'status',
        status: 200,
        json: { amount: 1, base: 'USD', date: '2026-07-03', rates: { DKK: 6, EUR: 1 } },
      });
      expect(await rates.refresh()).toEqual(generated('2026-07-06'));
      expect(await repo.findByDate(db.database.db, '2026-07-06')).toEqual(generated('2026-07-06'));
    } finally {
      fakeOpts.latest = '2026-07-03';
      await t.close();
    }
  });

  it.each([
    // 2026-03-29 is 23 hours long in Denmark; 22:30Z is already 00:30 on 2026-03-30 (CEST).
    ['23-hour', '2026-03-29T22:30:00Z', '2026-03-30', '2026-03-27'],
    // 2026-10-25 is 25 hours long; 23:30Z is already 00:30 on 2026-10-26 (CET).
    ['25-hour', '2026-10-25T23:30:00Z', '2026-10-26', '2026-10-23'],
  ])('keeps today right just after a %s day', async (_name, now, today, stored) => {
    await clear();
    const t = await app(now);
    try {
      await repo.upsert(db.database.db, record(stored));
      expect((await t.call('GET', `/api/currencies/${today}`)).json()).toMatchObject({
        date: today,
        rates_date: stored,
      });
      const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);
      expect((await t.call('GET', `/api/currencies/${tomorrow}`)).statusCode).toBe(400);
    } finally {
      await t.close();
    }
  });

  it('does not ask the provider on the hourly tick while another process leads', async () => {
    await clear();
    const follower: Leadership = { isLeader: () => false, watch: () => () => {} };
    const t = await app('2026-07-03T10:00:00Z', { RATES_FEED_ENABLED: 'true' }, 10, follower);
    try {
      // Another process stored today's rates; the tick re-reads them instead of polling.
      await repo.upsert(db.database.db, record('2026-07-03'));
      await t.tick();
      expect(t.rates.latest()).toEqual(record('2026-07-03'));
      expect(fake.requests).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});

describe('forDates', () => {
  let t: RatesApp;
  beforeAll(async () => {
    t = await app('2026-07-03T10:00:00Z');
  });
  afterAll(() => t.close());
  beforeEach(clear);

  const stored = async () =>
    (await db.database.db.selectFrom('btc.currency_rates').select('date').execute()).length;

  it('fetches a range with weekends in one series call and stores each day with its publication day', async () => {
    const days = daysFrom('2026-06-05', '2026-06-15');
    const got = await t.rates.forDates([...days].reverse());
    expect(got.map((r) => r.date)).toEqual(days);
    expect(got.find((r) => r.date === '2026-06-07')).toEqual(generated('2026-06-07', '2026-06-05'));
    expect(got.find((r) => r.date === '2026-06-15')).toEqual(generated('2026-06-15'));
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/2026-06-05..2026-06-15']);
    for (const r of got) expect(await repo.findByDate(db.database.db, r.date)).toEqual(r);
    // A second ask reads them all from the database.
    expect(await t.rates.forDates(days)).toEqual(got);
    expect(fake.requests).toHaveLength(1);
  });

  it('answers stored days from the database and fetches only the span of the missing ones', async () => {
    await repo.upsert(db.database.db, record('2026-05-04', '2026-05-04', '0.87777', '6.5555'));
    await repo.upsert(db.database.db, record('2026-06-20', '2026-06-19', '0.87777', '6.5555'));
    const got = await t.rates.forDates([
      '2026-05-04',
      '2026-06-01',
      '2026-06-20',
      '2026-06-10',
      '2026-06-01',
    ]);
    expect(got.map((r) => r.date)).toEqual(['2026-05-04', '2026-06-01', '2026-06-10', '2026-06-20']);
    expect(got[0]).toEqual(record('2026-05-04', '2026-05-04', '0.87777', '6.5555'));
    expect(got[3]).toEqual(record('2026-06-20', '2026-06-19', '0.87777', '6.5555'));
    expect(got[2]).toEqual(generated('2026-06-10'));
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/2026-06-01..2026-06-10']);
    // Only the asked days are stored, not every day of the span.
    expect(await stored()).toBe(4);
  });

  it('splits missing days more than a year apart into series calls of at most a year', async () => {
    const asked = ['2024-01-02', '2024-06-30', '2025-01-01', '2025-01-02', '2026-07-03'];
    const got = await t.rates.forDates(asked);
    expect(got.map((r) => r.rates_date)).toEqual([
      '2024-01-02',
      '2024-06-28',
      '2025-01-01',
      '2025-01-02',
      '2026-07-03',
    ]);
    // 2024 is a leap year: 2024-01-02..2025-01-01 is 366 days, the most one call asks for.
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/2024-01-02..2025-01-01',
      '/v1/2025-01-02..2025-01-02',
      '/v1/2026-07-03..2026-07-03',
    ]);
  });

  it('stores nothing when the provider fails on a later call, and throws its error', async () => {
    // The first year's call answers (a delay of nothing lets it through); the next one fails, retries too.
    fake.failNext({ kind: 'delay', ms: 0 }).failNext({ kind: 'status', status: 500 }, 3);
    const e = await t.rates.forDates(['2024-03-01', '2025-06-02']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).message).toMatch(/frankfurter/);
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/2024-03-01..2024-03-01',
      ...Array.from({ length: 3 }, () => '/v1/2025-06-02..2025-06-02'),
    ]);
    expect(await stored()).toBe(0);
  });

  it('refuses an answer with days outside the range asked, storing nothing', async () => {
    const g = generatedRates('2026-06-12');
    const day = { DKK: Number(g.DKK), EUR: Number(g.EUR) };
    fake.failNext({
      kind: 'status',
      status: 200,
      json: {
        amount: 1,
        base: 'USD',
        start_date: '2026-06-10',
        end_date: '2026-06-15',
        rates: { '2026-06-10': day, '2026-06-15': day },
      },
    });
    await expect(t.rates.forDates(['2026-06-10', '2026-06-12'])).rejects.toThrow(
      /holds rates dated 2026-06-10\.\.2026-06-15, outside 2026-05-27\.\.2026-06-12/,
    );
    expect(await stored()).toBe(0);
  });

  it('refuses a future or malformed day as invalid, naming it, asking nobody', async () => {
    await expect(t.rates.forDates(['2026-06-01', '2026-07-04'])).rejects.toMatchObject({
      kind: 'invalid',
      detail: /^date: 2026-07-04 is in the future/,
    });
    await expect(t.rates.forDates(['2026-6-1'])).rejects.toMatchObject({
      kind: 'invalid',
      detail: /^date: /,
    });
    expect(fake.requests).toHaveLength(0);
  });
});
