import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEloverblik } from '../../../test/fakes/eloverblik.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ROOMY } from '../../../test/support/providers.js';
import { powerOnly } from '../../../test/support/services.js';
import { syncMonthCommand } from './command.js';

let fake: FakeEloverblik;
let t: TestApp;

function command() {
  const out: string[] = [];
  const err: string[] = [];
  const cmd = syncMonthCommand({ sleep: async () => {}, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { run: (args: string[]) => cmd.run(args, t.ctx), out, err };
}

async function consumptionRows(): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from power.consumption`.execute(
    t.ctx.database.db,
  );
  return r.rows[0]!.n;
}

beforeAll(async () => {
  fake = await FakeEloverblik.start();
  t = await startTestApp({
    now: '2026-07-03T10:00:00Z',
    env: { METERING_FEED_URL: fake.url, METERING_TOKEN: fake.refreshToken },
    // A month is 90 calls; the production budget (60 a minute) would make this test wait a minute.
    budgetLimits: { eloverblik: ROOMY },
    services: powerOnly(() => []),
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('sync-month', () => {
  it('syncs each past day in order, reports a failed day, goes on and exits non-zero', async () => {
    fake.dateErrors.set('2026-06-15', { code: 30007, text: 'NoMeteringPointDataAviliable' });
    const c = command();
    expect(await c.run(['2026-06'])).toBe(1);
    const days = fake.server.requests
      .filter((r) => r.path.includes('/gettimeseries/'))
      .map((r) => r.path.split('/')[5]);
    expect(days).toEqual(Array.from({ length: 30 }, (_, i) => `2026-06-${String(i + 1).padStart(2, '0')}`));
    expect(c.err).toEqual([
      '2026-06-15: failed: eloverblik: error 30007 NoMeteringPointDataAviliable for metering point 571313100000000017',
    ]);
    expect(c.out).toEqual([
      'sync-month 2026-06: 30 days; 29 synced (696 production and 696 consumption rows), ' +
        '0 already synced, 0 no data to fetch, 1 failed (2026-06-15)',
    ]);
    expect(await consumptionRows()).toBe(29 * 24);
    expect(fake.tokenCalls).toBe(1);
  });

  it('a second run syncs only the day that failed', async () => {
    fake.dateErrors.clear();
    fake.server.requests.length = 0;
    const c = command();
    expect(await c.run(['2026-06'])).toBe(0);
    expect(fake.seriesCalls).toBe(1);
    expect(c.out[0]).toBe(
      'sync-month 2026-06: 30 days; 1 synced (24 production and 24 consumption rows), ' +
        '29 already synced, 0 no data to fetch, 0 failed',
    );
    expect(await consumptionRows()).toBe(30 * 24);
  });

  it('stops at today: yesterday has no data to fetch yet', async () => {
    const c = command();
    expect(await c.run(['2026-07'])).toBe(0);
    expect(c.out[0]).toMatch(/^sync-month 2026-07: 2 days; 1 synced .* 1 no data to fetch, 0 failed$/);
  });

  it('refuses a malformed or future month', async () => {
    for (const args of [[], ['2026-13'], ['2026-6'], ['2026-06', '2026-07']]) {
      const c = command();
      expect(await c.run(args)).toBe(2);
      expect(c.err[0]).toMatch(/^sync-month: expected one month as YYYY-MM/);
    }
    const future = command();
    expect(await future.run(['2026-08'])).toBe(2);
    expect(future.err[0]).toBe('sync-month: 2026-08 has no past day yet (today is 2026-07-03 in Denmark)');
  });

  it('stops before the first day when no refresh token is configured', async () => {
    const bare = await startTestApp({
      db: t.db,
      env: { METERING_FEED_URL: fake.url },
      services: powerOnly(() => []),
    });
    try {
      const err: string[] = [];
      const cmd = syncMonthCommand({ out: () => {}, err: (l) => err.push(l) });
      fake.server.requests.length = 0;
      expect(await cmd.run(['2026-05'], bare.ctx)).toBe(2);
      expect(err).toEqual([
        'sync-month: eloverblik: no refresh token: set METERING_TOKEN or write the token to /nonexistent-satwatt-test-dir/.token',
      ]);
      expect(fake.server.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});
