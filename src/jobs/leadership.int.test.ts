import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../test/support/db.js';
import { parsePostgresUrl } from '../config.js';
import { AdvisoryLeaderships, type LockName } from './leadership.js';

/*
 * Leadership on a PostgreSQL server: one connection per process holds every advisory lock it
 * asks for. (On the embedded database there is one process, which leads everything.)
 */
const log = pino({ level: 'silent' });
const ALL: LockName[] = ['btcPollers', 'mqttPublisher', 'meteringSync'];

describe.runIf(TEST_DATABASE_URL)('advisory leaderships on a PostgreSQL server', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase({ migrated: false });
  });
  afterAll(() => db.close());

  const member = (locks: LockName[]) => {
    const l = new AdvisoryLeaderships(parsePostgresUrl(db.url!), { log, intervalMs: 50 });
    for (const lock of locks) l.of(lock);
    return l;
  };
  const leads = (l: AdvisoryLeaderships, locks = ALL) => locks.map((lock) => l.of(lock).isLeader());
  const held = async () =>
    (
      await sql<{ connections: number; locks: number; holders: number }>`
        select
          (select count(*)::int from pg_stat_activity
            where datname = current_database() and application_name = 'satwatt-leadership') as connections,
          (select count(*)::int from pg_locks
            where locktype = 'advisory' and granted and database = (
              select oid from pg_database where datname = current_database())) as locks,
          (select count(distinct pid)::int from pg_locks
            where locktype = 'advisory' and granted and database = (
              select oid from pg_database where datname = current_database())) as holders`.execute(
        db.database.db,
      )
    ).rows[0]!;

  it('holds every lock on one connection from the first attempt; the other process takes them all when it ends', async () => {
    const a = member(ALL);
    const b = member(ALL);
    await a.start();
    expect(leads(a)).toEqual([true, true, true]);
    await b.start();
    expect(leads(b)).toEqual([false, false, false]);
    expect(await held()).toEqual({ connections: 2, locks: 3, holders: 1 });

    const changes: boolean[] = [];
    b.of('mqttPublisher').watch((leader) => changes.push(leader));
    await a.stop();
    await vi.waitFor(() => expect(leads(b)).toEqual([true, true, true]), { timeout: 5_000 });
    expect(changes).toEqual([false, true]);
    expect(await held()).toEqual({ connections: 1, locks: 3, holders: 1 });
    await b.stop();
    expect(leads(b)).toEqual([false, false, false]);
  });

  it('tries only the locks asked for: a process without the btc service never keeps the btc pollers away', async () => {
    const power = member(['meteringSync']);
    const btc = member(['btcPollers']);
    await power.start();
    await btc.start();
    expect([power.of('meteringSync').isLeader(), btc.of('btcPollers').isLeader()]).toEqual([true, true]);
    // asked for after the start: tried at the next attempt
    const mqtt = power.of('mqttPublisher');
    await vi.waitFor(() => expect(mqtt.isLeader()).toBe(true), { timeout: 5_000 });
    expect(await held()).toEqual({ connections: 2, locks: 3, holders: 2 });
    await power.stop();
    await btc.stop();
  });
});
