import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connect.js';
import { migrate } from '../../db/migrate.js';
import { backupWithoutContents, cut, tmp } from '../../../test/support/backup-archives.js';
import { ensureBuilt, runSatwatt } from '../../../test/support/process.js';
import {
  API_TOKEN,
  startEverything,
  STOP_LIMIT_MS,
  until,
  type Running,
} from '../../../test/support/stop.js';

/*
 * The compiled service with every feed on, stopped while a backup is being sent to a client that
 * does not read and while one is being made: it ends within the stop's bound and leaves nothing
 * in DATA_DIR; a process killed while making one leaves its copy, which the next start removes.
 * And `restore` of an archive cut short, as a person runs it: exit code 2, one line, nothing left.
 */

let running: Running | null = null;
const times: [string, number][] = [];
afterEach(async () => {
  await running?.cleanup();
  running = null;
});
afterAll(() => {
  console.log(times.map(([s, ms]) => `stop ${String(Math.round(ms)).padStart(5)} ms  ${s}`).join('\n'));
});

/** A migrated data folder holding 8 MB that do not compress: its backup outgrows the sockets' buffers. */
async function bigDataDir(): Promise<string> {
  const dataDir = await tmp('satwatt-backup-e2e-');
  const database = await openDatabase({ server: null, dataDir, fsync: false });
  await migrate(database);
  await sql`create table public.incompressible (b bytea)`.execute(database.db);
  for (let i = 0; i < 8; i++)
    await sql`insert into public.incompressible values (${randomBytes(1024 * 1024)})`.execute(database.db);
  await database.close();
  return dataDir;
}

/** Opens GET /api/backup and reads only the first bytes of the answer. */
async function stalledDownload(r: Running): Promise<Socket> {
  const socket = connect(Number(new URL(r.base).port), '127.0.0.1');
  socket.on('error', () => {});
  let received = 0;
  socket.on('data', (d: Buffer) => {
    received += d.length;
    socket.pause();
  });
  socket.write(`GET /api/backup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${API_TOKEN}\r\n\r\n`);
  await until(r, 'the answer to begin', () => received > 0);
  return socket;
}

const snapshots = async (dataDir: string) =>
  (await readdir(dataDir)).filter((n) => n.startsWith('.snapshot-'));

async function expectQuickStop(r: Running, state: string) {
  const { code, ms } = await r.stop('SIGTERM');
  times.push([state, ms]);
  expect(code, r.proc.output().slice(-4000)).toBe(0);
  expect(ms, r.proc.output().slice(-4000)).toBeLessThan(STOP_LIMIT_MS);
  return ms;
}

describe('stopping the service during a backup', { timeout: 180_000 }, () => {
  beforeAll(() => ensureBuilt({ quiet: true }), 180_000);

  it('SIGTERM while a client does not read its backup: stops in time, nothing left in DATA_DIR', async () => {
    running = await startEverything({ dataDir: await bigDataDir() });
    const r = running;
    const socket = await stalledDownload(r);
    await until(r, 'the backup made', async () => (await snapshots(r.dataDir)).length === 0, 60_000);
    await expectQuickStop(r, 'a client not reading its backup');
    socket.destroy();
    expect(await readdir(r.dataDir)).toEqual(['pg']);
  });

  it('SIGTERM while a backup is being made: stops in time, its copy removed', async () => {
    running = await startEverything({ dataDir: await bigDataDir() });
    const r = running;
    // the answer begins once the copy is made, while it is still being packed
    const socket = await stalledDownload(r);
    expect((await snapshots(r.dataDir)).length).toBe(1);
    await expectQuickStop(r, 'a backup being packed');
    socket.destroy();
    expect(await readdir(r.dataDir)).toEqual(['pg']);
  });

  it('a process killed while making a backup leaves its copy; the next start removes it', async () => {
    running = await startEverything({ dataDir: await bigDataDir() });
    const first = running;
    const answer = fetch(`${first.base}/api/backup`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    }).catch(() => null);
    await until(first, 'a copy being made', async () => (await snapshots(first.dataDir)).length > 0, 60_000);
    first.proc.child.kill('SIGKILL');
    await first.proc.exited;
    await answer;
    expect((await snapshots(first.dataDir)).length).toBeGreaterThan(0);
    running = await startEverything({ dataDir: first.dataDir, fakes: first.fakes });
    const second = running;
    await until(second, 'the leftovers removed', async () => (await snapshots(first.dataDir)).length === 0);
    // the running service's lock and the address it listens on
    expect((await readdir(first.dataDir)).sort()).toEqual(['pg', 'satwatt.address', 'satwatt.lock']);
  });
});

describe('restore, as a person runs it', { timeout: 180_000 }, () => {
  it('an archive cut short: exit code 2, "not a complete satwatt backup", no DATA_DIR made', async () => {
    const source = await tmp();
    const database = await openDatabase({ server: null, dataDir: source, fsync: false });
    await migrate(database);
    const whole = path.join(source, 'whole.tar.gz');
    await backupWithoutContents(database, whole);
    await database.close();
    const dataDir = path.join(await tmp(), 'data');
    const run = runSatwatt(['restore', await cut(whole, 0.5, path.join(source, 'half.tar.gz'))], {
      DATA_DIR: dataDir,
    });
    expect(await run.exited).toBe(2);
    expect(run.output()).toBe(
      `restore: ${source}/half.tar.gz is not a complete satwatt backup: its gzip stream ends early (the file is cut short)\n`,
    );
    expect(existsSync(dataDir)).toBe(false);

    const restored = runSatwatt(['restore', whole], { DATA_DIR: dataDir });
    expect(await restored.exited, restored.output()).toBe(0);
    expect(await readdir(dataDir)).toEqual(['pg']);
  });
});
