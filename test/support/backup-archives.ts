import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync, gzipSync, createGzip } from 'node:zlib';
import { create, Header } from 'tar';
import type { Database } from '../../src/db/connect.js';
import { MANIFEST_FILE, type Manifest } from '../../src/ops/backup/archive.js';

/** Archives a restore must tell apart from a satwatt backup, made the way each arises. */

export const tmp = (name = 'satwatt-archive-') => mkdtemp(path.join(tmpdir(), name));

/** A gzip tar of `names` in `folder`, packed as the backup packs it. */
export async function pack(folder: string, names: string[], out: string): Promise<string> {
  await pipeline(create({ gzip: true, cwd: folder, portable: true }, names), createWriteStream(out));
  return out;
}

/**
 * A backup as the code before the manifest's `contents` made it (and as such a file still is on
 * users' disks): the manifest of format 1 without counts, then `pg/`, from the same copy.
 */
export async function backupWithoutContents(database: Database, out: string): Promise<string> {
  const folder = await tmp();
  try {
    await database.copyTo!(path.join(folder, 'pg'));
    const manifest = {
      format: 'satwatt-backup',
      version: 1,
      created_at: '2026-07-03T10:00:00.000Z',
      postgres: (await readFile(path.join(folder, 'pg', 'PG_VERSION'), 'utf8')).trim(),
    };
    await writeFile(path.join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return await pack(folder, [MANIFEST_FILE, 'pg'], out);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The first `fraction` of `file`'s bytes, as a download or a copy cut short leaves it. */
export async function cut(file: string, fraction: number, out: string): Promise<string> {
  const bytes = await readFile(file);
  await writeFile(out, bytes.subarray(0, Math.floor(bytes.length * fraction)));
  return out;
}

/** The tar entries' start offsets (header blocks) in an uncompressed tar. */
function entryOffsets(tar: Buffer): number[] {
  const out: number[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const header = new Header(tar, at);
    if (header.nullBlock) break;
    out.push(at);
    at += 512 + Math.ceil((header.size ?? 0) / 512) * 512;
  }
  return out;
}

/**
 * `file` re-packed with its entries from `keep` on dropped, as a tool that copies a tar entry by
 * entry leaves it when it stops: a complete gzip stream, and with `endBlocks` a complete tar too.
 */
export async function droppedEntries(file: string, keep: number, endBlocks: boolean, out: string) {
  const tar = gunzipSync(await readFile(file));
  const offsets = entryOffsets(tar);
  const kept = tar.subarray(0, offsets[keep]);
  await writeFile(out, gzipSync(endBlocks ? Buffer.concat([kept, Buffer.alloc(1024)]) : kept));
  return out;
}

/** A tar header block for a regular file. */
function header(name: string, size: number): Buffer {
  const h = new Header({ path: name, size, type: 'File', mode: 0o644, mtime: new Date(0) });
  h.encode();
  return h.block!;
}

const padded = (b: Buffer) => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);

/** A satwatt manifest and pg/PG_VERSION, then one file of `zeros` zero bytes: it compresses about 1000×. */
export async function gzipBomb(zeros: number, out: string): Promise<string> {
  const manifest = Buffer.from(
    JSON.stringify({
      format: 'satwatt-backup',
      version: 1,
      created_at: '2026-07-03T10:00:00.000Z',
      postgres: '17',
    }),
  );
  const version = Buffer.from('17\n');
  async function* blocks() {
    yield Buffer.concat([header(MANIFEST_FILE, manifest.length), padded(manifest)]);
    yield Buffer.concat([header('pg/PG_VERSION', version.length), padded(version)]);
    yield header('pg/zeros', zeros);
    const chunk = Buffer.alloc(1024 * 1024);
    for (let left = zeros; left > 0; left -= chunk.length)
      yield left >= chunk.length ? chunk : chunk.subarray(0, left);
    yield Buffer.alloc(1024);
  }
  await pipeline(Readable.from(blocks()), createGzip(), createWriteStream(out));
  return out;
}

/** A folder with a manifest that says satwatt and `pg/` holding whatever `fill` puts there. */
export async function craftedBackup(
  fill: (pg: string) => Promise<void>,
  out: string,
  manifest: Partial<Manifest> = {},
): Promise<string> {
  const folder = await tmp();
  try {
    await mkdir(path.join(folder, 'pg'));
    await writeFile(path.join(folder, 'pg', 'PG_VERSION'), '17\n');
    await fill(path.join(folder, 'pg'));
    await writeFile(
      path.join(folder, MANIFEST_FILE),
      JSON.stringify({
        format: 'satwatt-backup',
        version: 1,
        created_at: '2026-07-03T10:00:00.000Z',
        postgres: '17',
        ...manifest,
      }),
    );
    return await pack(folder, [MANIFEST_FILE, 'pg'], out);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** A satwatt manifest and pg/PG_VERSION, then `entries` as given (any path, type and link), tar-encoded by hand. */
export async function handMadeTar(
  entries: { path: string; type?: string; linkpath?: string; body?: string }[],
  out: string,
): Promise<string> {
  const manifest = JSON.stringify({
    format: 'satwatt-backup',
    version: 1,
    created_at: '2026-07-03T10:00:00.000Z',
    postgres: '17',
  });
  const blocks: Buffer[] = [];
  for (const e of [
    { path: MANIFEST_FILE, body: manifest },
    { path: 'pg/PG_VERSION', body: '17\n' },
    ...entries,
  ]) {
    const body = Buffer.from(e.body ?? '');
    const h = new Header({
      path: e.path,
      size: body.length,
      type: (e.type ?? 'File') as never,
      mode: 0o644,
      mtime: new Date(0),
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    h.encode();
    blocks.push(h.block!, padded(body));
  }
  await writeFile(out, gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)])));
  return out;
}
