import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { openDatabase, type Database } from '../../db/connect.js';
import { acquireDataDirLock } from '../../db/data-dir-lock.js';
import { checkNotNewer } from '../../db/migrate.js';
import type { Manifest } from './archive.js';
import { RESTORE_PREFIX } from './service.js';
import { Inspection, MAX_EXPANSION, NotABackup, type Inventory } from './verify.js';

/** A restore that would overwrite or could not be made; its message is the line to show. */
export class RestoreRefused extends Error {}

/**
 * Fills an empty DATA_DIR from a backup. The archive is read once whole before anything is
 * written (Inspection: complete, only files and folders inside pg/, within MAX_EXPANSION of its
 * size, and room for it on the disk), then unpacked beside the database under the folder's lock
 * and checked again as it is, opened once (which replays the log the copy holds and proves the
 * files start), checked to be satwatt's and not newer than this code, and only then moved into
 * place. Whatever fails, the unpacked folder and the lock are removed, and a DATA_DIR this made
 * is removed again; a folder that holds a database is never touched.
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
  const limit = found.size * MAX_EXPANSION;
  const inventory = await inspect(file, limit, null);
  await refuseNoRoom(file, dataDir, inventory);

  const made = !existsSync(dataDir);
  const release = await acquireDataDirLock(dataDir);
  const staging = path.join(dataDir, `${RESTORE_PREFIX}${randomUUID()}`);
  try {
    // again under the lock: a process may have made one meanwhile
    await refuseFull();
    await removeLeftovers(dataDir);
    await mkdir(staging);
    await inspect(file, limit, inventory, staging);
    const database = await openDatabase({ server: null, dataDir: staging }).catch((e: unknown) => {
      throw new RestoreRefused(`${file}: the database in it does not open: ${(e as Error).message}`);
    });
    try {
      await checkSatwatt(file, database);
    } finally {
      await database.close();
    }
    await rename(path.join(staging, 'pg'), target);
    return inventory.manifest;
  } finally {
    // each step on its own: a failure to remove the folder must not leave the lock behind
    await rm(staging, { recursive: true, force: true, maxRetries: 10 }).catch(() => {});
    await release();
    if (made) await rmdir(dataDir).catch(() => {});
  }
}

/** Reads the archive through; with `into`, unpacks it there as it goes. */
async function inspect(
  file: string,
  limit: number,
  known: Inventory | null,
  into?: string,
): Promise<Inventory> {
  const { Parser, Unpack } = await import('tar');
  const inspection = new Inspection(limit, known);
  const filter = (_path: string, entry: unknown) => inspection.admit(entry as never, sink);
  const sink: InstanceType<typeof Parser> = into
    ? new Unpack({ cwd: into, strict: true, preserveOwner: false, filter })
    : new Parser({ strict: true, filter, onReadEntry: (entry) => inspection.onEntry(entry, sink) });
  try {
    return await inspection.run(file, sink);
  } catch (e) {
    if (e instanceof NotABackup)
      throw new RestoreRefused(`${file} is not a complete satwatt backup: ${e.message}`);
    throw e;
  }
}

/** Unpacking writes about the archive's expanded size, and opening it once adds some log. */
async function refuseNoRoom(file: string, dataDir: string, inventory: Inventory): Promise<void> {
  let dir = dataDir;
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const { bavail, bsize } = await statfs(dir);
  const free = bavail * bsize;
  const needed = inventory.expanded + 64 * 1024 * 1024;
  if (needed > free)
    throw new RestoreRefused(
      `${file} needs about ${mb(needed)} in ${dataDir} and its disk has ${mb(free)} free`,
    );
}

/** A satwatt database has its migrations table, with migrations this code knows. */
async function checkSatwatt(file: string, database: Database): Promise<void> {
  const applied = await database.withSession(async (s) => {
    const [table] = await s.query<{ t: string | null }>(
      "select to_regclass('public.satwatt_migrations')::text as t",
    );
    if (!table?.t) return 0;
    const [row] = await s.query<{ n: number }>('select count(*)::int as n from public.satwatt_migrations');
    return row?.n ?? 0;
  });
  if (applied === 0)
    throw new RestoreRefused(
      `${file} is not a complete satwatt backup: its database is not satwatt's (it has no applied satwatt migrations)`,
    );
  await checkNotNewer(database);
}

/** Unpacked folders left by a restore that was killed; under the lock, none is in progress. */
async function removeLeftovers(dataDir: string): Promise<void> {
  for (const name of await readdir(dataDir))
    if (name.startsWith(RESTORE_PREFIX))
      await rm(path.join(dataDir, name), { recursive: true, force: true, maxRetries: 10 });
}

const mb = (bytes: number) => `${Math.ceil(bytes / 1024 / 1024)} MB`;
