import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/connect.js';
import { migrate } from '../../db/migrate.js';
import { fixedClock } from '../../shared/clock.js';
import { HealthRegistry } from '../../shared/health.js';
import { tmp } from '../../../test/support/backup-archives.js';
import { JobRunner } from '../../jobs/job.js';
import { soleLeaderships } from '../../jobs/leadership.js';
import { backupJob } from './scheduler.js';
import { BackupService } from './service.js';

/*
 * The daily backup into BACKUP_DIR and its rotation, in each state the folder can be found in:
 * rotation counts and removes only the regular files it names itself, by a name it can parse and
 * a time not in the future, and never the backup it has just written. On the embedded database
 * (what the daily backup is of, whatever TEST_DATABASE_URL says).
 */

let database: Database;
let dataDir: string;
beforeAll(async () => {
  dataDir = await tmp();
  database = await openDatabase({ server: null, dataDir, fsync: false });
  await migrate(database);
}, 120_000);
afterAll(async () => {
  await database?.close();
});

function daily(dir: string, now: ReturnType<typeof fixedClock>, keep = 2) {
  const health = new HealthRegistry(now).feed('backup');
  const log = pino({ level: 'silent' });
  const shutdown = new AbortController().signal;
  const job = backupJob({
    service: new BackupService({ database, dataDir, clock: now }),
    dir,
    keep,
    clock: now,
    log,
    health,
    shutdown,
    pattern: '7 4 * * *',
    firstRunDelayMs: 0,
  });
  const scheduler = new JobRunner(job, { clock: now, log, shutdown, leadership: soleLeaderships() });
  return { scheduler, health };
}

/** Backups on the given days at 02:07 UTC (04:07 in Danish summer time). */
async function runOn(dir: string, days: string[], keep = 2) {
  const now = fixedClock(`${days[0]}T02:07:00Z`);
  const { scheduler, health } = daily(dir, now, keep);
  for (const day of days) {
    now.set(`${day}T02:07:00Z`);
    await scheduler.runNow();
    expect(health.lastError, day).toBeNull();
  }
  return health;
}

const ls = async (dir: string) => (await readdir(dir)).sort();
const placeholder = (dir: string, name: string) => writeFile(path.join(dir, name), 'not a real backup');

describe('the daily backup’s rotation', () => {
  it('keeps the newest BACKUP_KEEP backups, removes older ones and partial files a stopped write left', async () => {
    const dir = await tmp();
    const stale = '.satwatt-20260101T000000Z.tar.gz.partial-6f1c2d7e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
    const writing = '.satwatt-20260101T000000Z.tar.gz.partial-0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';
    await placeholder(dir, stale);
    await utimes(path.join(dir, stale), new Date('2026-01-01'), new Date('2026-01-01'));
    await placeholder(dir, writing);
    await placeholder(dir, 'notes.txt');
    const health = await runOn(dir, ['2026-07-01', '2026-07-02', '2026-07-03']);
    expect(await ls(dir)).toEqual([
      writing,
      'notes.txt',
      'satwatt-20260702T020700Z.tar.gz',
      'satwatt-20260703T020700Z.tar.gz',
    ]);
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(
      /^daily into .*, keeping 2; last satwatt-20260703T020700Z.tar.gz \(\d+ bytes\)$/,
    );
  }, 120_000);

  it('two files named with a future date: the new backup is kept, and they are not counted or removed', async () => {
    const dir = await tmp();
    for (const name of ['satwatt-20300101T000000Z.tar.gz', 'satwatt-20300102T000000Z.tar.gz'])
      await placeholder(dir, name);
    const health = await runOn(dir, ['2026-07-01', '2026-07-02', '2026-07-03']);
    expect(await ls(dir)).toEqual([
      'satwatt-20260702T020700Z.tar.gz',
      'satwatt-20260703T020700Z.tar.gz',
      'satwatt-20300101T000000Z.tar.gz',
      'satwatt-20300102T000000Z.tar.gz',
    ]);
    expect(health.detail).toContain('last satwatt-20260703T020700Z.tar.gz');
  }, 120_000);

  it('a folder named like the oldest backup: left alone, and rotation goes on', async () => {
    const dir = await tmp();
    await mkdir(path.join(dir, 'satwatt-20260101T000000Z.tar.gz'));
    await placeholder(dir, 'satwatt-20260102T000000Z.tar.gz');
    await runOn(dir, ['2026-07-01', '2026-07-02', '2026-07-03']);
    expect(await ls(dir)).toEqual([
      'satwatt-20260101T000000Z.tar.gz',
      'satwatt-20260702T020700Z.tar.gz',
      'satwatt-20260703T020700Z.tar.gz',
    ]);
  }, 120_000);

  it('a folder named like a partial file: every backup succeeds, the folder is left alone', async () => {
    const dir = await tmp();
    const partialLike = '.satwatt-20260101T000000Z.tar.gz.partial-6f1c2d7e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
    await mkdir(path.join(dir, partialLike));
    await utimes(path.join(dir, partialLike), new Date('2026-01-01'), new Date('2026-01-01'));
    await runOn(dir, ['2026-07-01', '2026-07-02']);
    expect(await ls(dir)).toEqual([
      partialLike,
      'satwatt-20260701T020700Z.tar.gz',
      'satwatt-20260702T020700Z.tar.gz',
    ]);
  }, 120_000);

  it('a link and names that are no instant, named like backups: never counted or removed', async () => {
    const dir = await tmp();
    const target = path.join(await tmp(), 'kept.tar.gz');
    await writeFile(target, 'someone else’s file');
    await symlink(target, path.join(dir, 'satwatt-20260101T000000Z.tar.gz'));
    await placeholder(dir, 'satwatt-20261399T000000Z.tar.gz');
    await placeholder(dir, 'satwatt-20260101T000000Z.tar.gz.bak');
    await runOn(dir, ['2026-07-01'], 1);
    expect(await ls(dir)).toEqual([
      'satwatt-20260101T000000Z.tar.gz',
      'satwatt-20260101T000000Z.tar.gz.bak',
      'satwatt-20260701T020700Z.tar.gz',
      'satwatt-20261399T000000Z.tar.gz',
    ]);
    expect(await readdir(path.dirname(target))).toEqual(['kept.tar.gz']);
  }, 120_000);
});

describe('the backup a start makes', () => {
  async function start(dir: string, at: string) {
    const { scheduler } = daily(dir, fixedClock(at));
    scheduler.start();
    await scheduler.firstRound();
    await scheduler.stop();
    return ls(dir);
  }

  it('makes one when the newest is a day old, none when it is newer', async () => {
    const dir = await tmp();
    expect(await start(dir, '2026-07-03T10:00:00Z')).toEqual(['satwatt-20260703T100000Z.tar.gz']);
    expect(await start(dir, '2026-07-04T09:59:59Z')).toEqual(['satwatt-20260703T100000Z.tar.gz']);
  }, 120_000);

  it('a file dated in the future or a folder named like a recent backup does not count as one', async () => {
    const dir = await tmp();
    await placeholder(dir, 'satwatt-20300101T000000Z.tar.gz');
    await mkdir(path.join(dir, 'satwatt-20260703T090000Z.tar.gz'));
    expect(await start(dir, '2026-07-03T10:00:00Z')).toEqual([
      'satwatt-20260703T090000Z.tar.gz',
      'satwatt-20260703T100000Z.tar.gz',
      'satwatt-20300101T000000Z.tar.gz',
    ]);
  }, 120_000);
});

describe('a daily backup that fails', () => {
  it('is reported in /health’s feed backup, with the error', async () => {
    const notAFolder = path.join(await tmp(), 'file');
    await writeFile(notAFolder, 'x');
    const { scheduler, health } = daily(notAFolder, fixedClock('2026-07-03T10:00:00Z'));
    await scheduler.runNow();
    expect(health.ok).toBe(false);
    expect(health.lastError).toMatch(/EEXIST|ENOTDIR/);
  }, 120_000);
});
