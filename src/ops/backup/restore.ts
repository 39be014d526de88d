import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { extract } from 'tar';
import { openDatabase } from '../../db/connect.js';
import { acquireDataDirLock } from '../../db/data-dir-lock.js';
import { checkNotNewer } from '../../db/migrate.js';
import { MANIFEST_FILE, type Manifest } from './service.js';

/** A restore that would overwrite or could not be made; its message is the line to show. */
export class RestoreRefused extends Error {}

/**
 * Fills an empty DATA_DIR from a backup: unpacked beside it, opened once (which replays the
 * log the copy holds and proves the files start), checked against this code's migrations, and
 * only then moved into place. A folder that holds a database is never touched.
 */
export async function restoreBackup(file: string, dataDir: string): Promise<Manifest> {
  const found = await stat(file).catch(() => null);
  if (!found?.isFile()) throw new RestoreRefused(`${file} is not a file`);
  const target = path.join(dataDir, 'pg');
  const refuseFull = async () => {
    if (existsSync(target) && (await readdir(target)).length > 0)
      throw new RestoreRefused(
        `${dataDir} already holds a database (${target}); restore fills only an empty DATA_DIR: ` +
          'move that folder away or set DATA_DIR to a new one, then restore again',
      );
  };
  await refuseFull();
  const release = await acquireDataDirLock(dataDir);
  const staging = path.join(dataDir, `.restore-${randomUUID()}`);
  try {
    // again under the lock: a process may have made one meanwhile
    await refuseFull();
    await mkdir(staging);
    try {
      await extract({ file, cwd: staging, strict: true, preserveOwner: false }, [MANIFEST_FILE, 'pg']);
    } catch (e) {
      throw new RestoreRefused(`${file} is not a satwatt backup: ${(e as Error).message}`);
    }
    const manifest = await readManifest(file, staging);
    const database = await openDatabase({ server: null, dataDir: staging }).catch((e: unknown) => {
      throw new RestoreRefused(`${file}: the database in it does not open: ${(e as Error).message}`);
    });
    try {
      await checkNotNewer(database);
    } finally {
      await database.close();
    }
    await rm(target, { recursive: true, force: true });
    await rename(path.join(staging, 'pg'), target);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await release();
  }
}

async function readManifest(file: string, staging: string): Promise<Manifest> {
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(await readFile(path.join(staging, MANIFEST_FILE), 'utf8')) as Partial<Manifest>;
  } catch {
    throw new RestoreRefused(`${file} is not a satwatt backup (it has no readable ${MANIFEST_FILE})`);
  }
  if (manifest.format !== 'satwatt-backup' || manifest.version !== 1)
    throw new RestoreRefused(`${file} is not a satwatt backup of a format this version reads`);
  if (!existsSync(path.join(staging, 'pg', 'PG_VERSION')))
    throw new RestoreRefused(`${file} holds no database folder (pg/PG_VERSION is missing)`);
  return manifest as Manifest;
}
