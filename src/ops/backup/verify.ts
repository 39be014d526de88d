import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Parser, ReadEntry } from 'tar';
import { MANIFEST_FILE, type Manifest } from './archive.js';

/**
 * How far an archive may expand, as a multiple of its own size. satwatt's backups expand 9× (a
 * new database) to 13× (a year of data); a gzip bomb expands about 1000×. The bound is counted
 * while reading, so a bomb is refused after reading at most this much, and before anything is
 * written.
 */
export const MAX_EXPANSION = 100;
const MAX_MANIFEST_BYTES = 64 * 1024;
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/** The archive is not a complete satwatt backup; the message says why. */
export class NotABackup extends Error {}

export interface Inventory {
  manifest: Manifest;
  /** Regular files under pg/ and their bytes. */
  files: number;
  bytes: number;
  /** The size of the tar once decompressed: what unpacking it writes, about. */
  expanded: number;
}

/**
 * What marks a satwatt backup, checked entry by entry: a gzip stream that is complete (its
 * trailer read), a tar that ends with its end-of-archive blocks, `satwatt-backup.json` first,
 * then only regular files and folders under `pg/` (no link of any kind, no device, no path that
 * leaves `pg/`), `pg/PG_VERSION` among them, and as many files and bytes as the manifest says
 * when it says (backups made before the count was added do not). Anything else is refused.
 */
export class Inspection {
  private manifest: Manifest | null = null;
  private files = 0;
  private bytes = 0;
  private entries = 0;
  private pgVersion = false;
  private ended = false;
  private expanded = 0;
  failure: NotABackup | null = null;

  constructor(
    private readonly limit: number,
    /** What the first reading found: a second reading (the one that unpacks) must find the same. */
    private readonly known: Inventory | null = null,
  ) {}

  /** The tar parser's filter: false (and the failure kept) for what a backup never holds. */
  admit(entry: ReadEntry, parser: Parser): boolean {
    const why = this.refusal(entry);
    if (why === null) return true;
    this.failure ??= new NotABackup(why);
    parser.abort(this.failure);
    return false;
  }

  /** The tar parser's entry handler: reads the manifest (admitted only as the first entry), skips the rest. */
  onEntry(entry: ReadEntry, parser: Parser): void {
    if (entry.path !== MANIFEST_FILE) return void entry.resume();
    this.readManifest(entry).catch((e: unknown) => {
      this.failure ??= e instanceof NotABackup ? e : new NotABackup(describe(e));
      parser.abort(this.failure);
    });
  }

  private async readManifest(entry: ReadEntry): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk);
    let parsed: Partial<Manifest>;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<Manifest>;
    } catch {
      throw new NotABackup(`its ${MANIFEST_FILE} is not JSON`);
    }
    if (parsed.format !== 'satwatt-backup' || parsed.version !== 1 || typeof parsed.created_at !== 'string')
      throw new NotABackup(`its ${MANIFEST_FILE} is not a satwatt backup's of a format this version reads`);
    this.manifest = parsed as Manifest;
  }

  /**
   * Reads `file` through gunzip and this inspection into `sink` (a tar Parser or Unpack made
   * with `admit` as its filter), and answers the inventory once the archive has proved complete.
   */
  async run(file: string, sink: Parser): Promise<Inventory> {
    sink.on('eof', () => (this.ended = true));
    const parsed = new Promise<void>((resolve, reject) => {
      sink.on('end', resolve);
      sink.on('error', reject);
    });
    parsed.catch(() => {});
    const counted = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.expanded += chunk.length;
        if (this.expanded > this.limit)
          return cb(new NotABackup(`it expands past ${this.limit} bytes (${MAX_EXPANSION}× its size)`));
        cb(null, chunk);
      },
    });
    try {
      await pipeline(createReadStream(file), createGunzip(), counted, async (source) => {
        for await (const chunk of source)
          // a parser that fails while full never drains: its failure ends the wait
          if (!sink.write(chunk as Buffer))
            await Promise.race([new Promise((r) => sink.once('drain', r)), parsed]);
        sink.end();
        await parsed;
      });
    } catch (e) {
      throw this.failure ?? (e instanceof NotABackup ? e : new NotABackup(describe(e)));
    }
    if (this.failure) throw this.failure;
    return this.inventory();
  }

  private inventory(): Inventory {
    const { files, bytes, expanded, known } = this;
    const manifest = this.manifest ?? known?.manifest;
    if (known && (known.files !== files || known.bytes !== bytes))
      throw new NotABackup('the file changed while it was being restored');
    if (!manifest) throw new NotABackup(`it does not begin with ${MANIFEST_FILE}`);
    if (!this.ended) throw new NotABackup('the tar ends without its end-of-archive blocks');
    if (!this.pgVersion) throw new NotABackup('it holds no database folder (pg/PG_VERSION is missing)');
    const declared = manifest.contents;
    if (declared && (declared.files !== files || declared.bytes !== bytes))
      throw new NotABackup(
        `it holds ${files} files of ${bytes} bytes under pg/, and its manifest says ${declared.files} of ${declared.bytes}`,
      );
    return { manifest, files, bytes, expanded };
  }

  private refusal(entry: ReadEntry): string | null {
    this.entries++;
    const name = entry.path.replace(/\/$/, '');
    if (this.entries === 1)
      return name === MANIFEST_FILE && FILE_TYPES.has(entry.type) && entry.size <= MAX_MANIFEST_BYTES
        ? null
        : `its first entry is ${JSON.stringify(entry.path)}, not ${MANIFEST_FILE}`;
    if (name !== 'pg' && !name.startsWith('pg/'))
      return `it holds ${JSON.stringify(entry.path)}, outside pg/`;
    if (path.posix.normalize(name) !== name || name.split('/').includes('..') || name.includes('\\'))
      return `it holds the path ${JSON.stringify(entry.path)}, which is not a plain path inside pg/`;
    if (entry.type === 'Directory') return null;
    if (!FILE_TYPES.has(entry.type))
      return (
        `it holds ${JSON.stringify(entry.path)}, a ${entry.type}` +
        (entry.linkpath ? ` to ${JSON.stringify(entry.linkpath)}` : '') +
        '; a satwatt backup holds only regular files and folders'
      );
    this.files++;
    this.bytes += entry.size;
    if (name === 'pg/PG_VERSION') this.pgVersion = true;
    return null;
  }
}

function describe(e: unknown): string {
  const error = e as { code?: string; message?: string };
  if (error.code === 'Z_BUF_ERROR' || /unexpected end of file/.test(error.message ?? ''))
    return 'its gzip stream ends early (the file is cut short)';
  if (error.code === 'Z_DATA_ERROR' || /incorrect header check/.test(error.message ?? ''))
    return 'it is not gzip-compressed, or its compressed data is damaged';
  return error.message ?? String(e);
}
