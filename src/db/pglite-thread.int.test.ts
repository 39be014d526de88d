import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGLITE_INITDB_PARAMS, pgliteStartParams } from './connect.js';
import { DatabaseUnavailable } from './errors.js';
import { PgliteThread } from './pglite-thread.js';

const options = {
  startParams: pgliteStartParams(false),
  initdbParams: PGLITE_INITDB_PARAMS,
  fresh: false,
  fsync: false,
};

describe('PGlite on its own thread', () => {
  let pg: PgliteThread;
  beforeAll(async () => {
    pg = PgliteThread.start(options);
    await pg.ready;
  });
  afterAll(() => pg.close());

  it('answers queries made before it is open, in order', async () => {
    const early = PgliteThread.start(options);
    const answers = await Promise.all(
      [1, 2, 3].map((n) => early.query<{ n: number }>('select $1::int as n', [n])),
    );
    expect(answers.map((a) => a.rows[0]!.n)).toEqual([1, 2, 3]);
    await early.close();
  });

  it('parses as the server pool does: int8 a number, numeric and date text, timestamptz a Date', async () => {
    const { rows } = await pg.query<Record<string, unknown>>(
      "select 2100000000000000::int8 as i, 0.1::numeric as n, date '2026-03-29' as d, timestamptz '2026-03-29T01:00:00Z' as t",
    );
    expect(rows[0]).toEqual({
      i: 2100000000000000,
      n: '0.1',
      d: '2026-03-29',
      t: new Date('2026-03-29T01:00:00Z'),
    });
  });

  it("brings a database error back with PostgreSQL's fields", async () => {
    await pg.exec('create table t (id int primary key)');
    await pg.query('insert into t values (1)');
    const error = await pg.query('insert into t values (1)').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 't_pkey' });
    expect((error as Error).message).toMatch(/duplicate key/);
  });

  it('passes notifications on to each listener until it stops listening', async () => {
    const heard: string[] = [];
    const stop = await pg.listen('news', (p) => heard.push(p));
    await pg.query("select pg_notify('news', 'one')");
    await expect.poll(() => heard).toEqual(['one']);
    await stop();
    await pg.query("select pg_notify('news', 'two')");
    await pg.query('select 1');
    expect(heard).toEqual(['one']);
  });

  it('stays in use after an error of its own that left Postgres in step (a value it cannot serialize)', async () => {
    let broken = false;
    void pg.broken.then(() => (broken = true));
    await expect(pg.query('select $1::json as j', [10n])).rejects.toThrow(/BigInt/);
    await pg.check();
    expect((await pg.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect(broken).toBe(false);
  });

  it('is broken, and refuses every call, once a statement threw out of the exchange with Postgres', async () => {
    const other = PgliteThread.start(options);
    await other.exec('create table t (a int)');
    const params = Array.from({ length: 100_000 }, (_, i) => i);
    const sent = other.query(
      `insert into t (a) values ${params.map((_, i) => `($${i + 1})`).join(',')}`,
      params,
    );
    await expect(sent).rejects.toThrow();
    const broken = await other.broken;
    expect(broken).toBeInstanceOf(DatabaseUnavailable);
    expect(broken.message).toMatch(/stopped answering in step.*Invalid array length/);
    await expect(other.query('select 1')).rejects.toBe(broken);
    await expect(other.check()).rejects.toBe(broken);
    await other.close();
  });

  it('refuses queries once closed, and closes twice without error', async () => {
    const other = PgliteThread.start(options);
    await other.close();
    await other.close();
    await expect(other.query('select 1')).rejects.toThrow(/closed/);
  });

  it('fails `ready` and every query when the folder cannot be opened', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'satwatt-thread-')), 'not-a-folder');
    await writeFile(file, 'x');
    const broken = PgliteThread.start({ ...options, dataDir: file });
    const query = broken.query('select 1');
    await expect(broken.ready).rejects.toThrow();
    await expect(query).rejects.toThrow();
    await broken.close();
  });
});
