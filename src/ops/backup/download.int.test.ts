import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { pino } from 'pino';
import { Parser } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../runtime.js';
import { fixedClock } from '../../shared/clock.js';
import { HealthRegistry } from '../../shared/health.js';
import { testConfig } from '../../../test/support/app.js';
import { tmp } from '../../../test/support/backup-archives.js';
import { createBackupService } from './index.js';
import { JobRunner } from '../../jobs/job.js';
import { backupJob } from './scheduler.js';
import { Inspection } from './verify.js';

/*
 * GET /api/backup in each state: two at once, while the daily backup is being made, while
 * another service's snapshot is, with an unknown parameter, and with a client that stops
 * reading. Over a real socket, on the embedded database in a folder (what it backs up, whatever
 * TEST_DATABASE_URL says); the database holds 8 MB that do not compress, so that a backup is
 * larger than what the sockets' buffers take from a client that does not read.
 */

/** Long enough for a second download and a daily backup to be made while the first client stalls. */
const STALL_MS = 30_000;
/** Beyond what loopback sockets' buffers hold (about 4.5 MB here) with the new database's own 4.5 MB. */
const INCOMPRESSIBLE_MB = 8;
const clock = fixedClock('2026-07-03T10:00:00Z');
let runtime: Runtime;
let dataDir: string;
let base: string;
/** The service's warnings, one JSON line each. */
const warnings: string[] = [];

beforeAll(async () => {
  dataDir = await tmp();
  runtime = await createRuntime(testConfig({ DATA_DIR: dataDir, BACKUP_STALL_MS: String(STALL_MS) }), {
    clock,
    log: pino(
      { level: 'warn' },
      new Writable({
        write: (line: Buffer, _enc, cb) => cb(void warnings.push(line.toString())),
      }),
    ),
  });
  const db = runtime.ctx.database.db;
  await sql`create table public.incompressible (b bytea)`.execute(db);
  for (let i = 0; i < INCOMPRESSIBLE_MB; i++)
    await sql`insert into public.incompressible values (${randomBytes(1024 * 1024)})`.execute(db);
  await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await runtime?.stop();
});

/** A whole backup over HTTP, checked to be a complete satwatt backup. */
async function download(): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${base}/api/backup`);
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  const file = path.join(await tmp(), 'b.tar.gz');
  await writeFile(file, body);
  const inspection = new Inspection(body.length * 100);
  const parser: Parser = new Parser({
    strict: true,
    filter: (_p, entry) => inspection.admit(entry as never, parser),
    onReadEntry: (entry) => inspection.onEntry(entry, parser),
  });
  const inventory = await inspection.run(file, parser);
  expect(inventory.manifest.contents?.bytes).toBeGreaterThan(INCOMPRESSIBLE_MB * 1024 * 1024);
  return { status: res.status, bytes: body.length };
}

/** What a backup being made leaves in DATA_DIR: its copy of the database. */
const snapshots = async () => (await readdir(dataDir)).filter((n) => n.startsWith('.snapshot-'));

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function expectBusy(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect((await res.json()) as unknown).toMatchObject({
    detail: 'a backup is being made; ask again after Retry-After',
  });
}

function daily(dir: string) {
  const health = new HealthRegistry(clock).feed('backup');
  const job = backupJob({
    service: createBackupService(runtime.ctx),
    dir,
    keep: 2,
    clock,
    log: pino({ level: 'silent' }),
    health,
    shutdown: runtime.ctx.shutdown,
    pattern: '7 4 * * *',
    firstRunDelayMs: 0,
  });
  return { scheduler: new JobRunner(job, runtime.ctx), health };
}

describe('GET /api/backup, one backup made at a time', () => {
  it('refuses an unknown parameter with 400 naming it, and makes nothing', async () => {
    const res = await fetch(`${base}/api/backup?date=2026-07-01`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'querystring.date: unknown parameter; this route takes no query parameters',
    );
    expect(await snapshots()).toEqual([]);
  });

  it('HEAD says whether a GET would be answered now, and makes nothing', async () => {
    const free = await fetch(`${base}/api/backup`, { method: 'HEAD' });
    expect(free.status).toBe(200);
    expect(free.headers.get('content-type')).toBe('application/gzip');
    expect(await snapshots()).toEqual([]);
    const first = download();
    await until('the copy', async () => (await snapshots()).length > 0);
    const busy = await fetch(`${base}/api/backup`, { method: 'HEAD' });
    expect(busy.status).toBe(429);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await first;
  }, 180_000);

  it('two at once: one is sent, the other is 429 with Retry-After', async () => {
    const first = download();
    await until('the first copy', async () => (await snapshots()).length > 0);
    await expectBusy(await fetch(`${base}/api/backup`));
    await first;
    await until('the copy removed', async () => (await snapshots()).length === 0);
    await download();
  }, 120_000);

  it('while the daily backup is being made: 429; the daily one completes', async () => {
    const dir = await tmp();
    const { scheduler, health } = daily(dir);
    const run = scheduler.runNow();
    await until('the daily copy', async () => (await snapshots()).length > 0);
    await expectBusy(await fetch(`${base}/api/backup`));
    await run;
    expect(health.ok).toBe(true);
    expect(await readdir(dir)).toEqual(['satwatt-20260703T100000Z.tar.gz']);
  }, 120_000);

  it('while another service object on the same folder makes one: 429', async () => {
    const other = createBackupService(runtime.ctx);
    const made = other.writeFile(path.join(await tmp(), 'other.tar.gz'));
    await until('the other copy', async () => (await snapshots()).length > 0);
    await expectBusy(await fetch(`${base}/api/backup`));
    await made;
  }, 120_000);

  it('the daily backup that comes while a download is being made waits its turn, then is made', async () => {
    const first = download();
    await until('the download’s copy', async () => (await snapshots()).length > 0);
    const dir = await tmp();
    const { scheduler, health } = daily(dir);
    await scheduler.runNow();
    expect(health.lastError).toBeNull();
    expect(await readdir(dir)).toEqual(['satwatt-20260703T100000Z.tar.gz']);
    await first;
  }, 180_000);
});

describe('a client that stops reading a backup', () => {
  it('holds no lock: a second download and the daily backup are made; it is cut off after BACKUP_STALL_MS, leaving nothing', async () => {
    const { port } = runtime.app.server.address() as AddressInfo;
    const stalled: Socket = connect(port, '127.0.0.1');
    let received = 0;
    let firstAt = 0;
    let reading = false;
    stalled.on('data', (d: Buffer) => {
      received += d.length;
      firstAt ||= performance.now();
      if (!reading) stalled.pause();
    });
    const cut = () => warnings.find((w) => w.includes('backup: the download was cut off'));
    stalled.write('GET /api/backup HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until('the stalled client’s answer to begin', () => received > 0);
    await until('its backup made', async () => (await snapshots()).length === 0);
    // only the database and its lock: the archive being sent has no name in DATA_DIR
    expect((await readdir(dataDir)).sort()).toEqual(['pg', 'satwatt.lock']);

    const whole = await download();
    const dir = await tmp();
    const { scheduler, health } = daily(dir);
    await scheduler.runNow();
    expect(health.lastError).toBeNull();
    expect(existsSync(path.join(dir, 'satwatt-20260703T100000Z.tar.gz'))).toBe(true);
    expect(cut(), 'the stalled client was still connected while both were made').toBeUndefined();

    await until('the stalled download cut off', () => cut() !== undefined, STALL_MS + 15_000);
    expect(performance.now() - firstAt).toBeGreaterThan(STALL_MS);
    expect(cut()).toContain(`the client read nothing for ${STALL_MS} ms; the download was cut off`);
    // the client, reading again, finds its answer ended before the archive did
    const ended = new Promise((r) => stalled.once('close', r));
    stalled.on('error', () => {});
    reading = true;
    stalled.resume();
    await ended;
    expect(received).toBeLessThan(whole.bytes);
    expect((await readdir(dataDir)).sort()).toEqual(['pg', 'satwatt.lock']);
  }, 180_000);
});
