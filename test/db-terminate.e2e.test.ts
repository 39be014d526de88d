import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllFakes, type AllFakes } from './fakes/all.js';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/db.js';
import { freePort, runSatwatt, waitForHttp, type Proc } from './support/process.js';

/**
 * Every session of the service's database is ended again and again (pg_terminate_backend: what a
 * server restart or a failover does) while writers post events. The server is needed: PGlite has
 * no sessions to end.
 */
if (!TEST_DATABASE_URL)
  console.log(
    'session termination test skipped: TEST_DATABASE_URL is unset (PGlite has no server sessions to terminate)',
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!TEST_DATABASE_URL)('sessions terminated under writers', { timeout: 240_000 }, () => {
  let db: TestDatabase;
  let fakes: AllFakes;
  let proc: Proc;
  let base: string;

  beforeAll(async () => {
    db = await freshDatabase({ migrated: false });
    fakes = await startAllFakes({ now: new Date() });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = runSatwatt(['serve'], {
      ...fakes.env,
      DATABASE_URL: db.url!,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      WRITE_RATE_LIMIT: '100000',
    });
    await waitForHttp(`${base}/health`, 90_000).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${proc.output().slice(-3000)}`);
    });
  }, 150_000);

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await fakes?.close();
    await db?.close();
  });

  it('the process stays up, in-flight writes answer 503 and succeed on retry with their key, none acknowledged is lost', async () => {
    const wallets = (await (await fetch(`${base}/api/wallets`)).json()) as {
      id: number;
      wallet_type: string;
    }[];
    const exchange = wallets.find((w) => w.wallet_type === 'exchange')!.id;
    const statuses = new Map<number, number>();
    /** Idempotency-Key → the event id the service acknowledged for it. */
    const acked = new Map<string, number>();
    let writing = true;

    const writer = async (n: number) => {
      while (writing) {
        const key = randomUUID();
        const body = {
          type: 'bank_to_exchange',
          occurred_at: '2026-07-01',
          wallet: exchange,
          amount: `${100 + n}.25`,
          currency: 'DKK',
        };
        // one logical write, retried with its key until the service acknowledges it
        for (let attempt = 0; attempt < 200; attempt++) {
          let status = 0;
          try {
            const res = await fetch(`${base}/api/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'idempotency-key': key },
              body: JSON.stringify(body),
            });
            status = res.status;
            const answer = (await res.json()) as { id?: number };
            if (status === 201) acked.set(key, answer.id!);
          } catch {
            status = -1; // the connection to the service itself failed: it died
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 201 || status === -1) break;
          await sleep(50);
        }
        if (proc.child.exitCode !== null) return;
      }
    };

    const admin = new pg.Client({ connectionString: db.url! });
    await admin.connect();
    let terminated = 0;
    const terminator = async () => {
      const until = Date.now() + 10_000;
      while (Date.now() < until && proc.child.exitCode === null) {
        const r = await admin.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()`,
        );
        terminated += r.rows[0]!.n;
        await sleep(40 + Math.random() * 120);
      }
    };

    const writers = [0, 1, 2, 3, 4, 5].map(writer);
    await terminator();
    writing = false;
    await Promise.all(writers);
    await admin.end();

    expect(proc.child.exitCode, proc.output().slice(-3000)).toBeNull();
    expect(terminated).toBeGreaterThan(20);
    // every answer was an acknowledgement or a 503 to retry; never a 500, never a dead service
    expect([...statuses.keys()].sort(), JSON.stringify([...statuses])).toEqual(
      [...statuses.keys()].filter((s) => s === 201 || s === 503).sort(),
    );
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);

    // /health comes back to ok once the notification connection is made again
    let health: unknown = null;
    for (const until = Date.now() + 30_000; Date.now() < until; await sleep(250)) {
      health = await (await fetch(`${base}/health`)).json();
      if ((health as { status: string }).status === 'ok') break;
    }
    expect(health).toMatchObject({ status: 'ok', database: { ok: true } });

    const stored = new Set<number>();
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = (await (
        await fetch(`${base}/api/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as { items: { id: number }[]; next_cursor: string | null };
      for (const e of page.items) stored.add(e.id);
      cursor = page.next_cursor;
    }
    expect(acked.size).toBeGreaterThan(20);
    const missing = [...acked.values()].filter((id) => !stored.has(id));
    expect(missing).toEqual([]);
    // a key retried after a lost answer was replayed, not written twice
    expect(new Set(acked.values()).size).toBe(acked.size);
    expect(stored.size).toBe(acked.size);
  });
});
