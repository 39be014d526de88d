import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresUrl } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { addDays, danishDate, danishDaySteps } from '../src/shared/danish-time.js';
import { startAllFakes, type AllFakes } from './fakes/all.js';
import { freshDatabase, TEST_DATABASE_URL } from './support/db.js';
import { freePort, runSatwatt, waitForHttp, type Proc } from './support/process.js';

/**
 * The service is SIGKILLed in the middle of event writes, a metering sync and a price backfill,
 * then started again: nothing it acknowledged is lost and nothing is half written. On PGlite by
 * default, on the PostgreSQL server when TEST_DATABASE_URL is set.
 */
const random = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

let fakes: AllFakes;
let env: Record<string, string>;
let open: () => Promise<Database>;
let dropServerDatabase = async () => {};

beforeAll(async () => {
  fakes = await startAllFakes({ now: new Date() });
  if (TEST_DATABASE_URL) {
    const fresh = await freshDatabase({ migrated: false });
    await fresh.database.close();
    const url = fresh.url!;
    env = { DATABASE_URL: url };
    open = () => openDatabase({ server: parsePostgresUrl(url), poolSize: 2 });
    dropServerDatabase = () => fresh.close().catch(() => {});
  } else {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-crash-'));
    env = { DATA_DIR: dir };
    open = () => openDatabase({ server: null, dataDir: dir });
  }
  env = { ...env, ...fakes.env, LOG_LEVEL: 'error', PROVIDER_TIMEOUT_MS: '5000' };
});
afterAll(async () => {
  await fakes.close();
  await dropServerDatabase();
});

async function serve(): Promise<{ proc: Proc; base: string }> {
  const port = await freePort();
  const proc = runSatwatt(['serve'], { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, 90_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
  });
  return { proc, base };
}

async function kill(proc: Proc) {
  proc.child.kill('SIGKILL');
  await proc.exited;
}

async function stop(proc: Proc) {
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

/** With the service stopped (the embedded database belongs to one process), look at the tables. */
async function inspect<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await open();
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

const json = async <T>(res: Response) => (await res.json()) as T;

/** Every row of a paged list, following next_cursor. */
async function allRows(base: string, list: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let cursor: string | null = ''; cursor !== null;) {
    const page: { items: unknown[]; next_cursor: string | null } = await json(
      await fetch(`${base}${list}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    );
    rows.push(...page.items);
    cursor = page.next_cursor;
  }
  return rows;
}
const post = (base: string, url: string, body?: unknown) =>
  fetch(base + url, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('killed mid-write, restarted', { timeout: 300_000 }, () => {
  it('keeps every acknowledged event, with read tables and balances that agree with the events', async () => {
    let { proc, base } = await serve();
    const wallets = await json<{ id: number; wallet_type: string }[]>(await fetch(`${base}/api/wallets`));
    const exchange = wallets.find((w) => w.wallet_type === 'exchange')!.id;
    const cold = wallets.find((w) => w.wallet_type === 'wallet')!.id;
    const acked = new Set<number>();
    let stopWriting = false;
    const writer = async (n: number) => {
      for (let i = 0; !stopWriting; i++) {
        const body =
          i % 2 === 0
            ? {
                type: 'bank_to_exchange',
                occurred_at: '2026-07-01',
                wallet: exchange,
                amount: '100.25',
                currency: 'DKK',
              }
            : {
                type: 'exchange_to_wallet',
                occurred_at: '2026-07-01',
                from_wallet: exchange,
                to_wallet: cold,
                sats: 1000 + n,
                fee_sats: 7,
                amount: '55',
                currency: 'EUR',
              };
        try {
          const res = await post(base, '/api/events', body);
          if (res.status === 201) acked.add((await json<{ id: number }>(res)).id);
        } catch {
          return;
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((r) => setTimeout(r, random(800, 2500)));
    await kill(proc);
    stopWriting = true;
    await Promise.all(writers);
    expect(acked.size).toBeGreaterThan(0);

    ({ proc, base } = await serve());
    const stored = new Set((await allRows(base, '/api/events')).map((e) => (e as { id: number }).id));
    expect([...acked].filter((id) => !stored.has(id))).toEqual([]);
    // At most the requests in flight at the kill may have committed without an answer.
    expect(stored.size - acked.size).toBeLessThanOrEqual(4);

    const before = { deposits: await allRows(base, '/api/deposits'), buys: await allRows(base, '/api/buys') };
    expect(await json(await post(base, '/api/deposits/rebuild'))).toEqual({
      rebuilt: before.deposits.length,
    });
    expect(await json(await post(base, '/api/buys/rebuild'))).toEqual({ rebuilt: before.buys.length });
    expect(await allRows(base, '/api/deposits')).toEqual(before.deposits);
    expect(await allRows(base, '/api/buys')).toEqual(before.buys);
    const balances = await json<{ id: number; balance: number }[]>(await fetch(`${base}/api/wallets`));
    await stop(proc);

    await inspect(async (db) => {
      const sums = await sql<{ wallet: number; sats: number }>`
        select to_wallet as wallet, sum(sats)::int8 as sats from btc.events
        where type = 'exchange_to_wallet' group by to_wallet`.execute(db.db);
      for (const w of balances) {
        const expected = sums.rows.find((r) => r.wallet === w.id)?.sats ?? 0;
        expect({ wallet: w.id, balance: w.balance }).toEqual({ wallet: w.id, balance: expected });
      }
    });
  });

  it('leaves a metering sync whole or absent, and finishes it after the restart', async () => {
    const date = addDays(danishDate(new Date()), -10);
    let { proc, base } = await serve();
    fakes.eloverblik.server.failAlways({ kind: 'delay', ms: 150 });
    const asked = fakes.eloverblik.server.requests.length;
    const syncing = post(base, `/metering/sync?date=${date}`).catch(() => null);
    await until(() => fakes.eloverblik.server.requests.length > asked);
    await new Promise((r) => setTimeout(r, random(0, 800)));
    await kill(proc);
    await syncing;
    fakes.eloverblik.server.heal();

    const hours = danishDaySteps(date, 60).length;
    const counts = () =>
      inspect(async (db) => {
        const r = await sql<{ p: number; c: number }>`
          select (select count(*) from power.production p where p.start_at >= ${dayStart(date)} and p.start_at < ${dayStart(addDays(date, 1))})::int as p,
                 (select count(*) from power.consumption c where c.start_at >= ${dayStart(date)} and c.start_at < ${dayStart(addDays(date, 1))})::int as c`.execute(
          db.db,
        );
        return r.rows[0]!;
      });
    const afterKill = await counts();
    expect([0, hours]).toContain(afterKill.c);
    expect([0, hours]).toContain(afterKill.p);

    ({ proc, base } = await serve());
    const res = await json<{ status: string }>(await post(base, `/metering/sync?date=${date}`));
    expect(['synced', 'already synced']).toContain(res.status);
    await stop(proc);
    expect(await counts()).toEqual({ p: hours, c: hours });
  });

  it('leaves a killed price backfill with whole days only, and a rerun completes it', async () => {
    const from = '2025-09-01';
    const to = '2025-12-31';
    const partialDays = () =>
      inspect(async (db) => {
        const r = await sql<{ day: string; area: string; quarters: number; hours: number }>`
          with q as (
            select to_char(time_dk at time zone 'Europe/Copenhagen', 'YYYY-MM-DD') as day, price_area as area,
                   sum(resolution_minutes)::int / 15 as quarters
            from power.prices group by 1, 2),
          h as (
            select to_char(time_dk at time zone 'Europe/Copenhagen', 'YYYY-MM-DD') as day, price_area as area,
                   count(*)::int as hours
            from power.elprices group by 1, 2)
          select day, area, coalesce(q.quarters, 0) as quarters, coalesce(h.hours, 0) as hours
          from q full join h using (day, area)`.execute(db.db);
        return r.rows.filter((d) => {
          const hours = danishDaySteps(d.day, 60).length;
          return d.quarters !== hours * 4 || d.hours !== hours;
        });
      });
    fakes.eds.server.failAlways({ kind: 'delay', ms: 200 });
    for (let kills = 0; kills < 3; kills++) {
      const asked = fakes.eds.priceRequests().length;
      const run = runSatwatt(['backfill-prices', from, to], env);
      await until(() => fakes.eds.priceRequests().length > asked);
      await new Promise((r) => setTimeout(r, random(0, 1500)));
      await kill(run);
      expect(await partialDays()).toEqual([]);
    }
    fakes.eds.server.heal();

    const rerun = runSatwatt(['backfill-prices', from, to], env);
    expect(await rerun.exited).toBe(0);
    expect(await partialDays()).toEqual([]);
    const days = await inspect(async (db) => {
      const r = await sql<{
        n: number;
      }>`select count(distinct (time_dk at time zone 'Europe/Copenhagen')::date)::int as n from power.elprices`.execute(
        db.db,
      );
      return r.rows[0]!.n;
    });
    expect(days).toBe(122);
  });
});

async function until(condition: () => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function dayStart(date: string): Date {
  return danishDaySteps(date, 60)[0]!;
}
