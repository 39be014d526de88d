import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik } from '../../../test/fakes/eloverblik.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { powerOnly } from '../../../test/support/services.js';
import { addDays } from '../../shared/danish-time.js';
import { createMeteringFeature } from './index.js';
import { lastSyncedDay, markSynced } from './repository.js';

/**
 * The daily catch-up takes every slot of the provider's budget that background work may; the
 * household posts a sync meanwhile, for a day the catch-up is about to fetch and for one it is
 * not: both are served (from the headroom the catch-up leaves, or by joining its fetch of the
 * day), none is refused for our own load, and each day is fetched once.
 */
const API_TOKEN = 'metering-catch-up-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
// 8 calls a second, 4 of them left to the household's requests: the catch-up (3 calls a day)
// is held to 4 a second, so it is still running when the requests come.
const BUDGET = { calls: 8, perMs: 1_000, headroom: 4, source: 'test' };
const THROUGH = '2026-10-26';

let fake: FakeEloverblik;
let t: TestApp;

beforeAll(async () => {
  fake = await FakeEloverblik.start();
  t = await startTestApp({
    now: '2026-10-28T10:00:00Z',
    env: {
      METERING_FEED_URL: fake.url,
      METERING_TOKEN: fake.refreshToken,
      API_TOKEN,
      METERING_SYNC_ENABLED: 'true',
    },
    services: powerOnly((ctx) => [createMeteringFeature(ctx)]),
    budgetLimits: { eloverblik: BUDGET },
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const seriesOf = (day: string) =>
  fake.server.requests.filter((r) => r.method === 'POST' && r.path.includes(`/gettimeseries/${day}/`)).length;

describe('the daily catch-up while the household posts a sync', () => {
  it('serves a sync of a day being caught up and of one that is not, while the catch-up runs; each day fetched once', async () => {
    await markSynced(t.ctx.database.db, addDays(THROUGH, -12));
    await t.startFeeds();
    // the catch-up is under way and has the budget's background share in use
    await expect.poll(() => fake.seriesCalls, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(2);

    const due = addDays(THROUGH, -1);
    const notDue = addDays(THROUGH, -40);
    const [a, b, again] = await Promise.all([
      t.call('POST', `/metering/sync?date=${due}`, undefined, auth),
      t.call('POST', `/metering/sync?date=${notDue}`, undefined, auth),
      t.call('POST', `/metering/sync?date=${notDue}`, undefined, auth),
    ]);
    for (const res of [a, b, again]) expect(res.statusCode, res.body).toBe(200);
    expect(a.json()).toMatchObject({ date: due, status: expect.stringMatching(/^(synced|already synced)$/) });
    expect(b.json()).toMatchObject({ date: notDue, status: 'synced' });
    // the second request for the same day joined the first: one answer, one fetch
    expect(again.json()).toEqual(b.json());
    expect(await lastSyncedDay(t.ctx.database.db)).not.toBe(THROUGH);

    await expect
      .poll(() => lastSyncedDay(t.ctx.database.db), { timeout: 30_000, interval: 50 })
      .toBe(THROUGH);
    for (let d = addDays(THROUGH, -11); d <= THROUGH; d = addDays(d, 1)) expect(seriesOf(d), d).toBe(1);
    expect(seriesOf(notDue)).toBe(1);
    expect(t.ctx.budgets.eloverblik.refused).toBe(0);
    const consumption = await t.call('GET', `/api/consumption?date=${due}`, undefined, auth);
    // 2026-10-25 is the 25-hour day of the change back from summer time
    expect(consumption.json<unknown[]>().length).toBe(25);
  }, 60_000);
});
