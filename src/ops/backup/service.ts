import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../db/connect.js';
import type { Clock } from '../../shared/clock.js';
import { Refusal } from '../../shared/refusal.js';
import { contentsOf, GrowingFile, GrowingFileReader, MANIFEST_FILE, type Manifest } from './archive.js';
import { BackupGate } from './gate.js';

export { MANIFEST_FILE, type Manifest } from './archive.js';

/** The database is a server (pg_dump backs it up) or in memory: nothing here to copy. */
export class BackupUnavailable extends Error {}

/** A download whose client left the data unread for longer than the bound. */
export class BackupStalled extends Error {}

export interface Download {
  manifest: Manifest;
  /** The file name to offer: satwatt-YYYYMMDDTHHMMSSZ.tar.gz. */
  name: string;
  /** The gzip-compressed tar of the manifest and the database folder `pg/`, read as it is packed. */
  stream: Readable;
}

export interface BackupDeps {
  database: Pick<Database, 'copyTo'>;
  /** DATA_DIR: the copy is made beside the database, on the same file system. */
  dataDir: string;
  clock: Clock;
  /** A download whose client leaves the data unread this long is cut off. */
  stallMs?: number;
  /** The process's stop: the backups being made are abandoned and their files removed. */
  shutdown?: AbortSignal;
}

/** `satwatt-20261125T040700Z.tar.gz`: names sort by time. */
export function backupName(at: Date): string {
  return `satwatt-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.tar.gz`;
}

/** What a backup leaves in DATA_DIR only while it is made; one found at a start is a leftover. */
const SNAPSHOT_PREFIX = '.snapshot-';
/** What a restore leaves in DATA_DIR only while it runs. */
export const RESTORE_PREFIX = '.restore-';
export const DEFAULT_STALL_MS = 60_000;

/**
 * Backups of the embedded database: a consistent copy of its folder (Database.copyTo, which
 * holds every other query for as long as the copy takes), then packed and compressed from that
 * copy while the service goes on. One is made at a time per data folder (BackupGate); the lock
 * covers the copy and the packing, never a client's reading of the result.
 */
export class BackupService {
  private readonly gate: BackupGate;
  private readonly stopping = new AbortController();
  private readonly packing = new Set<Promise<void>>();
  private readonly sending = new Set<Readable>();

  constructor(private readonly deps: BackupDeps) {
    this.gate = BackupGate.of(deps.dataDir);
    if (deps.shutdown?.aborted) this.stopping.abort();
    deps.shutdown?.addEventListener('abort', () => this.stopping.abort(), { once: true });
  }

  /** Throws what download() would refuse now (for HEAD), without making anything. */
  checkFree(): void {
    if (this.gate.busy) throw this.busy();
  }

  private busy(): Refusal {
    return new Refusal(
      'too-many',
      'a backup is being made; ask again after Retry-After',
      this.gate.retryAfterS(),
    );
  }

  /** Whether this database can be backed up here at all. */
  get available(): boolean {
    return this.deps.database.copyTo !== null;
  }

  /**
   * A backup to send, refused at once (too-many, with when to ask again) while another is being
   * made. The archive is written to a file in DATA_DIR that is unlinked as soon as it is open,
   * and read back as it grows: a client that reads slowly holds neither the lock nor a name in
   * DATA_DIR, and one that leaves the data unread for `stallMs` is cut off.
   */
  async download(): Promise<Download> {
    const release = this.gate.tryTake();
    if (!release) throw this.busy();
    const folder = this.snapshotFolder();
    let writer: FileHandle | undefined;
    let reader: FileHandle | undefined;
    let manifest: Manifest;
    try {
      writer = await open(`${folder}.tar.gz`, 'wx');
      reader = await open(`${folder}.tar.gz`, 'r');
      await unlink(`${folder}.tar.gz`);
      manifest = await this.copy(folder);
    } catch (e) {
      await rm(`${folder}.tar.gz`, { force: true });
      await Promise.all([writer?.close(), reader?.close()]);
      release();
      throw e;
    }
    const file = new GrowingFile(writer);
    const stream = new GrowingFileReader(file, reader);
    const handle = writer;
    // a client gone before the end frees the lock at once: nobody reads the rest
    const gone = new AbortController();
    stream.once('close', () => gone.abort());
    void this.pack(folder, file.sink(), release, gone.signal)
      .catch((e: unknown) => file.fail(e as Error))
      .finally(() => handle.close());
    this.watch(stream);
    return { manifest, name: backupName(new Date(manifest.created_at)), stream };
  }

  /**
   * Writes a backup to `target` under a temporary name, renamed once complete; waits while
   * another is being made (the daily backup takes its turn).
   */
  async writeFile(target: string): Promise<{ manifest: Manifest; bytes: number }> {
    const release = await this.gate.take(this.stopping.signal);
    const folder = this.snapshotFolder();
    let manifest: Manifest;
    try {
      manifest = await this.copy(folder);
    } catch (e) {
      release();
      throw e;
    }
    const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${randomUUID()}`);
    try {
      await this.pack(folder, createWriteStream(partial, { flush: true }), release);
      await rename(partial, target);
    } catch (e) {
      await rm(partial, { force: true });
      throw e;
    }
    return { manifest, bytes: (await stat(target)).size };
  }

  /**
   * Copies and archives left in DATA_DIR by a process that ended while making a backup or
   * restoring one. Under the backup lock, so that a backup this process is making is not one.
   */
  async removeLeftovers(): Promise<void> {
    const release = await this.gate.take(this.stopping.signal, false);
    try {
      for (const name of await readdir(this.deps.dataDir).catch(() => []))
        if (name.startsWith(SNAPSHOT_PREFIX) || name.startsWith(RESTORE_PREFIX))
          await rm(path.join(this.deps.dataDir, name), { recursive: true, force: true, maxRetries: 3 });
    } finally {
      release();
    }
  }

  /** Abandons the backups being made and cuts the downloads being sent; their files are removed. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const stream of this.sending) stream.destroy();
    await Promise.allSettled([...this.packing]);
  }

  private snapshotFolder(): string {
    return path.join(this.deps.dataDir, `${SNAPSHOT_PREFIX}${randomUUID()}`);
  }

  /** The database's consistent copy in `folder`, with the manifest beside it; nothing left on failure. */
  private async copy(folder: string): Promise<Manifest> {
    const { copyTo } = this.deps.database;
    if (!copyTo) throw new BackupUnavailable('the database is not an embedded database in a folder');
    try {
      this.stopping.signal.throwIfAborted();
      await mkdir(folder);
      const at = this.deps.clock.now();
      await copyTo(path.join(folder, 'pg'));
      this.stopping.signal.throwIfAborted();
      const manifest: Manifest = {
        format: 'satwatt-backup',
        version: 1,
        created_at: at.toISOString(),
        postgres: (await readFile(path.join(folder, 'pg', 'PG_VERSION'), 'utf8')).trim(),
        contents: await contentsOf(path.join(folder, 'pg')),
      };
      await writeFile(path.join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      return manifest;
    } catch (e) {
      await rm(folder, { recursive: true, force: true, maxRetries: 3 });
      throw e;
    }
  }

  /** Packs the copy into `sink`, then removes it and lets the next backup begin, however it ends. */
  private pack(folder: string, sink: Writable, release: () => void, cancel?: AbortSignal): Promise<void> {
    const signal = cancel ? AbortSignal.any([this.stopping.signal, cancel]) : this.stopping.signal;
    const packed = (async () => {
      try {
        // loaded on first use: a service that never makes a backup never loads it
        const { create } = await import('tar');
        const tar = create({ gzip: true, cwd: folder, portable: true }, [MANIFEST_FILE, 'pg']);
        await pipeline(tar, sink, { signal });
      } finally {
        await rm(folder, { recursive: true, force: true, maxRetries: 3 });
        release();
      }
    })();
    this.packing.add(packed);
    void packed.catch(() => {}).finally(() => this.packing.delete(packed));
    return packed;
  }

  /** Cuts the download off once its client has left the data unread for `stallMs`. */
  private watch(stream: GrowingFileReader): void {
    const stallMs = this.deps.stallMs ?? DEFAULT_STALL_MS;
    this.sending.add(stream);
    const timer = setInterval(
      () => {
        if (stream.stalledMs > stallMs)
          stream.destroy(
            new BackupStalled(`the client read nothing for ${stallMs} ms; the download was cut off`),
          );
      },
      Math.max(10, Math.min(1_000, stallMs / 4)),
    );
    timer.unref();
    stream.once('close', () => {
      clearInterval(timer);
      this.sending.delete(stream);
    });
  }
}
