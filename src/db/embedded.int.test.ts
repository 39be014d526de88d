import { sql } from 'kysely';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { MAX_PARAMETERS, TooManyParameters } from './chunks.js';
import type { Database, DatabaseChange } from './connect.js';
import { startEmbedded } from './embedded.js';
import { DatabaseUnavailable } from './errors.js';
import { migrate } from './migrate.js';
import { PgliteThread, type PgliteThreadOptions } from './pglite-thread.js';

/**
 * The embedded database when PGlite stops answering in step. The state is made as it arose: a
 * statement of more parameters than PGlite's parser counts, sent to the thread directly, past
 * the database layer's check (as an unchunked writer sent it before the check existed).
 */

const folders: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-embedded-'));
  folders.push(dir);
  return dir;
}

interface Opened {
  database: Database;
  /** Every thread the database started, the first one first. */
  threads: PgliteThread[];
  changes: DatabaseChange[];
}

async function open(
  dataDir?: string,
  start: (o: PgliteThreadOptions, n: number) => PgliteThread = (o) => PgliteThread.start(o),
): Promise<Opened> {
  const threads: PgliteThread[] = [];
  const database = await startEmbedded({
    ...(dataDir ? { dataDir } : {}),
    fsync: dataDir !== undefined,
    startThread: (o) => {
      const t = start(o, threads.length);
      threads.push(t);
      return t;
    },
  });
  cleanups.push(() => database.close());
  await database.ready;
  const changes: DatabaseChange[] = [];
  database.watchState((c) => changes.push(c));
  return { database, threads, changes };
}

/** One INSERT of `n` parameters into t, straight to the thread. */
function oversized(thread: PgliteThread, n: number) {
  const params = Array.from({ length: n }, (_, i) => i);
  return thread.query(`insert into t (a) values ${params.map((_, i) => `($${i + 1})`).join(',')}`, params);
}

const count = async (database: Database) =>
  (await sql<{ n: number }>`select count(*)::int as n from t`.execute(database.db)).rows[0]?.n;

describe('the database layer refuses a statement too large for PGlite before it is sent', () => {
  it('through Kysely and through a script session, and the database goes on answering', async () => {
    const { database, changes } = await open();
    await database.withSession((s) => s.exec('create table t (a int)'));
    const params = Array.from({ length: MAX_PARAMETERS + 1 }, (_, i) => i);
    const values = sql.join(params.map((p) => sql`(${p})`));
    await expect(sql`insert into t (a) values ${values}`.execute(database.db)).rejects.toThrow(
      TooManyParameters,
    );
    await expect(
      database.withSession((s) =>
        s.query(`insert into t (a) values ${params.map((_, i) => `($${i + 1})`).join(',')}`, params),
      ),
    ).rejects.toThrow(/at most 32767/);
    await sql`insert into t (a) values ${sql.join(params.slice(0, MAX_PARAMETERS).map((p) => sql`(${p})`))}`.execute(
      database.db,
    );
    expect(await count(database)).toBe(MAX_PARAMETERS);
    await database.check();
    expect(changes).toEqual([]);
  });
});

describe('a PGlite thread that stops answering in step', () => {
  it('in memory: found by the probe after 32,768 parameters left it answering nothing, refused for good', async () => {
    const { database, threads, changes } = await open();
    await threads[0]!.exec('create table t (a int)');
    // what the unchecked statement did: "succeeded" with no rows, and so does everything after it
    expect(await oversized(threads[0]!, MAX_PARAMETERS + 1)).toMatchObject({ rows: [] });
    expect((await threads[0]!.query('select 1 as one')).rows).toEqual([]);

    await expect(database.check()).rejects.toThrow(DatabaseUnavailable);
    await expect.poll(() => changes.map((c) => c.state)).toEqual(['broken', 'failed']);
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(DatabaseUnavailable);
    await expect(database.check()).rejects.toThrow(/stopped answering in step/);
    expect(threads).toHaveLength(1);
  });

  it(
    'in a folder: broken at once by "Invalid array length", opened again with every commit, listeners told',
    { timeout: 120_000 },
    async () => {
      const { database, threads, changes } = await open(await folder());
      await database.withSession((s) => s.exec('create table t (a int)'));
      await sql`insert into t (a) values (1), (2)`.execute(database.db);
      const heard: (string | undefined)[] = [];
      await database.listen('news', (p) => heard.push(p));

      // 100,000 parameters: PGlite's parser throws out of Postgres's send, and the probe after it finds no answer
      await expect(oversized(threads[0]!, 100_000)).rejects.toThrow(/Invalid array length|stopped answering/);
      await expect.poll(() => changes[0]?.state).toBe('broken');
      await expect(database.check()).rejects.toThrow(DatabaseUnavailable);
      await expect(threads[0]!.query('select 1')).rejects.toThrow(DatabaseUnavailable);
      // a statement asked for meanwhile waits for the new thread: it is never answered by the broken one
      const meanwhile = count(database);

      await expect
        .poll(() => changes.map((c) => c.state), { timeout: 60_000 })
        .toEqual(['broken', 'reopened']);
      expect(threads).toHaveLength(2);
      expect(await meanwhile).toBe(2);
      await database.check();
      expect(heard).toEqual([undefined]);
      await sql`select pg_notify('news', 'after')`.execute(database.db);
      await expect.poll(() => heard).toEqual([undefined, 'after']);
    },
  );

  it('in a folder that does not open again: fails for good', { timeout: 120_000 }, async () => {
    const notAFolder = path.join(await folder(), 'file');
    await writeFile(notAFolder, 'x');
    const { database, threads, changes } = await open(await folder(), (o, n) =>
      PgliteThread.start(n === 0 ? o : { ...o, dataDir: notAFolder }),
    );
    await database.withSession((s) => s.exec('create table t (a int)'));
    await oversized(threads[0]!, 100_000).catch(() => {});
    await expect.poll(() => changes.map((c) => c.state), { timeout: 60_000 }).toEqual(['broken', 'failed']);
    await expect(count(database)).rejects.toThrow(DatabaseUnavailable);
    await expect(database.check()).rejects.toThrow(DatabaseUnavailable);
  });
});

describe('the service over a broken embedded database', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function serve(dataDir?: string) {
    const opened = await open(dataDir);
    await migrate(opened.database);
    app = await startTestApp({ db: { database: opened.database, url: null, close: async () => {} } });
    return opened;
  }

  it('in memory: /health is down and every request is a 503 problem, for good', async () => {
    const { threads, changes } = await serve();
    expect(
      (await app!.call('POST', '/api/wallets', { name: 'Spare', wallet_type: 'wallet' })).statusCode,
    ).toBe(201);
    await threads[0]!.exec('create table t (a int)');
    await oversized(threads[0]!, MAX_PARAMETERS + 1);

    const health = await app!.call('GET', '/health');
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'down', database: { ok: false } });
    expect(health.json().database.error).toMatch(/stopped answering in step/);
    await expect.poll(() => changes.map((c) => c.state)).toEqual(['broken', 'failed']);
    for (const [method, url, body] of [
      ['GET', '/api/wallets', undefined],
      ['GET', '/api/events', undefined],
      ['POST', '/api/wallets', { name: 'Another', wallet_type: 'wallet' }],
      ['POST', '/api/deposits/rebuild', undefined],
    ] as const) {
      const res = await app!.call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(503);
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after'], url).toBeDefined();
    }
    expect((await app!.call('GET', '/health')).statusCode).toBe(503);
  });

  it(
    'in a folder: down while it is opened again, then answering with what was stored',
    { timeout: 120_000 },
    async () => {
      const { threads, changes } = await serve(await folder());
      expect(
        (await app!.call('POST', '/api/wallets', { name: 'Spare', wallet_type: 'wallet' })).statusCode,
      ).toBe(201);
      await threads[0]!.exec('create table t (a int)');
      await oversized(threads[0]!, 100_000).catch(() => {});
      await expect.poll(() => changes[0]?.state).toBe('broken');
      const down = await app!.call('GET', '/health');
      expect(down.statusCode).toBe(503);
      expect(down.json().status).toBe('down');

      await expect
        .poll(() => changes.map((c) => c.state), { timeout: 60_000 })
        .toEqual(['broken', 'reopened']);
      expect((await app!.call('GET', '/health')).statusCode).toBe(200);
      const wallets = await app!.call('GET', '/api/wallets');
      expect(wallets.statusCode).toBe(200);
      expect(wallets.json().map((w: { name: string }) => w.name)).toContain('Spare');
    },
  );
});
