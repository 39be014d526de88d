import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../db/connect.js';
import type { Clock } from '../../shared/clock.js';

/** The first entry of every backup: what it is and when it was made. */
export const MANIFEST_FILE = 'satwatt-backup.json';

export interface Manifest {
  format: 'satwatt-backup';
  version: 1;
  created_at: string;
  /** PostgreSQL's major version of the files (PG_VERSION): a PGlite of another major cannot open them. */
  postgres: string;
}

/** The database is a server (pg_dump backs it up) or in memory: nothing here to copy. */
export class BackupUnavailable extends Error {}

/** Another backup is being made; one at a time keeps the room a copy takes bounded. */
export class BackupBusy extends Error {}

export interface Snapshot {
  manifest: Manifest;
  /** The backup, a gzip-compressed tar of the manifest and the database folder `pg/`, made as it is read. */
  stream: Readable;
  /** The file name to offer: satwatt-YYYYMMDDTHHMMSSZ.tar.gz. */
  name: string;
  /** Removes the copy (once the stream is read or given up) and lets the next backup begin. */
  cleaned: () => Promise<void>;
}

export interface BackupDeps {
  database: Pick<Database, 'copyTo'>;
  /** DATA_DIR: the copy is made beside the database, on the same file system. */
  dataDir: string;
  clock: Clock;
}

/** `satwatt-20261125T040700Z.tar.gz`: names sort by time. */
export function backupName(at: Date): string {
  return `satwatt-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.tar.gz`;
}

export const BACKUP_NAME = /^satwatt-\d{8}T\d{6}Z\.tar\.gz$/;
const SNAPSHOT_PREFIX = '.snapshot-';

/**
 * Backups of the embedded database: a consistent copy of its folder (Database.copyTo, which
 * holds every other query for as long as the copy takes), then packed and compressed from that
 * copy while the service goes on, and the copy removed once it is read.
 */
export class BackupService {
  private busy = false;

  constructor(private readonly deps: BackupDeps) {}

  /** Whether this database can be backed up here at all. */
  get available(): boolean {
    return this.deps.database.copyTo !== null;
  }

  async open(): Promise<Snapshot> {
    const { copyTo } = this.deps.database;
    if (!copyTo) throw new BackupUnavailable('the database is not an embedded database in a folder');
    if (this.busy) throw new BackupBusy('a backup is being made; try again when it is done');
    this.busy = true;
    const folder = path.join(this.deps.dataDir, `${SNAPSHOT_PREFIX}${randomUUID()}`);
    const release = async () => {
      await rm(folder, { recursive: true, force: true });
      this.busy = false;
    };
    try {
      await removeLeftovers(this.deps.dataDir);
      const at = this.deps.clock.now();
      await copyTo(path.join(folder, 'pg'));
      const manifest: Manifest = {
        format: 'satwatt-backup',
        version: 1,
        created_at: at.toISOString(),
        postgres: (await readFile(path.join(folder, 'pg', 'PG_VERSION'), 'utf8')).trim(),
      };
      await writeFile(path.join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      // loaded on first use: a service that never makes a backup never loads it
      const { create } = await import('tar');
      const stream = Readable.from(
        create({ gzip: true, cwd: folder, portable: true }, [MANIFEST_FILE, 'pg']),
      );
      let cleaned: Promise<void> | null = null;
      const clean = () => (cleaned ??= release());
      stream.once('close', () => void clean());
      stream.once('error', () => void clean());
      return { manifest, stream, name: backupName(at), cleaned: () => clean() };
    } catch (e) {
      await release();
      throw e;
    }
  }

  /** Writes a backup to `target` under a temporary name, renamed once complete. */
  async writeFile(target: string): Promise<{ manifest: Manifest; bytes: number }> {
    const snapshot = await this.open();
    const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${randomUUID()}`);
    try {
      await pipeline(snapshot.stream, createWriteStream(partial, { flush: true }));
      await rename(partial, target);
    } catch (e) {
      snapshot.stream.destroy();
      await rm(partial, { force: true });
      throw e;
    } finally {
      await snapshot.cleaned();
    }
    return { manifest: snapshot.manifest, bytes: (await stat(target)).size };
  }
}

/** Copies left by a process that stopped while sending a backup. */
async function removeLeftovers(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  for (const name of await readdir(dataDir))
    if (name.startsWith(SNAPSHOT_PREFIX))
      await rm(path.join(dataDir, name), { recursive: true, force: true });
}
