import { EventEmitter, once } from 'node:events';
import type { FileHandle } from 'node:fs/promises';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';

/** The first entry of every backup: what it is, when it was made and what it holds. */
export const MANIFEST_FILE = 'satwatt-backup.json';

export interface Manifest {
  format: 'satwatt-backup';
  version: 1;
  created_at: string;
  /** PostgreSQL's major version of the files (PG_VERSION): a PGlite of another major cannot open them. */
  postgres: string;
  /**
   * The regular files under `pg/` and their bytes, so that a restore can tell a complete archive
   * from one cut at an entry's end. Backups made before it was added have none.
   */
  contents?: { files: number; bytes: number };
}

/** The files under `folder` and their bytes (a snapshot holds only regular files and folders). */
export async function contentsOf(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

/**
 * An archive being written to a file, read back while it grows: the packing goes at the disk's
 * pace under the backup lock, and a client reads at its own pace after the lock is released.
 */
export class GrowingFile extends EventEmitter {
  written = 0;
  done = false;
  failed: Error | null = null;

  constructor(private readonly handle: FileHandle) {
    super();
  }

  /** The writing end; the file is complete once it finishes. */
  sink(): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.handle.write(chunk, 0, chunk.length, this.written).then(({ bytesWritten }) => {
          this.written += bytesWritten;
          this.emit('progress');
          cb();
        }, cb);
      },
      final: (cb) => {
        this.done = true;
        this.emit('progress');
        cb();
      },
    });
  }

  /** The packing failed or was stopped: a reader ends with this error. */
  fail(e: Error): void {
    this.failed ??= e;
    this.emit('progress');
  }
}

/**
 * Reads a GrowingFile from its start, waiting for the writer where it is ahead. `stalledMs`
 * tells how long the consumer has left data unread (time spent waiting for the writer is not
 * counted), so that a client that stops reading can be cut off.
 */
export class GrowingFileReader extends Readable {
  private position = 0;
  private pulledAt = performance.now();
  private waiting = false;

  constructor(
    private readonly file: GrowingFile,
    private readonly handle: FileHandle,
  ) {
    super({ highWaterMark: 256 * 1024 });
  }

  get stalledMs(): number {
    return this.waiting ? 0 : performance.now() - this.pulledAt;
  }

  override _read(size: number): void {
    this.pulledAt = performance.now();
    void this.next(size).catch((e: unknown) => this.destroy(e as Error));
  }

  private async next(size: number): Promise<void> {
    for (;;) {
      if (this.destroyed) return;
      if (this.file.failed) return void this.destroy(this.file.failed);
      const available = this.file.written - this.position;
      if (available > 0) {
        const buffer = Buffer.allocUnsafe(Math.min(size, available));
        const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, this.position);
        this.position += bytesRead;
        this.pulledAt = performance.now();
        this.push(buffer.subarray(0, bytesRead));
        return;
      }
      if (this.file.done) return void this.push(null);
      this.waiting = true;
      await once(this.file, 'progress');
      this.waiting = false;
      this.pulledAt = performance.now();
    }
  }

  override _destroy(error: Error | null, cb: (error?: Error | null) => void): void {
    this.file.emit('progress');
    this.handle.close().then(
      () => cb(error),
      () => cb(error),
    );
  }
}
