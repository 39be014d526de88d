import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/connect.js';
import { DataDirLockedError } from '../../db/data-dir-lock.js';
import { migrate } from '../../db/migrate.js';
import { fixedClock } from '../../shared/clock.js';
import {
  backupWithoutContents,
  craftedBackup,
  cut,
  droppedEntries,
  gzipBomb,
  handMadeTar,
  pack,
  tmp,
} from '../../../test/support/backup-archives.js';
import { MANIFEST_FILE } from './archive.js';
import { restoreBackup, RestoreRefused } from './restore.js';
import { BackupService } from './service.js';
import { MAX_EXPANSION } from './verify.js';

/*
 * restore fills an empty DATA_DIR from a complete satwatt backup and from nothing else: every
 * other archive is refused with "not a complete satwatt backup" and leaves DATA_DIR as it was
 * (not even made when it did not exist; no lock, no unpacked folder). Runs on the embedded
 * database only: a restore is of PGlite's folder whatever TEST_DATABASE_URL says.
 */

let database: Database;
let sourceDir: string;
let work: string;
/** A backup made by this code of a migrated database. */
let backup: string;

beforeAll(async () => {
  sourceDir = await tmp();
  work = await tmp();
  database = await openDatabase({ server: null, dataDir: sourceDir, fsync: false });
  await migrate(database);
  const service = new BackupService({
    database,
    dataDir: sourceDir,
    clock: fixedClock('2026-07-03T10:00:00Z'),
  });
  backup = path.join(work, 'backup.tar.gz');
  await service.writeFile(backup);
}, 120_000);
afterAll(async () => {
  await database?.close();
});

const file = (name: string) => path.join(work, name);

/** Restores `archive` into a DATA_DIR that does not exist and into one that is empty; both refused, untouched. */
async function expectRefused(archive: string, why: RegExp) {
  const absent = path.join(await tmp(), 'data');
  const empty = await tmp();
  for (const dataDir of [absent, empty]) {
    const refusal = await restoreBackup(archive, dataDir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(RestoreRefused);
    expect((refusal as Error).message).toContain(`${archive} is not a complete satwatt backup: `);
    expect((refusal as Error).message).toMatch(why);
  }
  expect(existsSync(absent)).toBe(false);
  expect(await readdir(empty)).toEqual([]);
}

describe('restore refuses an archive that is not a complete satwatt backup, and leaves nothing', () => {
  it.each([0.1, 0.5, 0.9, 0.999])('a backup cut at %s of its bytes', async (fraction) => {
    await expectRefused(
      await cut(backup, fraction, file(`cut-${fraction}.tar.gz`)),
      /gzip stream ends early/,
    );
  });

  it('a backup whose tar was cut at an entry’s end and compressed again, without its end blocks', async () => {
    await expectRefused(
      await droppedEntries(backup, 200, false, file('dropped.tar.gz')),
      /ends without its end-of-archive blocks/,
    );
  });

  it('a complete tar with fewer files than its manifest counts', async () => {
    await expectRefused(
      await droppedEntries(backup, 200, true, file('dropped-ended.tar.gz')),
      /holds \d+ files of \d+ bytes under pg\/, and its manifest says \d+ of \d+/,
    );
  });

  it('symbolic links that lead out of the folder through a chain of relative links', async () => {
    const archive = await craftedBackup(async (pg) => {
      await mkdir(path.join(pg, 'base'));
      await symlink('../hop', path.join(pg, 'base', 'link'));
      await symlink('../../../../etc', path.join(pg, 'hop'));
    }, file('symlinks.tar.gz'));
    await expectRefused(
      archive,
      /"pg\/(base\/link|hop)", a SymbolicLink to ".*"; .*only regular files and folders/,
    );
  });

  it('a hard link, even to a file inside the archive', async () => {
    const archive = await handMadeTar(
      [{ path: 'pg/copy', type: 'Link', linkpath: 'pg/PG_VERSION' }],
      file('hardlink.tar.gz'),
    );
    await expectRefused(archive, /"pg\/copy", a Link to "pg\/PG_VERSION"/);
  });

  it.each([
    ['a path that climbs out of pg/', { path: 'pg/../../escaped' }, /not a plain path inside pg\//],
    ['a file beside pg/', { path: 'other/file' }, /"other\/file", outside pg\//],
    ['an absolute path', { path: '/tmp/escaped' }, /outside pg\//],
    ['a device', { path: 'pg/dev', type: 'CharacterDevice' }, /a CharacterDevice/],
    ['a second manifest', { path: MANIFEST_FILE }, /outside pg\//],
  ])('%s', async (_what, entry, why) => {
    await expectRefused(await handMadeTar([entry], file(`hand-${_what.replace(/\W/g, '')}.tar.gz`)), why);
  });

  it(`a gzip bomb, read no further than ${MAX_EXPANSION}× its size`, async () => {
    const archive = await gzipBomb(256 * 1024 * 1024, file('bomb.tar.gz'));
    const { size } = await stat(archive);
    expect(size).toBeLessThan(1024 * 1024);
    const started = performance.now();
    await expectRefused(
      archive,
      new RegExp(`expands past ${size * MAX_EXPANSION} bytes \\(${MAX_EXPANSION}× its size\\)`),
    );
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('an archive without the manifest first, and a file that is not gzip', async () => {
    const folder = await tmp();
    await mkdir(path.join(folder, 'pg'));
    await writeFile(path.join(folder, 'pg', 'PG_VERSION'), '17\n');
    await expectRefused(
      await pack(folder, ['pg'], file('no-manifest.tar.gz')),
      /first entry is "pg\/", not satwatt-backup.json/,
    );
    await writeFile(file('notes.tar.gz'), 'hello');
    await expectRefused(file('notes.tar.gz'), /not gzip-compressed/);
  });

  it('a backup of a PostgreSQL folder that is not satwatt’s database: refused after opening it, nothing moved', async () => {
    const foreignDir = await tmp();
    const foreign = await openDatabase({ server: null, dataDir: foreignDir, fsync: false });
    await foreign.db.schema.createTable('notes').addColumn('text', 'text').execute();
    const archive = file('foreign.tar.gz');
    await backupWithoutContents(foreign, archive);
    await foreign.close();
    await expectRefused(archive, /its database is not satwatt’s|its database is not satwatt's/);
  }, 120_000);
});

describe('restore of satwatt backups', () => {
  it('restores a backup made before the manifest counted its files', async () => {
    const archive = await backupWithoutContents(database, file('without-contents.tar.gz'));
    const dataDir = path.join(await tmp(), 'data');
    const manifest = await restoreBackup(archive, dataDir);
    expect(manifest.contents).toBeUndefined();
    expect((await readdir(dataDir)).sort()).toEqual(['pg']);
    const restored = await openDatabase({ server: null, dataDir });
    try {
      expect(await migrate(restored)).toEqual([]);
    } finally {
      await restored.close();
    }
  }, 120_000);

  it('restores a backup made now, with its counts, into an empty DATA_DIR', async () => {
    const dataDir = await tmp();
    const manifest = await restoreBackup(backup, dataDir);
    expect(manifest.contents?.files).toBeGreaterThan(100);
    expect(await readdir(dataDir)).toEqual(['pg']);
  }, 120_000);

  it('removes what a restore that was killed left, then restores', async () => {
    const dataDir = await tmp();
    await mkdir(path.join(dataDir, '.restore-0b0e3f5c-5d0b-4c59-9a53-9a1f1b0c1d2e', 'pg'), {
      recursive: true,
    });
    await writeFile(path.join(dataDir, 'satwatt.lock'), '999999999');
    await restoreBackup(backup, dataDir);
    expect(await readdir(dataDir)).toEqual(['pg']);
  }, 120_000);

  it('two restores at once into one empty DATA_DIR: one fills it, the other is refused, nothing else is left', async () => {
    const dataDir = await tmp();
    const results = await Promise.allSettled([
      restoreBackup(backup, dataDir),
      restoreBackup(backup, dataDir),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(
      refused.reason instanceof DataDirLockedError || refused.reason instanceof RestoreRefused,
      String(refused.reason),
    ).toBe(true);
    expect(await readdir(dataDir)).toEqual(['pg']);
  }, 120_000);
});
