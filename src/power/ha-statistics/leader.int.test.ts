import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHomeAssistant } from '../../../test/fakes/home-assistant.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../../test/support/db.js';
import { haStatisticsServices } from '../../../test/support/ha-statistics.js';
import { parsePostgresUrl } from '../../config.js';
import { openDatabase } from '../../db/connect.js';
import { insertEnergy, notifySynced } from '../metering/repository.js';

/**
 * Two processes on one PostgreSQL server, each with a Home Assistant of its own: only the holder
 * of the metering lock writes, and the other takes over when it stops. (On the embedded database
 * there is one process, which always leads.)
 */
const FAST = { initialBackoffMs: 20, maxBackoffMs: 100, settleMs: 20, timeoutMs: 2_000 };
let first: TestDatabase;
let second: TestDatabase;
let haA: FakeHomeAssistant;
let haB: FakeHomeAssistant;
let a: TestApp;
let b: TestApp;

async function until(what: string, check: () => boolean, ms = 10_000) {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const app = (db: TestDatabase, ha: FakeHomeAssistant) =>
  startTestApp({
    db,
    now: '2026-10-28T10:00:00Z',
    env: { DATABASE_URL: db.url!, HA_URL: ha.url, HA_TOKEN: ha.token },
    // the metering lock tried every 200 ms by the process that does not hold it
    leadershipIntervalMs: 200,
    services: haStatisticsServices(() => {}, { options: FAST }),
  });

const hour = (iso: string, kwh: string) => ({
  metering_point_id: '571313100000012345',
  start_at: new Date(iso),
  quantity_kwh: kwh,
  quality: 'A04',
});

describe.runIf(TEST_DATABASE_URL)('two processes on one PostgreSQL server', () => {
  beforeAll(async () => {
    first = await freshDatabase();
    // the second process: its own pool and notification connection to the same database
    const database = await openDatabase({ server: parsePostgresUrl(first.url!), poolSize: 2 });
    second = { database, url: first.url, close: () => database.close() };
    haA = await FakeHomeAssistant.start();
    haB = await FakeHomeAssistant.start();
    a = await app(first, haA);
    b = await app(second, haB);
  });
  afterAll(async () => {
    await b.close();
    await second.close();
    await first.close();
    await haA.close();
    await haB.close();
  });

  it('writes from the leader only; the other says standby and never connects', async () => {
    await a.startFeeds();
    await until('the leader reaching its Home Assistant', () => haA.connections === 1);
    await b.startFeeds();
    await insertEnergy(second.database.db, 'power.consumption', [hour('2026-10-20T10:00:00Z', '1.5')]);
    // told from the second process: the leader hears it
    await notifySynced(second.database.db, '2026-10-20');
    await until('the hour written', () => haA.hours('satwatt:grid_consumption').length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(haB.connections).toBe(0);
    expect(b.ctx.health.feed('ha-statistics').detail).toMatch(/^standby: /);
  });

  it('is taken over by the other when the leader stops, going on from the sum the leader wrote', async () => {
    await a.close();
    await until('the new leader reaching its Home Assistant', () => haB.connections === 1);
    expect(haB.imports).toBe(0);
    await insertEnergy(second.database.db, 'power.consumption', [hour('2026-10-20T11:00:00Z', '0.25')]);
    await notifySynced(second.database.db, '2026-10-20');
    await until('the next hour written', () => haB.hours('satwatt:grid_consumption').length === 1);
    expect(haB.hours('satwatt:grid_consumption')).toEqual([
      { start: '2026-10-20T11:00:00.000Z', state: 0.25, sum: 1.75 },
    ]);
    expect(haA.hours('satwatt:grid_consumption')).toHaveLength(1);
  });
});
