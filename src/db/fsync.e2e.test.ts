import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../test/support/process.js';

/**
 * Whether a commit on the embedded database reaches the disk, seen where it counts: the system
 * calls of the process (strace), between two markers around COMMITS single-row commits.
 */
const COMMITS = 5;
const usable = spawnSync('strace', ['-f', '-e', 'trace=none', 'true']).status === 0;
if (!usable)
  console.log('fsync test skipped: strace is not installed or may not trace here (apt-get install strace)');

/** The fsync-family calls on files of `dir` between the markers, as strace printed them. */
async function syncCalls(dir: string, fsync: boolean): Promise<string[]> {
  const trace = path.join(dir, 'trace.log');
  const data = path.join(dir, 'data');
  const probe = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-o',
      trace,
      '-e',
      'trace=fsync,fdatasync,sync_file_range,syncfs,openat',
      process.execPath,
      '--import',
      'tsx',
      path.join(ROOT, 'test/support/commit-probe.ts'),
      data,
      String(fsync),
      String(COMMITS),
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(probe.status, probe.stderr).toBe(0);
  const lines = (await readFile(trace, 'utf8')).split('\n');
  const begin = lines.findIndex((l) => l.includes('MARK-BEGIN'));
  const end = lines.findIndex((l) => l.includes('MARK-END'));
  expect(begin).toBeGreaterThan(-1);
  return lines
    .slice(begin, end)
    .filter((l) => /\b(fsync|fdatasync|sync_file_range|syncfs)\(/.test(l) && l.includes(data));
}

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-fsync-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!usable)('commits on the embedded database', { timeout: 240_000 }, () => {
  it('each reaches the disk: an fsync(2) of the WAL per commit', async () => {
    const calls = await inTempDir((dir) => syncCalls(dir, true));
    const wal = calls.filter((l) => /^\d+\s+fsync\(\d+<[^>]*\/pg_wal\/[0-9A-F]{24}>\) += 0$/.test(l));
    expect(wal.length, calls.join('\n')).toBeGreaterThanOrEqual(COMMITS);
  });

  it('with DATA_FSYNC=false none does, as PGlite runs by default', async () => {
    expect(await inTempDir((dir) => syncCalls(dir, false))).toEqual([]);
  });
});
