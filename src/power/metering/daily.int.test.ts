import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, quantityOf } from '../../../test/fakes/eloverblik.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ROOMY } from '../../../test/support/providers.js';
import { powerOnly } from '../../../test/support/services.js';
import { JobRunner } from '../../jobs/job.js';
import { soleLeaderships, type Leadership } from '../../jobs/leadership.js';
import { FeedHealth } from '../../shared/health.js';
import { createEloverblikClient, createMeteringFeature, createMeteringService } from './index.js';
import { lastSyncedDay, markSynced } from './repository.js';
import { DAYS_PER_RUN, MeteringSyncScheduler } from './scheduler.js';

const API_TOKEN = 'metering-daily-token-0123';
const auth = { authorization: `Bearer ${API_TOKEN}` };
const D07 = HOUSEHOLD[0]!.children.find((c) => c.type === 'D07')!.id;

let fake: FakeEloverblik;
let t: TestApp;

beforeAll(async () => {
  fake = await FakeEloverblik.start();
  fake.readingOccurrence = 'PT15M';
  t = await startTestApp({
    now: '2026-10-28T10:00:00Z',
    env: { METERING_FEED_URL: fake.url, METERING_TOKEN: fake.refreshToken, API_TOKEN },
    services: powerOnly((ctx) => [createMeteringFeature(ctx)]),
    // A run of 31 days makes about a hundred calls; the published limit's minute is not what this tests.
    budgetLimits: { eloverblik: ROOMY },
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('a quarter-hour meter', () => {
  it("keeps the meter's quarters: 100 on the 25-hour day, and an hour sums its four", async () => {
    const res = await t.call('POST', '/metering/sync?date=2026-10-25', undefined, auth);
    expect(res.json()).toMatchObject({ status: 'synced', consumption: 100 });
    expect(
      fake.server.requests.some((r) => /gettimeseries\/2026-10-25\/2026-10-26\/Quarter$/i.test(r.path)),
    ).toBe(true);
    const quarters = (
      await t.call('GET', '/api/consumption?date=2026-10-25&resolution=quarter', undefined, auth)
    ).json<{ time_dk: string; resolution_minutes: number; quantity_kwh: number }[]>();
    expect(quarters).toHaveLength(100);
    expect(quarters.slice(8, 13).map((q) => [q.time_dk, q.resolution_minutes])).toEqual([
      ['2026-10-25T02:00:00+02:00', 15],
      ['2026-10-25T02:15:00+02:00', 15],
      ['2026-10-25T02:30:00+02:00', 15],
      ['2026-10-25T02:45:00+02:00', 15],
      ['2026-10-25T02:00:00+01:00', 15],
    ]);
    const hours = (await t.call('GET', '/api/consumption?date=2026-10-25', undefined, auth)).json<
      { time_dk: string; resolution_minutes: number; quantity_kwh: number }[]
    >();
    expect(hours).toHaveLength(25);
    const sum = [1, 2, 3, 4].reduce((s, p) => s + Number(quantityOf(D07, p)) * 1000, 0) / 1000;
    expect(hours[0]).toMatchObject({
      time_dk: '2026-10-25T00:00:00+02:00',
      resolution_minutes: 60,
      quantity_kwh: sum,
    });
    expect(
      (await t.call('GET', '/api/consumption?date=2026-10-25&resolution=day', undefined, auth)).statusCode,
    ).toBe(400);
  });
});

describe('the daily sync', () => {
  /** The sync and a runner of its job, on a process that leads the metering lock or not. */
  const scheduler = (leader: boolean, health = new FeedHealth('metering-sync', true)) => {
    const sync = new MeteringSyncScheduler(createMeteringService(t.ctx, {}, createEloverblikClient(t.ctx)), {
      clock: t.clock,
      log: pino({ level: 'silent' }),
      health,
      shutdown: t.ctx.shutdown,
      tokenAvailable: async () => true,
    });
    const lead: Leadership = { isLeader: () => leader, watch: (l) => (l(leader), () => {}) };
    const runner = new JobRunner(sync.job(), {
      ...t.ctx,
      leadership: soleLeaderships({ meteringSync: lead }),
    });
    return { due: () => sync.due(), tick: () => runner.runNow() };
  };

  it('fetches nothing on a process that does not lead', async () => {
    const before = fake.seriesCalls;
    await scheduler(false).tick();
    expect(fake.seriesCalls).toBe(before);
    expect(await lastSyncedDay(t.ctx.database.db)).toBeNull();
  });

  it('fetches every day after the last synced up to the day before yesterday, at most 31 a run, and says the last in /health', async () => {
    await markSynced(t.ctx.database.db, '2026-08-01');
    const health = new FeedHealth('metering-sync', true);
    const s = scheduler(true, health);
    expect((await s.due()).length).toBe(DAYS_PER_RUN);
    await s.tick();
    expect(await lastSyncedDay(t.ctx.database.db)).toBe('2026-09-01');
    expect(health.detail).toBe('last synced day 2026-09-01');
    await s.tick();
    expect(await lastSyncedDay(t.ctx.database.db)).toBe('2026-10-02');
    await s.tick();
    // 2026-10-25 was synced by hand before (already synced, no call); the run ends at the day before yesterday.
    expect(await lastSyncedDay(t.ctx.database.db)).toBe('2026-10-26');
    expect(await s.due()).toEqual([]);
    const calls = fake.seriesCalls;
    await s.tick();
    expect(fake.seriesCalls).toBe(calls);
  });

  it('stops within the run when the process shuts down', async () => {
    const abort = new AbortController();
    abort.abort();
    const sync = new MeteringSyncScheduler(createMeteringService(t.ctx), {
      clock: t.clock,
      log: pino({ level: 'silent' }),
      health: new FeedHealth('metering-sync', true),
      shutdown: abort.signal,
      tokenAvailable: async () => true,
    });
    const s = new JobRunner(sync.job(), { ...t.ctx, shutdown: abort.signal });
    t.clock.skip(5 * 86_400_000);
    const calls = fake.seriesCalls;
    await s.runNow();
    expect(fake.seriesCalls).toBe(calls);
  });
});
